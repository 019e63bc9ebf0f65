"""Shells that run the core's strategies inside real Kafka clients.

:mod:`adapters.kafka_python` plugs every client-side strategy into kafka-python's consumer
(``partition_assignment_strategy``). This package imports ``kafka``; the core does not.

May import: :mod:`assignors` (its public names) and :mod:`kafka` (kafka-python).
"""
