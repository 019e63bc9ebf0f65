"""What a change to a group does: changes as pure ``Scenario -> Scenario`` functions, lag per
partition, assignment metrics, the rebalance played under each protocol, and the lag-drain
projection.

May import: the standard library, the top-level modules (model, strategy, errors,
registry) and :mod:`assignors.client.cooperative_sticky` (the cooperative protocol's own round).
"""
