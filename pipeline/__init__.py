"""Spark jobs over consumer-group offset snapshots: lag history, fleet what-ifs, replays.

The pipeline is a shell around the pure core (:mod:`assignors`): it reads offset snapshots
(format: ``docs/pipeline.md``, column names in :mod:`pipeline.schema`), rebuilds each group's
:class:`~assignors.model.Scenario` through the one loader, and runs the core's strategies,
metrics, rebalance simulation and drain projection on the executors. Modules:

* :mod:`pipeline.schema`: the snapshot and membership tables (columns, types, checks).
* :mod:`pipeline.scenarios`: pandas frames of one group -> Scenario -> result rows (no Spark).
* :mod:`pipeline.lag_frames`: the lag history's steps on Arrow tables of whole groups (no Spark).
* :mod:`pipeline.lag_history`, :mod:`pipeline.whatif`: the Spark jobs.
* :mod:`pipeline.synth`: seeded synthetic history; :mod:`pipeline.session`: the Spark session.
* ``python -m pipeline lag|whatif|replay|synth``: the entry point.

May import: :mod:`assignors` (its public names), :mod:`pyspark`, :mod:`pandas`,
:mod:`numpy`, :mod:`pyarrow` and :mod:`guarded` (the registry of its private uses).
"""
