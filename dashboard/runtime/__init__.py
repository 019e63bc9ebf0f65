"""The server's machinery: cancellable worker jobs (:mod:`.jobs`), the byte-budgeted result cache
(:mod:`.budget`), closed tabs' sessions freed on time (:mod:`.sessions`), small writes sent at
once (:mod:`.server_socket`) and the first page's early chunks (:mod:`.page_head`).

This is the one package allowed to touch Streamlit's private parts (and the server's): every
such use is listed with the versions it was checked on.

May import: :mod:`streamlit`, :mod:`streamlit.runtime` (private: guarded here),
:mod:`starlette` (the page head's middleware) and :mod:`plotly` (the budget sizes figures).
"""
