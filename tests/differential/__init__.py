"""Differential parity: our strategies against Kafka's own Java assignors on generated groups."""
