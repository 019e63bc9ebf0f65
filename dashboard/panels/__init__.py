"""Widgets: the controls and the drawn parts of the pages (source, strategies, the what-if,
results, export, explain, teach, watch, reconciliation, big groups, Streams, the login's
sign-in screen and Sign out).

A panel reads and writes session state through :mod:`dashboard.session`, takes its figures from
:mod:`dashboard.charts` and its words from :mod:`dashboard.model`.

May import: :mod:`dashboard.model`, :mod:`dashboard.charts`, :mod:`dashboard.session`,
:mod:`dashboard.runtime`, :mod:`assignors`, :mod:`cluster` (the read-only reader),
:mod:`sample_data`, :mod:`streamlit` (its public API), :mod:`pandas` and :mod:`numpy`. Not
Plotly: a panel draws the figures the charts build (annotated with their ``Figure`` alias).
"""
