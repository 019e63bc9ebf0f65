"""Pages: one module per page of the app, each a function ``app.py`` routes to with
``st.navigation``. A view lays out panels; it holds no assignment logic and builds no figure.

May import: :mod:`dashboard.model`, :mod:`dashboard.charts`, :mod:`dashboard.session`,
:mod:`dashboard.runtime`, :mod:`dashboard.panels`, :mod:`assignors`, :mod:`pipeline` (the
History and Fleet views read its output), :mod:`sample_data`, :mod:`streamlit` (its public API)
and :mod:`pandas`. Not Plotly: a view draws the figures the charts build.
"""
