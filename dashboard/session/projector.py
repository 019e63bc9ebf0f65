"""Projector mode's one flag: on for a session from its switch or from the link's
``projector=1``, and carried in every link the page writes (:func:`link_params`).

The switch's widget holds the flag (its key is :data:`KEY`); before the switch is first drawn
the flag is what the address says, so a link with ``?projector=1`` opens in projector mode.
"""

from __future__ import annotations

import streamlit as st

#: The link parameter: ``projector=1`` opens the page in projector mode.
PARAM = "projector"
#: The switch's widget key, which holds the flag in the session.
KEY = "ae.projector"


def is_on() -> bool:
    """Whether this session shows the page in projector mode."""
    if KEY not in st.session_state:
        st.session_state[KEY] = st.query_params.get(PARAM) == "1"
    return bool(st.session_state[KEY])


def turn_off() -> None:
    """Leave projector mode (the switch shows it off from the next run)."""
    st.session_state[KEY] = False


def link_params() -> dict[str, str]:
    """The parameter a link carries for projector mode: ``{"projector": "1"}`` when on."""
    return {PARAM: "1"} if is_on() else {}
