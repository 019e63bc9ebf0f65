"""Generated UI runs (issue 36): a Hypothesis state machine clicks through the real dashboard
under Streamlit's AppTest, as users do, in any order.

Rules (what a user does): open a page from the menu; pick any sample (Streams ones included);
compare one to every strategy the picker offers; pick a Kafka version; add a member with an id
of 1 to 255 characters (unicode, spaces, HTML-like and Markdown-like text); remove members;
restart static members; grow a topic; start, step through and close a sample's walkthrough;
undo or reset the edits; change a deploy plan (batch size, membership, scale) and simulate it;
open the link of the page in a fresh session and carry on there.

Invariants, after every rule:

1. no exception (``app.exception`` is empty: no traceback on the page);
2. no error box but the deliberate ones (:data:`DELIBERATE`: a refusal with its reason);
3. the page's link (its address bar: ``app.query_params`` on the page it shows) opened in a fresh
   session shows the same page with the same source, strategies, edits and Kafka version.

How many sequences and steps: :func:`ui_settings`, from ``AE_UI_SEQUENCES`` and ``AE_UI_STEPS``
(CI: :data:`CI_SEQUENCES` sequences of up to :data:`CI_STEPS` steps); ``scripts/ui_sequences.py``
runs many more against a time bound. What was reached is counted in :data:`REACHED` (and as
Hypothesis events); the test fails when a page, a sample, a strategy, a Kafka version or a rule
was never generated.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from streamlit.testing.v1 import AppTest

import sample_data
from assignors import KAFKA_VERSIONS, NEWEST_KAFKA_VERSION, registry
from dashboard.panels import shape_panel, strategy_panel, teach_panel
from dashboard.views import pages
from tests.dashboard.app_session import add_form, open_page, start_app

#: Sequences and steps per sequence in CI: 300 sequences of up to 6 rules each (short ones, to
#: stay within 5 minutes on the shared 2-core machine: docs/development.md has the figures).
CI_SEQUENCES = 300
CI_STEPS = 6

SAMPLES = [info.key for info in sample_data.list_samples()]
STRATEGIES = list(registry.partition_strategies())
#: Each page by the title it shows ("Assignment Explorer" for the default page, then
#: "Assignment Explorer · <its menu title>"): every page the menu has, so a new one is generated.
BY_TITLE = {
    ("Assignment Explorer" if spec.default else f"Assignment Explorer · {spec.title}"): spec
    for spec in pages.PAGES
}

#: The error boxes a user may be shown on purpose, by their opening words; any other fails.
DELIBERATE = (
    # *Add member* with the id of a member already in the group (shape_panel._add_member).
    'a member "',
    # An edit the group cannot take, undone with the core's reason (layout.resolve_plan).
    "Edit “",
    # A deploy plan the core refuses (deploy_view._form), e.g. a scale step below one member.
    "This plan cannot run: ",
)

#: Member ids a user may type: printable text of 1 to 255 characters, and markup-like ids.
MEMBER_IDS = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=255),
    st.sampled_from(
        [
            "<b>x</b>",
            "<img src=x>",
            "**x**",
            "[a](http://x)",
            "consumer 4",
            "  padded  ",
            "consumer-1",
            "é" * 255,
            "x",
        ]
    ),
)

#: Everything reached so far in this process: pages shown, samples loaded, strategies
#: compared, Kafka versions picked, rules run; sequences and actions counted.
REACHED: dict[str, Counter[str]] = {
    name: Counter() for name in ("pages", "samples", "strategies", "kafka", "actions", "totals")
}


def _keys(app: AppTest) -> set[str]:
    """The keys of every widget the last run drew (page and sidebar)."""
    found: set[str] = set()
    for part in (app.main, app.sidebar):
        for node in part:
            key = getattr(node, "key", None)
            if isinstance(key, str):
                found.add(key)
    return found


def _widget(app: AppTest, kind: str, prefix: str) -> Any:
    """The first widget of ``kind`` (``"selectbox"``, ...) whose key starts with ``prefix``
    (``None`` when the last run drew none)."""
    return next((w for w in getattr(app, kind) if w.key and w.key.startswith(prefix)), None)


def _bounds(box: Any) -> tuple[int, int]:
    """The least and the most a number input takes (the deploy form bounds every one)."""
    assert box.min is not None and box.max is not None, box.key
    return int(box.min), int(box.max)


def shown_page(app: AppTest) -> pages.PageSpec:
    """The page the last run showed, by its title."""
    return BY_TITLE[str(app.title[0].value)]


def restored(app: AppTest) -> dict[str, Any]:
    """What a link restores of the page: its source, strategies, edits and Kafka version.

    Strategies not yet picked for the source are the ones the Explorer opens it with; no Kafka
    version picked is the newest (the link names one only when it is not).
    """
    state = app.session_state
    source = state["ae.source"]
    picked = state.get("ae.strategies")
    if picked is None and source.streams is None:
        picked = strategy_panel.default_strategies(source.scenario, source.walkthrough)
    version = state.get("ae.kafka_version")
    return {
        "source": source.key,
        "strategies": picked,
        "edits": list(state["ae.edits"]) if "ae.edits" in state else [],
        "kafka": version or NEWEST_KAFKA_VERSION,
    }


def unexpected_errors(app: AppTest) -> list[str]:
    """The error boxes of the last run that are not deliberate messages."""
    return [str(box.value) for box in app.error if not str(box.value).startswith(DELIBERATE)]


def stay_on_shown_page(app: AppTest) -> None:
    """Ask the next run for the page the last run showed, as a browser does. AppTest keeps
    asking for the page last named to its ``switch_page``, also after the app's router moved
    elsewhere (``st.switch_page``: a Streams sample opened on the Explorer, a consumer group
    picked on the Kafka Streams page); the next click would then run the old page."""
    app.switch_page(shown_page(app).script)


def open_link(app: AppTest) -> AppTest:
    """The page's link (its address bar) opened in a fresh session, on the page it names."""
    spec = shown_page(app)
    fresh = start_app(**{name: str(value) for name, value in app.query_params.items()})
    if shown_page(fresh) != spec:
        open_page(fresh, spec)
    stay_on_shown_page(fresh)
    return fresh


