"""What a change to a group does: changes as pure ``Scenario -> Scenario`` functions, lag per
partition, assignment metrics, the rebalance played under each protocol, the lag-drain
projection, and :func:`~assignors.simulate.evaluate.evaluate`, the one question the shells ask
(it puts the others together, each part computed on request).

May import: the standard library, the top-level modules (:mod:`assignors.model`,
:mod:`assignors.strategy`, :mod:`assignors.errors`, :mod:`assignors.limits`,
:mod:`assignors.registry`, :mod:`assignors.kafka_versions`, :mod:`assignors.trace`),
:mod:`assignors.client.cooperative_sticky` (the cooperative protocol's own round) and
:mod:`assignors.streams.model` (the Streams data :mod:`.reconciliation` lays out).
"""
