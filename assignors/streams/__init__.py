"""Kafka Streams task assignment: the Streams scenario and answer types (:mod:`.model`), the
high-availability task assignor (KIP-441), the client-side sticky task assignor (KIP-924,
:mod:`.client_sticky`), the broker-side sticky assignor of Streams groups (KIP-1071,
:mod:`.group_sticky`) and the probing-rebalance convergence simulation.

May import: the standard library, :mod:`assignors.strategy`, :mod:`assignors.errors`,
:mod:`assignors.java_order`, :mod:`assignors.gc_pause`, :mod:`assignors.kafka_versions` (what
differs by release line), :mod:`assignors.io.json_checks` and :mod:`assignors.io.json_safe` (the
JSON gate), and each other.
"""
