"""The Streamlit + Plotly dashboard: ``streamlit run dashboard/app.py`` (``dashboard/serve.py``
serves the same app with a faster first page).

Layers, from the bottom up; each sub-package's docstring says what it holds and may import, and
``tests/test_layers.py`` holds the code to it:

* :mod:`dashboard.model`: pure view models (the what-if edits, share links, sources, palette,
  summaries, the deploy picture). No Streamlit, no Plotly.
* :mod:`dashboard.charts`: pure figure builders, data in and a Plotly figure out. No Streamlit.
* :mod:`dashboard.runtime`: the server's machinery (worker jobs, the memory budget, closed
  sessions swept, socket and page-head tweaks): the one place that touches Streamlit's private
  parts, each use listed with the versions it was checked on.
* :mod:`dashboard.session`: session state behind named helpers, and the cached calls into the
  core.
* :mod:`dashboard.panels`: widgets, drawn from session state, charts and models.
* :mod:`dashboard.views`: one module per page, each a function the router calls.
* ``app.py``: the entry point: page config, the shared sidebar and ``st.navigation``.

May import: :mod:`dashboard`, :mod:`streamlit` and :mod:`starlette` (the served app's middleware).
"""