def link_mismatch(app: AppTest, fresh: AppTest) -> str | None:
    """Why the page's link, opened as ``fresh``, does not reproduce the page ``app`` shows
    (``None`` when it does)."""
    spec = shown_page(app)
    if shown_page(fresh) != spec:
        return f"the link opens {shown_page(fresh).title}, not {spec.title}"
    if fresh.error:  # even a deliberate one: the page it came from had been through it
        return f"the link shows errors: {[box.value for box in fresh.error]}"
    if spec.uses_source and restored(fresh) != restored(app):
        return f"the link restores {restored(fresh)}, the page showed {restored(app)}"
    return None


class UserSession(RuleBasedStateMachine):
    """One user's session in the dashboard: the rules are what a user does."""

    def __init__(self) -> None:
        super().__init__()
        self.app: AppTest | None = None
        #: The page's link opened in a fresh session (by the link invariant, after every rule).
        self.linked: AppTest | None = None
        REACHED["totals"]["sequences"] += 1

    # -- helpers --------------------------------------------------------------------------

    def _did(self, action: str) -> None:
        REACHED["actions"][action] += 1
        REACHED["totals"]["actions"] += 1
        event(f"action: {action}")

    def _page(self) -> pages.PageSpec:
        assert self.app is not None
        return shown_page(self.app)

    def _keys(self) -> set[str]:
        return _keys(self.app) if self.app is not None else set()

    def _on_explorer(self) -> bool:
        return self.app is not None and self._page() == pages.EXPLORER

    def _what_if_open(self) -> bool:
        """The Explorer shows the what-if panel (any of its tabs)."""
        return self._on_explorer() and any(key.startswith("shape.") for key in self._keys())

    def _tab(self, tab: str, marker: str) -> AppTest:
        """Open the what-if panel's ``tab`` unless its widget ``marker`` is already drawn."""
        assert self.app is not None
        if not any(key.startswith(marker) for key in self._keys()):
            self.app.session_state[shape_panel.TABS] = tab
            self.app.run()
        return self.app

    # -- rules ----------------------------------------------------------------------------

    @initialize(
        sample=st.none() | st.sampled_from(SAMPLES),
        spec=st.just(pages.EXPLORER) | st.sampled_from(pages.PAGES),
    )
    def open_the_dashboard(self, sample: str | None, spec: pages.PageSpec) -> None:
        """Open a page at its address (``/`` about half the time), with a sample's link or
        without (the default sample)."""
        self.app = start_app() if sample is None else start_app(sample=sample)
        if shown_page(self.app) != spec:
            open_page(self.app, spec)
        self._did("open the dashboard")

    @rule(spec=st.sampled_from(pages.PAGES))
    def open_a_page(self, spec: pages.PageSpec) -> None:
        assert self.app is not None
        self.app.switch_page(spec.script).run()
        self._did("open a page")

    @precondition(lambda self: "source.sample" in self._keys())
    @rule(sample=st.sampled_from(SAMPLES))
    def pick_sample(self, sample: str) -> None:
        assert self.app is not None
        self.app.selectbox(key="source.sample").set_value(sample).run()
        self._did("pick a sample")

    @precondition(lambda self: "strategies.pick" in self._keys())
    @rule(data=st.data())
    def pick_strategies(self, data: st.DataObject) -> None:
        """Compare one to every strategy offered, in any order."""
        assert self.app is not None
        picker = self.app.multiselect(key="strategies.pick")
        order = data.draw(st.permutations(picker.options), label="order")
        count = data.draw(st.integers(1, len(order)), label="how many")
        picker.set_value(list(order[:count])).run()
        self._did("pick strategies")
        # A strategy that answers by Kafka release brings the version picker: pick one too.
        if "strategies.kafka_version" in self._keys():
            self.pick_kafka_version(data.draw(st.sampled_from(KAFKA_VERSIONS), label="kafka"))

    @precondition(
        lambda self: bool({"strategies.kafka_version", "streams.kafka_version"} & self._keys())
    )
    @rule(version=st.sampled_from(KAFKA_VERSIONS))
    def pick_kafka_version(self, version: str) -> None:
        assert self.app is not None
        key = next(
            k for k in ("strategies.kafka_version", "streams.kafka_version") if k in self._keys()
        )
        self.app.selectbox(key=key).set_value(version).run()
        self._did("pick a Kafka version")

    @precondition(lambda self: self._what_if_open())
    @rule(member_id=MEMBER_IDS)
    def add_member(self, member_id: str) -> None:
        """Type an id into *Add member* and press it: the member joins, or the page says why
        not (an id already in the group)."""
        app = self._tab("Members", "shape.add_id@")
        present = set(app.multiselect(key="shape.remove_ids").options)
        edits = len(app.session_state["ae.edits"])
        add_form(app, "add_id").input(member_id)
        add_form(app, "add_submit").click().run()
        self._did("add a member")
        wanted = member_id.strip()
        if wanted and wanted in present:
            assert any("already in the group" in str(box.value) for box in app.error), app.error
            return
        added = [edit.get("member_id") for edit in app.session_state["ae.edits"][edits:]]
        if any(str(box.value).startswith("Edit “") for box in app.error):
            return  # the group could not take it: undone, and the page says why
        if wanted:
            assert added == [wanted], added
        else:  # a blank id gets the next free consumer-N
            assert len(added) == 1 and str(added[0]).startswith("consumer-"), added

    @precondition(lambda self: self._what_if_open())
    @rule(data=st.data())
    def remove_members(self, data: st.DataObject) -> None:
        app = self._tab("Members", "shape.remove_ids")
        picker = _widget(app, "multiselect", "shape.remove_ids")
        if picker is None or not picker.options:
            return
        leaving = data.draw(st.lists(st.sampled_from(picker.options), min_size=1, unique=True))
        picker.set_value(leaving).run()
        app.button(key="shape.remove").click().run()
        self._did("remove members")

    @precondition(lambda self: self._what_if_open())
    @rule(data=st.data())
    def restart_members(self, data: st.DataObject) -> None:
        """Pick members and press *Restart static member*: only static ones can restart."""
        app = self._tab("Members", "shape.remove_ids")
        picker = _widget(app, "multiselect", "shape.remove_ids")
        if picker is None or not picker.options:
            return
        static = {
            m.member_id
            for m in app.session_state["ae.source"].scenario.members
            if m.group_instance_id
        }
        picked = data.draw(st.lists(st.sampled_from(picker.options), min_size=1, unique=True))
        picker.set_value(picked).run()
        button = app.button(key="shape.restart")
        assert button.disabled == (not static & set(picked)), (picked, static)
        if not button.disabled:
            button.click().run()
        self._did("restart members")

    @precondition(lambda self: self._what_if_open())
    @rule(data=st.data(), extra=st.integers(1, 64))
    def grow_topic(self, data: st.DataObject, extra: int) -> None:
        app = self._tab("Topics", "shape.grow_topic")
        picker = _widget(app, "selectbox", "shape.grow_topic")
        if picker is None:
            return
        picker.set_value(data.draw(st.sampled_from(picker.options))).run()
        count = _widget(app, "number_input", "shape.grow_count.")
        count.set_value(int(count.value) + extra).run()
        app.button(key="shape.grow").click().run()
        self._did("grow a topic")

    @precondition(lambda self: self._what_if_open())
    @rule(reset=st.booleans())
    def undo_or_reset(self, reset: bool) -> None:
        app = self._tab("Edits", "shape.undo")
        button = app.button(key="shape.reset" if reset else "shape.undo")
        if not button.disabled:
            button.click().run()
        self._did("undo or reset")

    @precondition(lambda self: self._on_explorer() and "teach.start" in self._keys())
    @rule()
    def start_walkthrough(self) -> None:
        assert self.app is not None
        self.app.button(key="teach.start").click().run()
        self._did("start a walkthrough")

    @precondition(lambda self: self._on_explorer() and teach_panel.PANEL in self._keys())
    @rule(button=st.sampled_from(["teach.next", "teach.back", "teach.apply"]))
    def step_walkthrough(self, button: str) -> None:
        """Press *Next*, *Previous* or *Show step N again* in the walkthrough's panel (opened
        first when closed: a sample with a walkthrough always shows its panel's title; *Show
        step N again* is there only when the page no longer shows the step)."""
        assert self.app is not None
        if button not in self._keys():
            self.app.session_state[teach_panel.PANEL] = True
            self.app.run()
        if button not in self._keys():
            return
        pressed = self.app.button(key=button)
        if not pressed.disabled:
            pressed.click().run()
        self._did("step a walkthrough")

    @precondition(lambda self: self._on_explorer() and "teach.next" in self._keys())
    @rule()
    def leave_walkthrough(self) -> None:
        """Close the walkthrough's panel."""
        assert self.app is not None
        self.app.session_state[teach_panel.PANEL] = False
        self.app.run()
        self._did("leave a walkthrough")

    @precondition(
        lambda self: (
            self.app is not None
            and self._page() == pages.DEPLOY
            and _widget(self.app, "number_input", "deploy.") is not None
        )
    )
    @rule(data=st.data())
    def change_deploy_plan(self, data: st.DataObject) -> None:
        """Batch size, membership and scale step changed, then *Simulate the deploy*."""
        assert self.app is not None
        app = self.app
        batch = next(box for box in app.number_input if str(box.key).endswith(".batch"))
        scale = next(box for box in app.number_input if str(box.key).endswith(".scale"))
        membership = next(box for box in app.selectbox if str(box.key).endswith(".membership"))
        low, high = _bounds(batch)
        batch.set_value(data.draw(st.integers(low, high), label="batch"))
        low, high = _bounds(scale)
        # Mostly a step of a few members, now and then the largest the form takes.
        steps = st.integers(low, min(high, 40)) | st.just(high)
        scale.set_value(data.draw(steps, label="scale"))
        membership.set_value(data.draw(st.sampled_from(membership.options), label="membership"))
        next(button for button in app.button if button.label == "Simulate the deploy").click()
        app.run()
        self._did("change the deploy plan")

    @rule()
    def continue_from_the_link(self) -> None:
        """Open the page's link in a fresh session and carry on there (the session the link
        invariant opened after the last rule)."""
        assert self.linked is not None
        self.app = self.linked
        self._did("open the link")

    # -- invariants -----------------------------------------------------------------------

    @invariant()
    def nothing_breaks(self) -> None:
        if self.app is None:
            return
        app = self.app
        assert not app.exception, [box.message for box in app.exception]
        stay_on_shown_page(app)
        assert not unexpected_errors(app), unexpected_errors(app)
        spec = self._page()
        REACHED["pages"][spec.title] += 1
        event(f"page: {spec.title}")
        source = app.session_state["ae.source"]
        if source.sample is not None:
            REACHED["samples"][source.sample] += 1
        if spec == pages.EXPLORER and "ae.strategies" in app.session_state:
            for name in app.session_state["ae.strategies"]:
                REACHED["strategies"][name] += 1
        version = app.session_state.get("ae.kafka_version")
        if version:
            REACHED["kafka"][version] += 1

    @invariant()
    def the_link_reproduces_the_page(self) -> None:
        if self.app is None:
            return
        self.linked = open_link(self.app)
        problem = link_mismatch(self.app, self.linked)
        assert problem is None, problem


