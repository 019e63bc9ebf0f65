"""The app's pages, as data: each view's script, title, address and icon, in menu order.

``app.py`` builds ``st.navigation`` from :data:`PAGES`; a view that sends the user to another
page (the Fleet page's *Open in explorer*) names it here. A page's script path is relative to
``dashboard/app.py``, the main script; the default page answers at ``/``, every other page at
``/<url_path>``, so links made before the pages existed (``/?sample=...``) still open the
Explorer.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PageSpec:
    """One page: ``script`` relative to the main script, ``url_path`` its address."""

    script: str
    title: str
    url_path: str
    icon: str
    default: bool = False


# Material icons ship with Streamlit's own fonts: they draw the same on every machine (an
# emoji needs a colour-emoji font that a server-side browser or a lean desktop may lack).
EXPLORER = PageSpec(
    "views/explorer_view.py", "Explorer", "explorer", ":material/compare_arrows:", default=True
)
STREAMS = PageSpec("views/streams_view.py", "Kafka Streams", "streams", ":material/stream:")
DEPLOY = PageSpec("views/deploy_view.py", "Deploy", "deploy", ":material/rocket_launch:")
HISTORY = PageSpec("views/history_view.py", "History", "history", ":material/timeline:")
FLEET = PageSpec("views/fleet_view.py", "Fleet", "fleet", ":material/dataset:")
PAGES = (EXPLORER, STREAMS, DEPLOY, HISTORY, FLEET)
#: The pages whose content is the loaded source: the router sends a source to the one it fits.
SOURCE_PAGES = (EXPLORER, STREAMS)
