"""Generated UI runs (issue 36): a Hypothesis state machine clicks through the real dashboard
under Streamlit's AppTest, as users do, in any order.

Rules (what a user does): open a page from the menu; pick any sample (Streams ones included);
compare one to every strategy the picker offers; pick a Kafka version; add a member with an id
of 1 to 255 characters (unicode, spaces, HTML-like and Markdown-like text); remove members;
restart static members; grow a topic; start, step through and close a sample's walkthrough;
undo or reset the edits; change a deploy plan (batch size, membership, scale) and simulate it;
open the link of the page in a fresh session and carry on there. The other sources
(:mod:`tests.dashboard.ui_inputs` generates what users bring): upload a scenario file, valid or
malformed; paste or upload a ``kafka-consumer-groups.sh --describe`` listing, well-formed or
not; connect to a bootstrap address nothing answers at. The History and Fleet pages, with the
pipeline's tables or without (each sequence opens on one of :data:`PIPELINE_OUTPUTS`): pick their
groups, filters and order, open a group in the Explorer, open a Fleet row's link.

Invariants, after every rule:

1. no exception (``app.exception`` is empty: no traceback on the page);
2. no error box but the deliberate ones (:data:`DELIBERATE`: a refusal with its reason);
3. the page's link (its address bar: ``app.query_params`` on the page it shows) opened in a fresh
   session shows the same page with the same scenario, strategies, edits and Kafka version (and
   History's and Fleet's own picks); a scenario that cannot travel in a link (an uploaded Streams
   application, one over the size limit) leaves the address empty and the page says so.

A rule checks what its own action promises: an upload or a listing the core takes becomes the
scenario on the page; one it refuses leaves the scenario and the edits as they were, shows the
core's reason in an error box (and clears the rejected file from the widget; the pasted text
stays); an address nothing answers at is refused with a message within the form's time-out.

How many sequences and steps: :func:`ui_settings`, from ``AE_UI_SEQUENCES`` and ``AE_UI_STEPS``
(CI: :data:`CI_SEQUENCES` sequences of up to :data:`CI_STEPS` steps); ``scripts/ui_sequences.py``
runs many more against a time bound. What was reached is counted in :data:`REACHED` (and as
Hypothesis events). What the open run never reached (a page, a sample, a strategy, a Kafka
version or a rule: it draws them at random, so a rare one can be missed) gets directed sequences
(:func:`fill_gaps`): generated as any other, but opened where the gap can be reached. The test
fails when a gap is left after those: the rules cannot reach it, or only very rarely.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest
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
from streamlit.testing.v1.element_tree import FileUploader

import sample_data
from assignors import KAFKA_VERSIONS, NEWEST_KAFKA_VERSION, AssignmentExplorerError, registry
from cluster.connection import ConnectionSettings
from cluster.reader import ClusterReader
from dashboard.model import plain, sources
from dashboard.panels import (
    describe_source,
    layout,
    shape_panel,
    strategy_panel,
    teach_panel,
)
from dashboard.views import pages
from tests.dashboard import ui_inputs
from tests.dashboard.app_session import add_form, open_page, shown_text, start_app

#: Sequences and steps per sequence in CI: 300 sequences of up to 6 rules each (short ones, to
#: stay within 5 minutes on the shared 2-core machine: docs/development.md has the figures).
CI_SEQUENCES = 300
CI_STEPS = 6

SAMPLES = [info.key for info in sample_data.list_samples()]
STRATEGIES = list(registry.partition_strategies())


def span_lines(span: str) -> list[str]:
    """The release lines of ``span`` (``"3.0-3.4"`` or one line ``"3.9"``)."""
    first, _, last = span.partition("-")
    last = last or first
    lines = list(KAFKA_VERSIONS)
    return lines[lines.index(first) : lines.index(last) + 1]


def without_unions(spans: set[str]) -> list[str]:
    """``spans`` sorted, less those that are exactly the union of others (range's ``3.0-3.4``
    is sticky's ``3.0-3.3`` and ``3.4``): reaching the parts reaches the union, and each span
    kept draws a larger share of the picks."""
    lines = {span: set(span_lines(span)) for span in spans}
    return sorted(
        span
        for span in spans
        if set().union(*(lines[o] for o in spans if o != span and lines[o] < lines[span]))
        != lines[span]
    )


#: The spans of release lines that answer alike (each strategy's ``older_kafka``, less the
#: unions of others), and the newest line: a run must pick a line of each; a pick draws the
#: span, then a line in it.
_OLDER = {span for s in registry.strategies().values() for span, _ in s.older_kafka}
KAFKA_SPANS = [*without_unions(_OLDER), NEWEST_KAFKA_VERSION]
KAFKA_PICKS = st.sampled_from(KAFKA_SPANS).flatmap(lambda span: st.sampled_from(span_lines(span)))
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
    # A listing the core cannot read, with every unreadable line (describe_source.read_listing).
    "The listing was not read: ",
    # A cluster nothing answers at, refused settings (cluster_source.render).
    "Could not connect: ",
)
#: History's and Fleet's own picks (their links carry them).
PAGE_PICKS = ("history.group", "fleet.change", "fleet.strategy", "fleet.sort", "fleet.group")
#: Where the History and Fleet pages read the pipeline's tables (``AE_PIPELINE_OUTPUT``), one
#: per sequence: set by the test (and the script) to a directory without tables and, where
#: PySpark is installed, to the tables ``python -m pipeline`` wrote for the sample history.
PIPELINE_OUTPUTS: list[Path] = []

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


def shown_version(app: AppTest) -> str | None:
    """The Kafka line the page answers as: the version box's value where one is drawn (the
    newest until a user picks another: picking the newest writes nothing to the session),
    else the session's pick."""
    for key in ("strategies.kafka_version", "streams.kafka_version"):
        if key in _keys(app):
            return str(app.selectbox(key=key).value)
    version = app.session_state.get("ae.kafka_version")
    return None if version is None else str(version)


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
        # A sample by its key; any other scenario by itself (an upload comes back from its
        # link as the scenario the link carries, under another key).
        "source": source.key if source.sample is not None else (source.scenario, source.streams),
        "strategies": picked,
        "edits": list(state["ae.edits"]) if "ae.edits" in state else [],
        "kafka": version or NEWEST_KAFKA_VERSION,
    }


