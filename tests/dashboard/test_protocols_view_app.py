"""The Explorer's *More views* -> *Protocols* (issue 37, item 2), as a user opens it: the change
under eager, cooperative and KIP-848 rebalancing side by side, one row per member, one legend
entry per state, a caption that says what the chart draws, timings as inputs."""

from __future__ import annotations

from typing import Any

from assignors import Timings
from dashboard.model import protocol_timeline
from dashboard.panels import protocols_panel
from tests.dashboard import plotly_spec
from tests.dashboard.app_session import assert_no_exception, start_app

SAMPLE = "sticky-member-joins"  # C0 and C1 own ten partitions, C2 joins


def _open_protocols(**timings_ms: int) -> Any:
    app = start_app(sample=SAMPLE)
    app.session_state["view.more"] = "Protocols"
    for field, value in timings_ms.items():
        app.session_state[f"view.timing.{field}"] = value
    app.run()
    assert_no_exception(app)
    return app


def _caption(app: Any) -> str:
    (caption,) = [c.value for c in app.caption if c.value.startswith("One row per member")]
    return str(caption)


def test_the_protocols_view_draws_three_panels_one_legend_and_says_what_it_draws() -> None:
    """Three panels (eager, cooperative, KIP-848) on one member axis; the legend names each
    state drawn once, and the caption names exactly those states, in the legend's order; the
    eager panel frames a stop-the-world and its title says how long it lasts."""
    app = _open_protocols()
    spec = plotly_spec.spec(app, "view.timeline")
    layout, traces = spec["layout"], spec["data"]
    assert {"xaxis", "xaxis2", "xaxis3"} <= set(layout)
    titles = [a["text"] for a in layout["annotations"]]
    labels = [protocols_panel.PROTOCOL_LABELS[p] for p in ("eager", "cooperative", "consumer")]
    assert all(label in title for label, title in zip(labels, titles[:3], strict=True))
    legend = [t["name"] for t in traces if t.get("showlegend", True)]
    assert len(legend) == len(set(legend)) and set(legend) <= set(protocol_timeline.STATES)
    caption = _caption(app).lower()
    assert [s for s in protocol_timeline.STATES if f"{s} (" in caption] == legend
    assert "stop-the-world" in titles[0] and "no stop-the-world" in titles[1]
    assert layout["shapes"] and all(shape["xref"] == "x" for shape in layout["shapes"])
    members = plotly_spec.values(layout["yaxis"]["ticktext"])
    assert [label.rsplit(" ", 1)[-1] for label in members] == ["C0", "C1", "C2"]


def test_eager_shows_the_owners_revoking_and_the_table_says_who_stops() -> None:
    """C0 and C1 owned partitions: in the eager panel both have a revoking bar; the table under
    the chart counts the members that stop per protocol, and eager stops more of them than
    cooperative does."""
    app = _open_protocols()
    traces = plotly_spec.spec(app, "view.timeline")["data"]
    eager_revoking = next(t for t in traces if t["name"] == "revoking" and t.get("xaxis") == "x")
    assert sorted(set(plotly_spec.values(eager_revoking["y"]))) == [0, 1]
    table = plotly_spec.markdown_frame(app, "members that stop")
    assert table is not None
    stops = dict(zip(table["protocol"], table["members that stop"], strict=True))
    eager = int(stops[protocols_panel.PROTOCOL_LABELS["eager"]].split(" of ")[0])
    cooperative = int(stops[protocols_panel.PROTOCOL_LABELS["cooperative"]].split(" of ")[0])
    assert eager == 3 and cooperative < eager


def test_a_slower_rejoin_lengthens_the_eager_stop_by_as_much() -> None:
    """The timings are inputs: with the slowest member 5 s late to rejoin, eager's whole group
    stops for the revocation plus those 5 s, and the title and the expander's label say so."""
    app = _open_protocols(rejoin_delay_s=5000)
    title = plotly_spec.spec(app, "view.timeline")["layout"]["annotations"][0]["text"]
    expected = Timings().revoke_s + 5.0
    assert f"stop-the-world {expected:g} s" in title
    assert any("slowest rejoin 5 s" in e.label for e in app.expander)
