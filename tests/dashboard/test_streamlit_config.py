"""The dashboard's Streamlit settings (``.streamlit/config.toml``) that users see."""

from __future__ import annotations

import tomllib
from pathlib import Path

CONFIG = Path(__file__).resolve().parents[2] / ".streamlit" / "config.toml"


def test_the_toolbar_has_no_deploy_button() -> None:
    """Issue 17: Streamlit's *Deploy* button was on the page, an offer to publish the tool to
    Streamlit Community Cloud that means nothing to its users. The "minimal" toolbar has no
    *Deploy* button and no developer items (a browser test would need a page for one line)."""
    with CONFIG.open("rb") as file:
        config = tomllib.load(file)
    assert config["client"]["toolbarMode"] == "minimal"