def unexpected_errors(app: AppTest, also: tuple[str, ...] = ()) -> list[str]:
    """The error boxes of the last run that are not deliberate messages (:data:`DELIBERATE`, or
    opening with one of ``also``: what the last rule was told to expect)."""
    allowed = DELIBERATE + also
    return [error for error in errors_shown(app) if not error.startswith(allowed)]


def errors_shown(app: AppTest) -> list[str]:
    """The error boxes of the last run as the user reads them (their escapes read)."""
    return [shown_text(str(box.value)) for box in app.error]


def uploaders(app: AppTest, prefix: str) -> list[FileUploader]:
    """The upload widgets whose key starts with ``prefix`` (a rejection renames the scenario
    upload's key: :func:`dashboard.panels.source_panel.upload_key`)."""
    found = [w for w in app.get("file_uploader") if isinstance(w, FileUploader)]
    return [w for w in found if w.key is not None and w.key.startswith(prefix)]


def answered_within(address: str, timeout: float) -> bool:
    """Whether the reader the Connect button opens refuses ``address`` within ``timeout``
    seconds (timed apart from the page's rerun, which a loaded machine stretches)."""
    started = time.monotonic()
    try:
        with ClusterReader(ConnectionSettings(address, timeout_s=timeout)) as reader:
            reader.list_groups()
    except AssignmentExplorerError:
        return time.monotonic() - started < timeout
    raise AssertionError(f"a cluster answered at {address!r}")


def as_text(markdown: str) -> str:
    """What Markdown shows of a string whose markup characters are escaped."""
    return re.sub(r"\\(.)", r"\1", markdown)


def shown_as_typed(app: AppTest, text: str) -> bool:
    """Whether user ``text`` (a file's name in its source's label) shows as typed wherever
    the last run wrote it in Markdown (headlines, captions, notices): never raw when it holds
    markup."""
    written = [str(e.value) for e in (*app.markdown, *app.caption, *app.success)]
    return plain.escape_markdown(text) == text or not any(text in value for value in written)


