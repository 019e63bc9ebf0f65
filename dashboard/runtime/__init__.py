"""The server's machinery: cancellable worker jobs (:mod:`.jobs`), the byte-budgeted result cache
(:mod:`.budget`), shared threads for live readings (:mod:`.background`), closed tabs' sessions
freed on time (:mod:`.sessions`), small writes sent at once (:mod:`.server_socket`) and the
first page's early chunks (:mod:`.page_head`), keys that press buttons in projector mode
(:mod:`.arrow_keys`).

This is the one package allowed to touch Streamlit's private parts (and the server's): every
such use, and every one of the pipeline's and the cluster reader's, is listed in
:mod:`.internals` with the versions it was checked on, probed at start-up, and switched off
visibly when it no longer applies.

May import: :mod:`streamlit`, :mod:`streamlit.runtime` (private: guarded here),
:mod:`starlette` (the page head's middleware), :mod:`plotly` (the budget sizes figures),
:mod:`guarded` (the registry's shape), and :mod:`pipeline.internals` and :mod:`cluster.internals`
(their registries of private uses, listed here with the dashboard's; pure data and probes, no
Spark session, no connection).
"""
