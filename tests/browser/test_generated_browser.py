"""Generated UI runs in Chromium (issue 36): a small Hypothesis state machine drives the real
page as a user does, in any order; the larger one runs under AppTest
(``tests/dashboard/test_generated_ui.py``, whose member ids and deliberate messages this one
shares).

Rules: open a page from the menu; pick a sample in the sidebar; add or drop a compared strategy;
add a member with a generated id (1 to 255 characters: unicode, spaces, HTML-like ``<b>x</b>``,
Markdown-like ``**x**`` and ``[a](b)``); remove members; step a walkthrough.

Invariants, after every rule:

1. no exception box (``stException``) and no error box but the deliberate ones;
2. an id the user typed shows as the literal text typed, in the edits list and in the headline
   that names the change (checked by the rule that types it): never read as HTML or Markdown;
3. the address bar's link, opened in a fresh browser context, shows the same page: the same
   title, scenario line, headline, sidebar note (source, edits, walkthrough step), compared
   strategies and edits list.

CI runs :data:`CI_SEQUENCES` sequences of up to :data:`CI_STEPS` rules (a browser step takes
seconds: about 2 minutes in all on 2 cores); ``AE_BROWSER_SEQUENCES`` and ``AE_BROWSER_STEPS``
raise them for a longer search (``AE_BROWSER_SEQUENCES=50 .venv/bin/python -m pytest
tests/browser/test_generated_browser.py``).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import sample_data
from assignors import registry
from dashboard.views import pages
from tests.browser import served_app, ui
from tests.dashboard import test_generated_ui as generated

pytestmark = pytest.mark.browser

CI_SEQUENCES = 3
CI_STEPS = 5
SAMPLES = {info.key: info.name for info in sample_data.list_samples()}
STRATEGIES = list(registry.partition_strategies())
#: The Explorer's title; every other page's is "Assignment Explorer · <its menu title>".
EXPLORER_TITLE = "Assignment Explorer"

#: The AppTest machine's ids, with markup-like ones drawn half the time (a browser run is short).
MEMBER_IDS = st.sampled_from(["<b>x</b>", "**x**", "[a](b)", "`x` _y_ ~~z~~", "<i>y</i> $z$"]) | (
    generated.MEMBER_IDS
)

#: What the page states, read from the DOM: its title, the scenario line (the first paragraph
#: under the title), the headline (the comparison sentence naming the change) and the
#: sidebar's note of what is on the page.
STATEMENT_JS = """
() => {
  const main = document.querySelector('[data-testid="stMain"]');
  // escape_markdown's invisible link breaks (U+2060) are not part of what a user reads
  const text = node => (node ? node.textContent : '').replace(/\\u2060/g, '')
    .replace(/\\s+/g, ' ').trim();
  const notes = document.querySelectorAll(
    '[data-testid="stSidebar"] [data-testid="stCaptionContainer"]');
  const note = [...notes].find(node => node.textContent.includes('On the page:'));
  return {
    title: text(main.querySelector('h1')),
    scenario: text(main.querySelector('[data-testid="stMarkdown"]')),
    headline: text(main.querySelector('h4')),
    note: text(note),
  };
}
"""

#: How many of each rule ran in this process, and sequences.
RAN: Counter[str] = Counter()


def normalized(text: str) -> str:
    """``text`` as a page shows it: runs of white space as one space, none at the ends, no
    invisible link break (escape_markdown's U+2060)."""
    return " ".join(text.replace("\u2060", "").split())


def title(page: Any) -> str:
    return normalized(page.locator(ui.MAIN).locator("h1").first.inner_text())


def error_boxes(page: Any) -> list[str]:
    """The error boxes on the page that are not deliberate messages."""
    return [box for box in ui.alert_texts(page) if not box.strip().startswith(generated.DELIBERATE)]


def what_if_shown(page: Any) -> bool:
    return page.locator('[data-testid="stExpander"]').filter(has_text="Shape the what-if").count()


def edit_list(page: Any) -> list[str]:
    """The edits the what-if panel lists, in order (its Edits tab opened)."""
    if not what_if_shown(page):
        return []
    panel = ui.open_expander(page, "Shape the what-if")
    panel.get_by_role("tab", name=re.compile(r"^Edits")).click()
    ui.settle(page)
    items = panel.locator('[role="tabpanel"]:visible li').all_text_contents()
    return [normalized(item) for item in items]


def statement(page: Any) -> dict[str, Any]:
    """What the page states about what it shows (see :data:`STATEMENT_JS`), with the compared
    strategies."""
    stated: dict[str, Any] = page.evaluate(STATEMENT_JS)
    stated["strategies"] = ui.strategies_shown(page)
    return stated


def compared_in_note(stated: dict[str, Any]) -> list[str] | None:
    """The strategies the sidebar's note says the page compares (``None``: no such note)."""
    found = re.search(r"; comparing (.+)\.$", stated["note"])
    if found is None or found[1] == "no strategy":
        return None if found is None else []
    return found[1].split(", ")


def settled_statement(page: Any) -> dict[str, Any]:
    """What the page states once it agrees with itself: the strategy picker shows what the
    sidebar's note says is compared. Right after a run the note can be drawn before the
    picker's chosen tags (a loaded browser); a page that still disagrees after 30 s fails."""
    stated = statement(page)

    def agrees() -> bool:
        nonlocal stated
        stated = statement(page)
        compared = compared_in_note(stated)
        return compared is None or compared == stated["strategies"]

    assert ui.eventually(page, agrees, 30), f"the picker and the note disagree: {stated}"
    return stated


def edits_stated(page: Any, stated: dict[str, Any]) -> list[str]:
    """The edits list, where the sidebar's note (in ``stated``) counts edits."""
    return edit_list(page) if re.search(r"\bedits?\b", stated["note"]) else []


class BrowserSession(RuleBasedStateMachine):
    """One user's session in Chromium; the rules are what a user does."""

    browser: ClassVar[Any] = None
    url: ClassVar[str] = ""

    def __init__(self) -> None:
        super().__init__()
        self.context = self.browser.new_context(viewport={"width": 1280, "height": 1400})
        self.page = self.context.new_page()
        self.page.set_default_timeout(60_000)
        RAN["sequences"] += 1

    def teardown(self) -> None:
        with contextlib.suppress(Exception):
            self.context.close()

    def _did(self, action: str) -> None:
        RAN[action] += 1
        RAN["steps"] += 1

    def _on_explorer(self) -> bool:
        return title(self.page) == EXPLORER_TITLE

    def _compares(self) -> bool:
        """The sidebar's strategy picker is shown (a consumer group's source)."""
        picker = self.page.locator(ui.SIDEBAR).locator('[data-testid="stMultiSelect"]')
        return self._on_explorer() and picker.count() > 0

    # -- rules ----------------------------------------------------------------------------

    @initialize(
        sample=st.sampled_from(sorted(SAMPLES)),
        spec=st.just(pages.EXPLORER) | st.sampled_from(pages.PAGES),
    )
    def open_the_dashboard(self, sample: str, spec: pages.PageSpec) -> None:
        address = "" if spec.default else spec.url_path
        self.page.goto(f"{self.url}/{address}?sample={sample}")
        self.page.get_by_text("Assignment Explorer").first.wait_for()
        ui.settle(self.page)
        self._did("open the dashboard")

    @rule(spec=st.sampled_from(pages.PAGES))
    def open_a_page(self, spec: pages.PageSpec) -> None:
        ui.open_page(self.page, spec.title)
        self._did("open a page")

    @precondition(lambda self: title(self.page).endswith(("Explorer", "Kafka Streams")))
    @rule(sample=st.sampled_from(sorted(SAMPLES)))
    def pick_sample(self, sample: str) -> None:
        name = SAMPLES[sample]
        page = self.page
        page.locator(ui.SIDEBAR).locator('[data-testid="stSelectbox"]').first.click()
        options = page.locator('[role="option"]')
        options.filter(has_text=re.compile("^" + re.escape(name))).first.click()
        ui.settle(page)
        assert ui.eventually(page, lambda: name in ui.headline(page), 60), ui.headline(page)
        self._did("pick a sample")

    @precondition(lambda self: self._compares())
    @rule(name=st.sampled_from(STRATEGIES))
    def add_or_drop_a_strategy(self, name: str) -> None:
        shown = ui.strategies_shown(self.page)
        if name not in shown:
            ui.add_strategy(self.page, name)
        elif len(shown) > 1:
            ui.remove_strategy(self.page, name)
        self._did("add or drop a strategy")

    @precondition(lambda self: self._on_explorer() and what_if_shown(self.page))
    @rule(member_id=MEMBER_IDS)
    def add_member(self, member_id: str) -> None:
        """Type an id and press *Add member*: the member joins and its id shows as typed, or
        the page says why not (the id is taken, or the group cannot take it)."""
        page = self.page
        before = ui.edits_count(page)
        panel = ui.open_expander(page, "Shape the what-if")
        panel.get_by_role("tab", name="Members").click()
        panel.get_by_label("Member id").fill(member_id)
        panel.get_by_role("button", name="Add member").click()
        ui.settle(page)
        self._did("add a member")
        refused = page.locator('[data-testid="stAlertContentError"]')
        answered = ui.eventually(
            page, lambda: refused.count() > 0 or ui.edits_count(page) == before + 1, 30
        )
        assert answered, f"{member_id!r} was neither added nor refused"
        if refused.count():
            return
        typed = normalized(member_id)
        if not typed:  # a blank id gets the next free consumer-N
            return
        edits = edit_list(page)
        assert typed in edits[-1], f"typed {member_id!r}; the edits list shows {edits[-1]!r}"
        if before == 0:  # the headline names the first change
            headline = page.evaluate(STATEMENT_JS)["headline"]
            assert typed in headline, f"typed {member_id!r}; the headline reads {headline!r}"

    @precondition(lambda self: self._on_explorer() and what_if_shown(self.page))
    @rule(data=st.data())
    def remove_members(self, data: st.DataObject) -> None:
        page = self.page
        panel = ui.open_expander(page, "Shape the what-if")
        panel.get_by_role("tab", name="Members").click()
        label = page.locator('[data-testid="stWidgetLabel"]', has_text=re.compile("^Members$"))
        box = panel.locator('[data-testid="stMultiSelect"]').filter(has=label).first
        box.locator("input").first.click()
        options = page.locator('[role="option"]')
        if options.count() == 0:
            page.keyboard.press("Escape")
            return
        pick = data.draw(st.integers(0, options.count() - 1), label="member")
        options.nth(pick).click()
        page.keyboard.press("Escape")
        # One edit per member picked (an option may pick them all: "Select all").
        leaving = box.locator("[data-tag]").count()
        assert leaving >= 1
        before = ui.edits_count(page)
        panel.get_by_role("button", name="Remove", exact=True).click()
        ui.settle(page)
        assert ui.eventually(page, lambda: ui.edits_count(page) == before + leaving, 20), leaving
        self._did("remove members")

    @precondition(lambda self: self._on_explorer() and ui.walkthrough_step(self.page) is not None)
    @rule(button=st.sampled_from(["Next ▶", "◀ Previous", "Show step again"]))
    def step_walkthrough(self, button: str) -> None:
        """Press a walkthrough button; one that the panel does not offer here (*Next* at the last
        step, *Previous* at the first, *Show step N again* while the page shows the step) gives
        way to one it does."""
        step = ui.walkthrough_step(self.page)
        assert step is not None
        if button == "Show step again":
            button = f"Show step {step[0]} again"
            if not ui.walkthrough_has(self.page, button):
                button = "Next ▶"
        if button == "Next ▶" and step[0] >= step[1]:
            button = "◀ Previous"
        if button == "◀ Previous" and step[0] <= 1:
            button = "Next ▶"
        if step[1] == 1 and button != f"Show step {step[0]} again":
            return  # a one-step walkthrough has nowhere to go
        ui.walkthrough_move(self.page, button)
        self._did("step a walkthrough")

    # -- invariants -----------------------------------------------------------------------

    @invariant()
    def nothing_breaks(self) -> None:
        exceptions = self.page.locator('[data-testid="stException"]')
        assert exceptions.count() == 0, exceptions.first.inner_text()[:800]
        assert error_boxes(self.page) == []

    @invariant()
    def the_link_reproduces_the_page(self) -> None:
        shown = settled_statement(self.page)
        shown_edits = edits_stated(self.page, shown)
        context = self.browser.new_context(viewport={"width": 1280, "height": 1400})
        try:
            fresh = context.new_page()
            fresh.set_default_timeout(60_000)
            fresh.goto(self.page.url)
            fresh.get_by_text("Assignment Explorer").first.wait_for()
            ui.settle(fresh)
            same = ui.eventually(fresh, lambda: statement(fresh) == shown, 60)
            assert same, f"{self.page.url} shows {statement(fresh)}; the page showed {shown}"
            linked_edits = edits_stated(fresh, shown)
            assert linked_edits == shown_edits, (self.page.url, linked_edits, shown_edits)
        finally:
            context.close()


def browser_settings() -> settings:
    """``AE_BROWSER_SEQUENCES`` sequences (:data:`CI_SEQUENCES`) of up to ``AE_BROWSER_STEPS``
    rules (:data:`CI_STEPS`). No shrinking unless ``AE_BROWSER_SHRINK`` is set: a browser step
    takes seconds, and shrinking a failed sequence took over 11 minutes; the failure is
    reported with the sequence as generated (every rule and its arguments)."""
    phases = [Phase.explicit, Phase.reuse, Phase.generate]
    if os.environ.get("AE_BROWSER_SHRINK"):
        phases.append(Phase.shrink)
    return settings(
        max_examples=int(os.environ.get("AE_BROWSER_SEQUENCES", CI_SEQUENCES)),
        stateful_step_count=int(os.environ.get("AE_BROWSER_STEPS", CI_STEPS)),
        deadline=None,
        derandomize=False,
        phases=phases,
        suppress_health_check=list(HealthCheck),
    )


@pytest.fixture(scope="module")
def browser(app_url: str) -> Iterator[Any]:
    with served_app.chromium() as browser:
        yield browser


def test_no_generated_path_breaks_the_page_in_the_browser(browser: Any, app_url: str) -> None:
    RAN.clear()
    BrowserSession.browser, BrowserSession.url = browser, app_url
    started = time.monotonic()
    run_state_machine_as_test(BrowserSession, settings=browser_settings())
    print(
        f"{RAN['sequences']} sequences, {RAN['steps']} steps in "
        f"{time.monotonic() - started:.0f} s: {dict(RAN)}"
    )
    assert RAN["sequences"] >= browser_settings().max_examples
