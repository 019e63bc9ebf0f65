"""Kafka 4's broker-side assignors (KIP-848 consumer protocol, ``group.remote.assignor``):
``uniform`` and ``server-range``.

May import: the standard library, :mod:`assignors.model`, :mod:`assignors.strategy`,
:mod:`assignors.errors`, :mod:`assignors.java_order`, :mod:`assignors.gc_pause`,
:mod:`assignors.kafka_versions` (what differs by release line) and :mod:`assignors.trace` (the
decisions ``--explain`` shows).
"""
