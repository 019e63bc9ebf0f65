"""Kafka's client-side assignors (classic protocol): ``range``, ``roundrobin``, ``sticky`` and
``cooperative-sticky``, each to the letter of Kafka's Java classes.

May import: the standard library, :mod:`assignors.model`, :mod:`assignors.strategy`,
:mod:`assignors.errors`, :mod:`assignors.java_order`, :mod:`assignors.gc_pause`,
:mod:`assignors.trace` (the decisions ``--explain`` shows), :mod:`assignors.kafka_versions` (which
release lines each answers, and what differs by line), and each other.
"""
