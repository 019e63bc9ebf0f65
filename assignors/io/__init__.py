"""Formats: the scenario JSON format and its schema, the one change format (JSON and text,
:mod:`.changes`), the small JSON checks every loader shares, and walkthrough files (teaching steps
stored beside a scenario).

May import: the standard library, :mod:`assignors.model`, :mod:`assignors.errors`,
:mod:`assignors.limits`, :mod:`assignors.kafka_versions` (a scenario's release line),
:mod:`assignors.gc_pause` (the collector paused while a large scenario is decoded and read) and
:mod:`assignors.simulate.changes` (the change types the change format and walkthrough steps
become).
"""