def page_picks(app: AppTest) -> dict[str, Any]:
    """History's and Fleet's own picks as the last run drew them, and the deploy plan the
    Deploy page plays (its bold headline: the strategy and the plan in words)."""
    picks: dict[str, Any] = {box.key: box.value for box in app.selectbox if box.key in PAGE_PICKS}
    if shown_page(app) == pages.DEPLOY:
        picks["deploy plan"] = [
            str(m.value)
            for m in app.markdown
            if str(m.value).startswith("**") and str(m.value).endswith("**")
        ]
    return picks


def stay_on_shown_page(app: AppTest) -> None:
    """Ask the next run for the page the last run showed, as a browser does. AppTest keeps
    asking for the page last named to its ``switch_page``, also after the app's router moved
    elsewhere (``st.switch_page``: a Streams sample opened on the Explorer, a consumer group
    picked on the Kafka Streams page); the next click would then run the old page."""
    app.switch_page(shown_page(app).script)


def open_link(app: AppTest) -> AppTest:
    """The page's link (its address bar) opened in a fresh session, on the page it names."""
    spec = shown_page(app)
    params = {name: str(value) for name, value in app.query_params.items()}
    fresh = start_app(**params)
    if shown_page(fresh) != spec:
        # AppTest's first run is the default page, which wrote its own address; the page the
        # link names reads the link's (as the browser's one run of that page would).
        fresh.query_params.clear()
        for name, value in params.items():
            fresh.query_params[name] = value
        open_page(fresh, spec)
    stay_on_shown_page(fresh)
    return fresh


def cannot_travel(app: AppTest) -> bool:
    """The page says its scenario cannot travel in a link (and its address is empty)."""
    return layout.NO_LINK in [str(caption.value) for caption in app.caption]


def link_mismatch(app: AppTest, fresh: AppTest) -> str | None:
    """Why the page's link, opened as ``fresh``, does not reproduce the page ``app`` shows
    (``None`` when it does)."""
    spec = shown_page(app)
    if shown_page(fresh) != spec:
        return f"the link opens {shown_page(fresh).title}, not {spec.title}"
    if fresh.error:  # even a deliberate one: the page it came from had been through it
        return f"the link shows errors: {[box.value for box in fresh.error]}"
    if cannot_travel(app):
        return None if not app.query_params else f"no link, but the address {app.query_params}"
    if spec.uses_source and restored(fresh) != restored(app):
        return f"the link restores {restored(fresh)}, the page showed {restored(app)}"
    if page_picks(fresh) != page_picks(app):
        return f"the link picks {page_picks(fresh)}, the page showed {page_picks(app)}"
    return None


