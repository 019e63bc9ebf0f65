"""Formats: the scenario JSON format and its schema, the small JSON checks every loader shares, and
walkthrough files (teaching steps stored beside a scenario).

May import: the standard library, :mod:`assignors.model`, :mod:`assignors.errors` and
:mod:`assignors.simulate.changes` (the change types walkthrough steps become).
"""
