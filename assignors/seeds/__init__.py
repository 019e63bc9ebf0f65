"""The design documents' strategies: ``lag-aware`` (000, KAFKA-5337), ``failover`` (001) and
``stream-join-sticky`` (004, KIP-315).

May import: the standard library, :mod:`assignors.model`, :mod:`assignors.strategy`,
:mod:`assignors.simulate.lag` and :mod:`assignors.trace` (the decisions ``--explain`` shows).
"""