class UserSession(RuleBasedStateMachine):
    """One user's session in the dashboard: the rules are what a user does."""

    #: The Kafka versions a pick draws from (a directed run narrows it: :func:`pinned`).
    kafka_picks: st.SearchStrategy[str] = KAFKA_PICKS

    def __init__(self) -> None:
        super().__init__()
        self.app: AppTest | None = None
        #: The page's link opened in a fresh session (by the link invariant, after every rule).
        self.linked: AppTest | None = None
        #: Error boxes the last rule was told to expect (by their opening words).
        self.expected: tuple[str, ...] = ()
        #: The page the last invariant check saw (its main block) and the boxes allowed on it.
        self.checked: object = None
        self.allowed: tuple[str, ...] = ()
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

    def _source_kind(self, kind: str) -> AppTest:
        """Pick ``kind`` (``"Upload"``, ``"Describe"``, ``"Cluster"``) under *Source*."""
        assert self.app is not None
        if self.app.radio(key="source.kind").value != kind:
            self.app.radio(key="source.kind").set_value(kind).run()
        return self.app

    def _shown(self) -> tuple[object, list[Any]]:
        """The scenario on the page and the user's edits (what a refused input must keep)."""
        assert self.app is not None
        state = self.app.session_state
        edits = list(state["ae.edits"]) if "ae.edits" in state else []
        return state["ae.source"].key, edits

    # -- rules ----------------------------------------------------------------------------

    @initialize(
        sample=st.none() | st.sampled_from(SAMPLES),
        spec=st.just(pages.EXPLORER) | st.sampled_from(pages.PAGES),
        pipeline=st.integers(0, 10),
    )
    def open_the_dashboard(self, sample: str | None, spec: pages.PageSpec, pipeline: int) -> None:
        """Open a page at its address (``/`` about half the time), with a sample's link or
        without (the default sample), on a server with the pipeline's tables or without."""
        if PIPELINE_OUTPUTS:
            output = PIPELINE_OUTPUTS[pipeline % len(PIPELINE_OUTPUTS)]
            os.environ["AE_PIPELINE_OUTPUT"] = str(output)
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
            self.pick_kafka_version(data.draw(self.kafka_picks, label="kafka"))

    @precondition(
        lambda self: bool({"strategies.kafka_version", "streams.kafka_version"} & self._keys())
    )
    @rule(version=KAFKA_PICKS)
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
            assert any("already in the group" in error for error in errors_shown(app)), app.error
            return
        added = [edit.get("member_id") for edit in app.session_state["ae.edits"][edits:]]
        if any(error.startswith("Edit “") for error in errors_shown(app)):
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

    @precondition(lambda self: "source.kind" in self._keys())
    @rule(upload=ui_inputs.UPLOADS)
    def upload_scenario(self, upload: tuple[str, bytes]) -> None:
        """Pick *Upload* and a file: a file the core takes is the scenario on the page; one
        it refuses leaves scenario and edits as they were, says why, and leaves the widget."""
        name, data = upload
        app = self._source_kind("Upload")
        before = self._shown()
        try:
            expected: sources.Source | None = sources.upload_source(name, data)
            reason = ""
        except AssignmentExplorerError as error:
            expected, reason = None, str(error)
        (uploader,) = uploaders(app, "source.upload")
        uploader.set_value((name, data, "application/json")).run()
        self._did("upload a scenario" if expected else "upload a malformed file")
        source = app.session_state["ae.source"]
        if expected is not None:
            assert (source.scenario, source.streams) == (expected.scenario, expected.streams)
            assert shown_as_typed(app, source.label), f"{source.label!r} shows as Markdown"
            return
        # The file's name as typed, then the core's reason; a box strips its text.
        message = shown_text(plain.escape_markdown(f"{name} was not loaded: {reason}").strip())
        self.expected = (message,)
        assert message in errors_shown(app), (message, app.error)
        assert self._shown() == before, "a refused file changed the scenario or the edits"
        shown = [w.value for w in uploaders(app, "source.upload")]
        assert shown == [None], "the widget still shows the refused file"

    @precondition(lambda self: "source.kind" in self._keys())
    @rule(
        text=ui_inputs.WELL_FORMED_LISTINGS | ui_inputs.MALFORMED_LISTINGS,
        partitions=ui_inputs.PARTITION_COUNTS,
        as_file=st.booleans(),
    )
    def read_a_listing(self, text: str, partitions: str, as_file: bool) -> None:
        """Paste (or upload) ``kafka-consumer-groups.sh --describe`` output and press *Read
        the listing*: a listing the core reads is the scenario; one it cannot keeps scenario,
        edits and what was typed, and says which line is wrong."""
        app = self._source_kind("Describe")
        before = self._shown()
        named = ("listing.txt" if as_file else describe_source.PASTED, text)
        texts = [named] if text.strip() else []
        try:
            expected: sources.Source | None = describe_source.describe_source(texts, "", partitions)
        except AssignmentExplorerError:
            expected = None
        app.text_area(key="source.describe_text").input("" if as_file else text)
        app.text_input(key="source.describe_group").input("")
        app.text_input(key="source.describe_partitions").input(partitions)
        (uploader,) = uploaders(app, "source.describe_files")
        uploader.set_value([(named[0], text.encode(), "text/plain")] if as_file else None)
        app.button(key="source.describe_read").click().run()
        self._did("read a listing" if expected else "read a malformed listing")
        if expected is not None:
            assert app.session_state["ae.source"].scenario == expected.scenario
        else:
            assert any(error.startswith(DELIBERATE[-2]) for error in errors_shown(app)), app.error
            assert self._shown() == before, "a refused listing changed the scenario or edits"
        if not as_file:
            assert app.text_area(key="source.describe_text").value == text, "the text is lost"

    @precondition(lambda self: "source.kind" in self._keys())
    @rule(address=ui_inputs.BAD_ADDRESSES)
    def connect_to_nothing(self, address: str) -> None:
        """Type a bootstrap address no broker answers at and press *Connect*: the page says
        why, naming the server; the reader behind the button refuses it within the form's
        time-out."""
        app = self._source_kind("Cluster")
        before = self._shown()
        app.text_input(key="cluster.bootstrap").input(address)
        app.button(key="cluster.connect").click().run()
        self._did("connect to nothing")
        refusals = [error for error in errors_shown(app) if error.startswith("Could not connect")]
        assert refusals, (address, app.error)
        # Clear: it names the server it could not use (or says none was given).
        servers = [part.strip() for part in address.split(",") if part.strip()]
        named = any(server in refusals[0] for server in servers)
        assert named or (not servers and "no bootstrap servers given" in refusals[0]), refusals
        timeout = float(app.number_input(key="cluster.timeout").value or 0)
        assert answered_within(address, timeout), f"{address!r}: no answer within {timeout} s"
        assert self._shown() == before

    @precondition(lambda self: bool(set(PAGE_PICKS) & self._keys()))
    @rule(data=st.data())
    def pick_on_pipeline_page(self, data: st.DataObject) -> None:
        """Pick History's group, or Fleet's filters, order and group, in any combination."""
        assert self.app is not None
        for key in PAGE_PICKS:
            box = _widget(self.app, "selectbox", key)
            if box is not None and box.key == key and data.draw(st.booleans(), label=key):
                box.set_value(data.draw(st.sampled_from(box.options), label="value"))
        self.app.run()
        self._did("pick on a pipeline page")

    @precondition(lambda self: "fleet.open" in self._keys())
    @rule()
    def open_fleet_group(self) -> None:
        """Fleet's *Open in explorer*: the Explorer shows the picked group."""
        assert self.app is not None
        picked = self.app.selectbox(key="fleet.group").value
        self.app.button(key="fleet.open").click().run()
        self._did("open a Fleet group")
        assert self._page() == pages.EXPLORER
        assert self.app.session_state["ae.source"].label.startswith(
            f"pipeline snapshot of {picked} "
        )

    @precondition(lambda self: "fleet.open" in self._keys())
    @rule(data=st.data())
    def open_fleet_row_link(self, data: st.DataObject) -> None:
        """Open a Fleet row's *open* link in a fresh session and carry on there."""
        assert self.app is not None
        links = list(self.app.dataframe[0].value["explorer"])
        link = data.draw(st.sampled_from(links), label="row")
        params = dict(parse_qsl(link.removeprefix("?")))
        fresh = start_app(**params)
        self._did("open a Fleet row's link")
        assert shown_page(fresh) == pages.EXPLORER
        label = fresh.session_state["ae.source"].label
        assert label.startswith(f"pipeline snapshot of {params['group']} "), label
        self.app = fresh

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
        # A rule that ran nothing (a disabled button) leaves the page it found, boxes and all:
        # what was allowed on it still is.
        if app.main is not self.checked:
            self.checked, self.allowed = app.main, self.expected
        unexpected = unexpected_errors(app, self.allowed)
        self.expected = ()
        assert not unexpected, unexpected
        spec = self._page()
        REACHED["pages"][spec.title] += 1
        event(f"page: {spec.title}")
        source = app.session_state["ae.source"]
        if source.sample is not None:
            REACHED["samples"][source.sample] += 1
        if spec == pages.EXPLORER and "ae.strategies" in app.session_state:
            for name in app.session_state["ae.strategies"]:
                REACHED["strategies"][name] += 1
        version = shown_version(app)
        for span in KAFKA_SPANS if version else ():
            if version in span_lines(span):
                REACHED["kafka"][span] += 1

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
    "upload a scenario",
    "upload a malformed file",
    "read a listing",
    "read a malformed listing",
    "connect to nothing",
]
#: The rules that need the pipeline's tables (checked when :data:`PIPELINE_OUTPUTS` has them).
PIPELINE_RULES = ["pick on a pipeline page", "open a Fleet group", "open a Fleet row's link"]


