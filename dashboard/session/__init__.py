"""Session state and the cached calls into the core.

Holds the session's state behind named helpers (:mod:`.state`: the loaded source, the what-if
edits, the picked strategies, messages), the bundled samples loaded once per server
(:mod:`.samples`), the login as the session sees it (:mod:`.login`: whether one is
configured, who is signed in, the operator's access rules) and the expensive calls into
:func:`assignors.evaluate`, cached in the server's byte budget (:mod:`.compute`).

May import: :mod:`dashboard.model`, :mod:`dashboard.runtime`, :mod:`assignors`,
:mod:`sample_data` and :mod:`streamlit` (its public API).
"""
