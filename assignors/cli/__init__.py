"""The command line (``python -m assignors``): ``assign``, ``batch``, ``compare``, ``list``, and
the plain-text renderings they print.

May import: anything in :mod:`assignors`; nothing outside the standard library.
"""