def has_tables(output: Path) -> bool:
    """Whether ``output`` holds the pipeline's what-if and lag tables."""
    return (output / "whatif" / "whatif").is_dir() and (output / "lag" / "group_health").is_dir()


def missing(reached: dict[str, Counter[str]]) -> dict[str, list[str]]:
    """What a run never generated: pages, samples, strategies, Kafka versions, rules."""
    wanted = {
        "pages": [spec.title for spec in pages.PAGES],
        "samples": SAMPLES,
        "strategies": STRATEGIES,
        "kafka": KAFKA_SPANS,
        "actions": RULES + (PIPELINE_RULES if any(has_tables(p) for p in PIPELINE_OUTPUTS) else []),
    }
    gaps = {name: [k for k in keys if not reached[name][k]] for name, keys in wanted.items()}
    return {name: keys for name, keys in gaps.items() if keys}


def pinned(
    sample: str | None = None,
    spec: pages.PageSpec | None = None,
    tables: bool = False,
    kafka: str | None = None,
) -> type[UserSession]:
    """:class:`UserSession` whose sequences open at ``sample`` and ``spec`` (each random when
    ``None``), on a server with the pipeline's tables when ``tables``, and pick Kafka versions
    of the span ``kafka`` only (when given); every other rule is drawn as in the open run."""
    picks = st.sampled_from(span_lines(kafka)) if kafka else KAFKA_PICKS

    class Pinned(UserSession):
        kafka_picks = picks

        @precondition(
            lambda self: bool({"strategies.kafka_version", "streams.kafka_version"} & self._keys())
        )
        @rule(version=picks)
        def pick_kafka_version(self, version: str) -> None:
            super().pick_kafka_version(version)

        @initialize(
            sample=st.just(sample) if sample else st.none() | st.sampled_from(SAMPLES),
            spec=st.just(spec) if spec else st.sampled_from(pages.PAGES),
            pipeline=st.just(len(PIPELINE_OUTPUTS) - 1) if tables else st.integers(0, 10),
        )
        def open_the_dashboard(
            self, sample: str | None, spec: pages.PageSpec, pipeline: int
        ) -> None:
            super().open_the_dashboard(sample, spec, pipeline)

    return Pinned