def ui_settings(sequences: int | None = None, steps: int | None = None) -> settings:
    """``sequences`` sequences (default ``AE_UI_SEQUENCES``, else :data:`CI_SEQUENCES`) of up to
    ``steps`` rules (default ``AE_UI_STEPS``, else :data:`CI_STEPS`)."""
    return settings(
        max_examples=sequences or int(os.environ.get("AE_UI_SEQUENCES", CI_SEQUENCES)),
        stateful_step_count=steps or int(os.environ.get("AE_UI_STEPS", CI_STEPS)),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


RULES = [
    "open the dashboard",
    "open a page",
    "pick a sample",
    "pick strategies",
    "pick a Kafka version",
    "add a member",
    "remove members",
    "restart members",
    "grow a topic",
    "undo or reset",
    "start a walkthrough",
    "step a walkthrough",
    "leave a walkthrough",
    "change the deploy plan",
    "open the link",
]


def missing(reached: dict[str, Counter[str]]) -> dict[str, list[str]]:
    """What a run never generated: pages, samples, strategies, Kafka versions, rules."""
    wanted = {
        "pages": [spec.title for spec in pages.PAGES],
        "samples": SAMPLES,
        "strategies": STRATEGIES,
        "kafka": list(KAFKA_VERSIONS),
        "actions": RULES,
    }
    gaps = {name: [k for k in keys if not reached[name][k]] for name, keys in wanted.items()}
    return {name: keys for name, keys in gaps.items() if keys}


def test_no_generated_path_breaks_the_dashboard() -> None:
    for counter in REACHED.values():
        counter.clear()
    started = time.monotonic()
    run_state_machine_as_test(UserSession, settings=ui_settings())
    elapsed = time.monotonic() - started
    totals = REACHED["totals"]
    print(
        f"{totals['sequences']} sequences, {totals['actions']} actions in {elapsed:.0f} s; "
        f"pages {dict(REACHED['pages'])}; samples {len(REACHED['samples'])}; "
        f"rules {dict(REACHED['actions'])}"
    )
    assert totals["sequences"] >= ui_settings().max_examples
    assert not missing(REACHED), missing(REACHED)
