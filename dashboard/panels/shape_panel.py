"""Shape the what-if: pick topics and members, add/remove/restart members, edit subscriptions,
partition counts, lag and produce rates; undo and reset.

Each control turns the user's intent into one edit (:mod:`dashboard.model.whatif`) pushed with
:func:`dashboard.session.state.push_edit`; nothing here touches a scenario directly.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st
from streamlit.errors import StreamlitAPIException

from assignors import Scenario, partition_lags
from dashboard.model import sources, whatif
from dashboard.model.plain import INFO_ICON, escape_markdown
from dashboard.panels import member_picker
from dashboard.session import state

#: Above this many partitions in one topic the lag table shows the first ones only.
MAX_EDITABLE_ROWS = 2_000


def _push(edit: dict[str, Any]) -> None:
    state.push_edit(edit)


def _rerun() -> None:
    """After an edit: rerun the page's what-if fragment (``dashboard.app``), which holds
    everything an edit changes; the whole page when this run is not that fragment's own (a
    click Streamlit folded into a full run)."""
    try:
        st.rerun(scope="fragment")
    except StreamlitAPIException:
        st.rerun()


def scenario_values(before: Scenario, after: Scenario) -> dict[str, Any]:
    """What each what-if widget shows for a scenario it has not been used on yet."""
    values: dict[str, Any] = {
        "shape.include_members": [member.member_id for member in before.members],
        "shape.topics": [topic.name for topic in before.topics],
        "shape.remove_ids": [],
    }
    if after.members:
        values["shape.sub_member"] = after.members[0].member_id
    if after.topics:
        values["shape.grow_topic"] = after.topics[0].name
    if before.topics:
        values["shape.lag_topic"] = before.topics[0].name
    return values


def add_form_key(field: str, scope: str) -> str:
    """The key of the *Add member* form's ``field`` drawn for the scenario ``scope``.

    The keys carry the scope: a form the browser still shows for another scenario (clicked
    while the page was changing to a new sample, upload or edit) submits keys that no widget of
    this run has, so Streamlit drops the stale submission instead of applying another
    scenario's member id and topics here; and each scenario's form starts from its own
    defaults (the first member's topics), whatever the browser held before.
    """
    return f"shape.{field}@{sources.content_key(scope)[:12]}"


#: The panel's key: its open/closed state lives in the session under it.
PANEL = "panel.shape"
TITLE = "Shape the what-if: add, remove or restart members, topics, lag"


def panel(source: Scenario, before: Scenario, after: Scenario) -> None:
    """The *Shape the what-if* panel. Its controls are built and sent only while it is open:
    closed, as on a first visit, the browser draws none of its forms, pickers and tables
    (opening it reruns the page, which finds everything cached)."""
    shape = st.expander(TITLE, key=PANEL, on_change="rerun")
    if not shape.open:
        state.unscope_widgets()
        return
    with shape:
        render(source, before, after)


def render(source: Scenario, before: Scenario, after: Scenario) -> None:
    """The what-if controls for the scenario as the source gave it and as edited so far.

    Every widget belongs to the scenario it is drawn for
    (:func:`dashboard.session.state.scope_widgets`): after a load or an edit none shows or applies
    a choice made for another scenario.
    """
    scope = state.scope_widgets(scenario_values(before, after))
    st.caption(escape_markdown(_edits_line(len(state.edits()))))
    members_tab, topics_tab, lag_tab, edits_tab = st.tabs(TAB_LABELS, key=TABS, on_change="rerun")
    # Only the open tab is built and sent: the others' pickers, forms and the lag table (2,000
    # rows) cost the browser a re-render on every click elsewhere; picking a tab reruns the page.
    if members_tab.open:
        with members_tab:
            _members(source, before, after, scope)
    if topics_tab.open:
        with topics_tab:
            _topics(source, before, after)
    if lag_tab.open:
        with lag_tab:
            _lag(before)
    if edits_tab.open:
        with edits_tab:
            _edit_list()


#: The panel's tabs' key: the tab picked stays picked across reruns and edits.
TABS = "panel.shape.tab"
#: The *Edit a subscription* expander's key (on the Members tab): open or closed.
SUBSCRIPTION = "panel.shape.subscription"


#: The tabs' names. Fixed: a tab is remembered by its name, and the server never rewrites the
#: remembered one (an Edits tab that counted the edits had to be renamed on every edit, and a tab
#: clicked while that rerun was under way was switched back; the count is on the line above).
TAB_LABELS = ("Members", "Topics", "Lag & rates", "Edits")


def _edits_line(count: int) -> str:
    """The line above the tabs: how many edits the what-if applies to the source."""
    if not count:
        return "Edits (0): the scenario is as the source gave it."
    return f"Edits ({count}) applied to the source; undo or reset them on the Edits tab."


def _members(source: Scenario, before: Scenario, after: Scenario, scope: str) -> None:
    all_members = [member.member_id for member in source.members]
    included = [member.member_id for member in before.members]
    chosen = member_picker.pick_subset(
        "Members to include", all_members, included, key="shape.include_members"
    )
    if chosen != included and st.button("Apply member selection", key="shape.apply_members"):
        _push({"op": "include_members", "members": chosen})
        _rerun()

    topics = [topic.name for topic in after.topics]
    add, remove = st.columns(2)
    with add, st.form("shape.add_member", border=True):
        _add_member_form(after, scope)
    with remove, st.container(border=True):
        st.markdown("**Remove or restart members**")
        present = [member.member_id for member in after.members]
        leaving = member_picker.pick_subset("Members", present, [], key="shape.remove_ids")
        restartable = [
            m.member_id
            for m in after.members
            if m.member_id in leaving and m.group_instance_id is not None
        ]
        left, right = st.columns(2)
        if left.button("Remove", key="shape.remove", disabled=not leaving):
            for member in leaving:
                _push({"op": "remove_member", "member_id": member})
            _rerun()
        if right.button(
            "Restart static member",
            key="shape.restart",
            disabled=not restartable,
            help="A static member (group.instance.id) that restarts within the session timeout "
            "keeps its partitions; pick static members above.",
        ):
            for member in restartable:
                _push({"op": "remove_member", "member_id": member, "static_restart": True})
            _rerun()
        st.caption(f"{len(after.members)} members after the change ({len(before.members)} before).")
    # Built only while open, like the panel: closed, its pickers were re-sent and re-drawn on
    # every click of *Add member*.
    subscription = st.expander("Edit a subscription", key=SUBSCRIPTION, on_change="rerun")
    if not subscription.open:
        return
    with subscription:
        present = [member.member_id for member in after.members]
        who = member_picker.pick_one("Member", present, key="shape.sub_member") if present else None
        if who is not None:
            current_topics = next(m.topics for m in after.members if m.member_id == who)
            new_topics = member_picker.pick_subset(
                "Subscribes to",
                topics,
                [t for t in current_topics if t in topics],
                key=f"shape.sub_topics.{who}.{state.scenario_key()}",
            )
            if st.button("Change subscription", key="shape.sub_apply"):
                _push({"op": "subscribe", "member_id": who, "topics": new_topics})
                _rerun()


def _add_member_form(after: Scenario, scope: str) -> None:
    """The *Add member* form's fields, keyed by the scenario they were drawn for."""
    topics = [topic.name for topic in after.topics]
    first = after.members[0].topics if after.members else tuple(topics)
    st.markdown("**Add a member**")
    # The placeholder is the id an empty field adds (the same function decides both).
    st.text_input(
        "Member id",
        placeholder=whatif.next_member_id(after),
        key=add_form_key("add_id", scope),
    )
    st.text_input("Rack (client.rack)", key=add_form_key("add_rack", scope))
    if len(topics) <= member_picker.LIMIT:
        st.multiselect(
            "Subscription",
            topics,
            default=[t for t in first if t in topics],
            key=add_form_key("add_topics", scope),
        )
    else:
        st.caption(f"Subscribes to the first member's {len(first):,} topics.")
    st.number_input("Priority (failover)", step=1, key=add_form_key("add_priority", scope))
    st.number_input(
        "Consume rate (records/s, 0 = default)",
        min_value=0.0,
        step=100.0,
        key=add_form_key("add_rate", scope),
    )
    # A callback, not `if button: ...; st.rerun()`: it runs before the rerun the click
    # starts, so the page is computed once with the new member instead of twice.
    st.form_submit_button(
        "Add member",
        type="primary",
        key=add_form_key("add_submit", scope),
        on_click=_add_member,
        args=(after, scope),
    )


def _add_member(after: Scenario, scope: str) -> None:
    """The "Add member" form's submit: one ``add_member`` edit from the form's fields.

    A form drawn for another scenario than the current one (a second click before the page
    showed the first one's member, or a click while a new sample loaded) adds nothing: its
    fields were for that scenario. The page says so and shows the current form.
    """
    if scope != state.scenario_key():
        state.report_notice(
            "The group changed before your click on Add member reached it, so nothing was "
            "added: the form now shows the current group; press Add member again."
        )
        return
    values = st.session_state

    def field(name: str, default: Any) -> Any:
        return values.get(add_form_key(name, scope), default)

    new_id = str(field("add_id", "")).strip() or whatif.next_member_id(after)
    if new_id in {member.member_id for member in after.members}:
        state.report_error(f'a member "{new_id}" is already in the group; pick another id')
        return
    edit: dict[str, Any] = {"op": "add_member", "member_id": new_id}
    if add_form_key("add_topics", scope) in values:
        edit["topics"] = list(field("add_topics", []))
    # else: past the picker's limit the form lists no topics; the member subscribes like the
    # first one (the core's default for an add without topics).
    rack = str(field("add_rack", "")).strip()
    if rack:
        edit["rack"] = rack
    priority = field("add_priority", 0) or 0
    if priority:
        edit["priority"] = int(priority)
    rate = field("add_rate", 0.0) or 0.0
    if rate > 0:
        edit["consume_rate"] = float(rate)
    _push(edit)


def _topics(source: Scenario, before: Scenario, after: Scenario) -> None:
    all_topics = [topic.name for topic in source.topics]
    included = [topic.name for topic in before.topics]
    chosen = member_picker.pick_subset(
        "Topics to include", all_topics, included, key="shape.topics"
    )
    if chosen != included and st.button("Apply topic selection", key="shape.apply_topics"):
        _push({"op": "include_topics", "topics": chosen})
        _rerun()
    if not after.topics:
        return
    names = [topic.name for topic in after.topics]
    left, right = st.columns(2)
    with left:
        topic_name = member_picker.pick_one("Grow a topic", names, key="shape.grow_topic")
    if topic_name is None:
        return
    count = after.partition_counts()[topic_name]
    new_count = right.number_input(
        "Partitions (Kafka only adds)",
        min_value=count,
        value=count,
        step=1,
        key=f"shape.grow_count.{topic_name}.{state.scenario_key()}",
    )
    if st.button("Set partition count", key="shape.grow", disabled=new_count == count):
        _push({"op": "set_partitions", "topic": topic_name, "partitions": int(new_count)})
        _rerun()


@st.fragment
def _lag(before: Scenario) -> None:
    """Lag and produce rates per partition: editing the table reruns only this tab; applying
    the edits reruns the page."""
    if not before.topics:
        st.info("No topic to edit.", icon=INFO_ICON)
        return
    left, right = st.columns([3, 1])
    with left:
        topic_name = member_picker.pick_one(
            "Topic", [topic.name for topic in before.topics], key="shape.lag_topic"
        )
    if right.button(
        "Skew the lag",
        key="shape.skew",
        help=f"A quarter of each topic's partitions, spread over the topic, get hot Zipf-like: "
        f"the hottest {whatif.SKEW_FACTOR}x its lag (at least {whatif.SKEW_FLOOR:,}), the next "
        "half that, and so on. See which strategy spreads them.",
    ):
        _push({"op": "skew_lag"})
        st.rerun()
    if topic_name is None:
        return
    topic = before.topic_by_name()[topic_name]
    lags = partition_lags(topic, before.auto_offset_reset)
    rates = topic.produce_rates or (0.0,) * topic.partitions
    shown = min(topic.partitions, MAX_EDITABLE_ROWS)
    table = pd.DataFrame(
        {
            "partition": range(shown),
            "lag": lags[:shown],
            "produce rate (records/s)": rates[:shown],
        }
    )
    if shown < topic.partitions:
        st.caption(f"The first {shown:,} of {topic.partitions:,} partitions.")
    edited = st.data_editor(
        table,
        # Keyed by the shaped "before" it edits (its lags do not change when a member is added
        # or removed): a membership edit keeps the table, unapplied edits and all, instead of
        # sending 2,000 rows and building a new grid. Not a "shape." key, which every edit resets.
        key=f"lag_table.{topic_name}.{state.scenario_key(whatif.is_shaping)}",
        disabled=["partition"],
        hide_index=True,
        width="stretch",
        height=min(400, 38 + 35 * shown),
    )
    changed_lags = _changed(edited["lag"].to_numpy(), lags[:shown], int)
    changed_rates = _changed(edited["produce rate (records/s)"].to_numpy(), rates[:shown], float)
    if (changed_lags or changed_rates) and st.button("Apply table edits", key="shape.lag_apply"):
        if changed_lags:
            _push({"op": "set_lags", "topic": topic_name, "lags": changed_lags})
        if changed_rates:
            _push({"op": "set_produce_rates", "topic": topic_name, "rates": changed_rates})
        st.rerun()


def _changed(
    edited: np.ndarray, original: Sequence[float], kind: Callable[[Any], float]
) -> dict[str, float]:
    """Partition (as a string) -> new value, where the table differs from ``original``."""
    rows = np.flatnonzero(edited.astype(float) != np.asarray(original, dtype=float))
    return {str(row): kind(edited[row]) for row in rows}


def _edit_list() -> None:
    current = state.edits()
    if not current:
        st.caption("No edits yet: the scenario is as the source gave it.")
    for number, edit in enumerate(current, start=1):
        st.markdown(f"{number:d}. {escape_markdown(whatif.describe(edit))}")
    left, right = st.columns(2)
    if left.button("Undo last edit", key="shape.undo", disabled=not current):
        state.undo()
        _rerun()
    if right.button("Reset to the source", key="shape.reset", disabled=not current):
        state.reset()
        _rerun()