def directed_openings(gaps: dict[str, list[str]]) -> list[tuple[str, type[UserSession]]]:
    """For each gap an open run left, the opening that can reach it: its sample, its page, the
    Fleet page with tables for a rule that needs them, else the Explorer (where the rest live)."""
    by_title = {spec.title: spec for spec in pages.PAGES}
    openings = []
    for kind, keys in gaps.items():
        for key in keys:
            if kind == "samples":
                openings.append((key, pinned(sample=key, spec=pages.EXPLORER)))
            elif kind == "pages":
                openings.append((key, pinned(spec=by_title[key])))
            elif kind == "kafka":
                openings.append((key, pinned(spec=pages.EXPLORER, kafka=key)))
            elif key in PIPELINE_RULES:
                openings.append((key, pinned(spec=pages.FLEET, tables=True)))
            else:
                openings.append((key, pinned(spec=pages.EXPLORER)))
    return openings


def fill_gaps(batches: int = 4, batch: int = 5) -> int:
    """Run directed sequences (:func:`directed_openings`, up to ``batches`` runs of ``batch``
    sequences each) for what the open run never reached; the invariants hold on each as on any
    sequence. Returns how many sequences ran. A gap left after that fails the test: the rules
    cannot reach it, or reach it too rarely."""
    ran = 0
    for _ in range(batches):
        gaps = missing(REACHED)
        if not gaps:
            break
        for _key, machine in directed_openings(gaps):
            run_state_machine_as_test(machine, settings=ui_settings(sequences=batch))
            ran += batch
    return ran


def test_no_generated_path_breaks_the_dashboard(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, pipeline_tables: Path | None
) -> None:
    for counter in REACHED.values():
        counter.clear()
    monkeypatch.setenv("AE_PIPELINE_OUTPUT", str(tmp_path / "no-pipeline-output"))
    monkeypatch.setattr(
        "tests.dashboard.test_generated_ui.PIPELINE_OUTPUTS",
        [tmp_path / "no-pipeline-output", *([pipeline_tables] if pipeline_tables else [])],
    )
    started = time.monotonic()
    run_state_machine_as_test(UserSession, settings=ui_settings())
    open_gaps = missing(REACHED)
    directed = fill_gaps()
    elapsed = time.monotonic() - started
    totals = REACHED["totals"]
    print(
        f"{totals['sequences']} sequences ({directed} directed at {open_gaps}), "
        f"{totals['actions']} actions in {elapsed:.0f} s; "
        f"pages {dict(REACHED['pages'])}; samples {len(REACHED['samples'])}; "
        f"rules {dict(REACHED['actions'])}"
    )
    assert totals["sequences"] >= ui_settings().max_examples
    assert not missing(REACHED), missing(REACHED)
