"""Driving the dashboard in Chromium like a person: pick a sample, a strategy, a walkthrough
step, add a member, undo, switch views. Each action returns only when the page has finished
rerunning, and :func:`check_page` fails on any exception or error box.

Every action is *valid* (it uses a control the page shows) and says what must change, so a
control that silently does nothing fails its check.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlparse

from dashboard.model import share

SIDEBAR = '[data-testid="stSidebar"]'
MAIN = '[data-testid="stMain"]'


def settle(page: Any) -> None:
    """Wait until Streamlit has finished the rerun an action started."""
    page.wait_for_timeout(300)
    page.wait_for_function(
        """() => {
          const app = document.querySelector('[data-testid="stApp"]');
          const run = app && app.getAttribute('data-test-script-state');
          return run !== 'running' && run !== 'rerunRequested';
        }""",
        timeout=120_000,
    )
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden", timeout=120_000)
    page.wait_for_timeout(150)


def open_page(page: Any, title: str) -> None:
    """Click ``title`` in the app's menu (the pages' links at the top) and wait for its run."""
    page.locator('[data-testid="stTopNavLink"]').filter(has_text=title).first.click()
    settle(page)


def eventually(page: Any, check: Callable[[], bool], timeout_s: float = 30.0) -> bool:
    """Whether ``check()`` holds within ``timeout_s``, asked again every quarter second.

    A rerun's last deltas can reach the browser after the run has ended (a fragment's, or one on
    a loaded machine), so a check of what the page shows waits for it as a user's eye would.
    """
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            return False
        page.wait_for_timeout(250)
    return True


def alert_texts(page: Any, testid: str = "stAlertContentError") -> list[str]:
    """The text of each message box of one kind (``stAlertContentError``, ``...Warning``, ...),
    without its icon: a Material icon is drawn from its name's letters, so the whole box's
    text starts with "error"."""
    boxes = page.locator(f'[data-testid="{testid}"]').all()
    return [box.locator('[data-testid="stMarkdownContainer"]').inner_text() for box in boxes]


def check_page(page: Any, after: str) -> None:
    """No exception and no error box on the page after a valid action."""
    exceptions = page.locator('[data-testid="stException"]')
    assert exceptions.count() == 0, f"after {after}: {exceptions.first.inner_text()[:800]}"
    errors = page.locator('[data-testid="stAlertContentError"]')
    assert errors.count() == 0, f"after {after}: error box {errors.first.inner_text()[:500]}"


def on_the_page(page: Any) -> str:
    """The sidebar's note of what the page shows."""
    note = page.locator(SIDEBAR).locator('[data-testid="stCaptionContainer"]')
    return str(note.filter(has_text="On the page:").first.inner_text())


def headline(page: Any) -> str:
    """The top of the page: the title, then the scenario line (bold name · source)."""
    return str(page.locator(MAIN).inner_text())[:500]


def pick_sample(page: Any, title: str) -> None:
    """Pick a sample in the sidebar; the page and the sidebar then name it."""
    page.locator(SIDEBAR).locator('[data-testid="stSelectbox"]').first.click()
    page.locator('[role="option"]').filter(has_text=re.compile("^" + re.escape(title))).click()
    settle(page)
    assert eventually(page, lambda: title in headline(page)), (
        f"picked {title!r}; the page shows {headline(page)!r}"
    )
    assert eventually(page, lambda: title in on_the_page(page)), on_the_page(page)


def strategies_shown(page: Any) -> list[str]:
    """The strategies the sidebar's picker shows as chosen."""
    tags = page.locator(SIDEBAR).locator('[data-testid="stMultiSelect"] [data-tag]')
    return [str(tags.nth(i).get_attribute("aria-label")) for i in range(tags.count())]


def comparison_rows(page: Any) -> list[str]:
    """The row names of the comparison table (current first, then each strategy)."""
    table = page.locator(MAIN).locator("table").filter(has_text="partitions moved").first
    names = table.locator("tbody tr td:first-child").all_inner_texts()
    return [str(cell).strip() for cell in names]


def add_strategy(page: Any, name: str) -> None:
    """Add ``name`` to the compared strategies; its row appears in the comparison."""
    for attempt in range(2):
        page.locator(SIDEBAR).locator('[data-testid="stMultiSelect"] input').first.click()
        option = re.compile("^" + re.escape(name) + "$")
        page.locator('[role="option"]').filter(has_text=option).click()
        page.wait_for_timeout(200)
        page.locator(SIDEBAR).get_by_text("Strategies", exact=True).first.click()  # close it
        settle(page)
        if eventually(page, lambda: name in strategies_shown(page), timeout_s=15):
            break
        # Seen twice in ~1,000 monkey actions on a loaded machine, after a walkthrough step's
        # st.rerun(): the pick does not take. A person picks again; so does the test, and says so.
        print(f"the pick of {name} did not take (attempt {attempt + 1}); picking again")
    assert name in strategies_shown(page), strategies_shown(page)
    assert eventually(page, lambda: name in comparison_rows(page)), comparison_rows(page)


def remove_strategy(page: Any, name: str) -> None:
    """Drop ``name`` from the compared strategies; its row leaves the comparison."""
    page.locator(SIDEBAR).get_by_role("button", name=f"Remove {name}").click()
    settle(page)
    assert eventually(page, lambda: name not in strategies_shown(page)), strategies_shown(page)
    assert eventually(page, lambda: name not in comparison_rows(page)), comparison_rows(page)


def _expander(page: Any, label: str) -> Any:
    return page.locator('[data-testid="stExpander"]').filter(has_text=label).first


def expander_open(page: Any, label: str) -> bool:
    """Whether the expander whose summary starts with ``label`` is on the page and open."""
    details = _expander(page, label).locator("details")
    return bool(details.count()) and details.first.get_attribute("open") is not None


def open_expander(page: Any, label: str) -> Any:
    """Open the expander whose summary starts with ``label`` (if closed); return it."""
    expander = _expander(page, label)
    details = expander.locator("details")
    if details.count() and details.first.get_attribute("open") is None:
        expander.locator("summary").first.click()
        page.wait_for_timeout(300)
        # A panel built only while open (the what-if, export) fills in after the rerun the
        # click starts: wait for its contents as a user's eye would.
        settle(page)
        contents = expander.locator('[data-testid="stExpanderDetails"] [data-testid]')
        assert eventually(page, lambda: contents.count() > 0), f"the {label!r} panel is empty"
    return expander


def walkthrough_step(page: Any) -> tuple[int, int] | None:
    """``(step, steps)`` the walkthrough panel shows, or ``None`` when it has none."""
    if _expander(page, "Walkthrough:").count() == 0:
        return None
    panel = open_expander(page, "Walkthrough:")
    found = re.search(r"Step (\d+) of (\d+)", panel.inner_text())
    return None if found is None else (int(found[1]), int(found[2]))


def walkthrough_has(page: Any, button: str) -> bool:
    """Whether the walkthrough's panel shows ``button`` (*Show step N again* is there only
    when the page no longer shows the step)."""
    panel = open_expander(page, "Walkthrough:")
    return bool(panel.get_by_role("button", name=button).count())


def walkthrough_move(page: Any, button: str) -> None:
    """Press ◀ Previous, Show step N again or Next ▶; the step shown and the sidebar follow."""
    before = walkthrough_step(page)
    assert before is not None
    panel = open_expander(page, "Walkthrough:")
    panel.get_by_role("button", name=button).click()
    settle(page)
    moves = {"Next ▶": 1, "◀ Previous": -1}
    expected = before[0] + (0 if button.startswith("Show step") else moves[button])
    assert eventually(page, lambda: (walkthrough_step(page) or (0, 0))[0] == expected), (
        button,
        before,
        walkthrough_step(page),
    )
    if expected > 1:
        sidebar = f"walkthrough step {expected} of"
        assert eventually(page, lambda: sidebar in on_the_page(page)), on_the_page(page)


def edits_count(page: Any) -> int:
    panel = open_expander(page, "Shape the what-if")
    found = re.search(r"Edits \((\d+)\)", panel.inner_text())
    assert found is not None
    return int(found[1])


def noted_edits(page: Any) -> int:
    """How many edits the sidebar's note says the page shows."""
    found = re.search(r"(\d+) edits?\b", on_the_page(page))
    return int(found[1]) if found else 0


def linked_edits(page: Any) -> int | None:
    """How many edits the address bar's link restores; ``None`` when it names no scenario (one
    over the size limit cannot travel in a link)."""
    params = parse_qs(urlparse(page.url).query)
    if "sample" not in params and "scenario" not in params:
        return None
    return len(share.decode_edits(params["edits"][0])) if "edits" in params else 0


def edits_shown_everywhere(page: Any, count: int) -> None:
    """The edits line above the tabs, the sidebar's note and the address bar all count
    ``count`` edits (an edit reruns only part of the page: none of them may be left behind)."""
    assert eventually(page, lambda: edits_count(page) == count), (count, edits_count(page))
    assert eventually(page, lambda: noted_edits(page) == count), (count, on_the_page(page))
    assert eventually(page, lambda: linked_edits(page) in (None, count)), (count, page.url)


def add_member(page: Any, member_id: str) -> None:
    """Add a member with the form's defaults; one more edit, and the change is named."""
    count = edits_count(page)
    panel = open_expander(page, "Shape the what-if")
    panel.get_by_role("tab", name="Members").click()
    panel.get_by_label("Member id").fill(member_id)
    panel.get_by_role("button", name="Add member").click()
    settle(page)
    alerts = page.locator('[data-testid="stAlert"]').all_inner_texts()
    assert eventually(page, lambda: edits_count(page) == count + 1), (count, alerts)
    edits_shown_everywhere(page, count + 1)
    # The sentence at the top names the change: the first one, so at a walkthrough step whose
    # own change comes first it is that one, "(and 1 more change)".
    assert re.search(
        r"\b(Adding|Removing|Restarting|Growing|Subscribing) ", page.locator(MAIN).inner_text()
    )


def undo(page: Any) -> None:
    """Undo the last edit (when there is one): one edit fewer."""
    count = edits_count(page)
    panel = open_expander(page, "Shape the what-if")
    panel.get_by_role("tab", name=re.compile(r"^Edits")).click()
    settle(page)
    # While Streamlit redraws a moved element the old copy can linger a moment: the last is new.
    panel.get_by_role("button", name="Undo last edit").last.click()
    settle(page)
    assert eventually(page, lambda: edits_count(page) == count - 1), count
    edits_shown_everywhere(page, count - 1)


def pick_radio(page: Any, label: str, option: str) -> None:
    """Pick ``option`` of the main page's radio ``label``; it is then the checked one."""
    group = page.locator(MAIN).locator('[data-testid="stRadio"]').filter(has_text=label).first
    group.locator("label").filter(has_text=re.compile("^" + re.escape(option) + "$")).click()
    settle(page)
    checked = group.locator("label:has(input:checked)")
    assert eventually(
        page, lambda: checked.count() == 1 and checked.inner_text().strip() == option
    ), option


def more_view(page: Any, view: str) -> None:
    """Show one of the views under the lag chart; each has its own visible mark."""
    marks = {
        "Members": "kafka-consumer-groups.sh",
        "Assignment matrix": "Assignment",
        "Movement": "kept,",
        "Lag drain": "Horizon",
        "Protocols": "Target assignment from",
    }
    group = page.locator(MAIN).locator('[data-testid="stButtonGroup"]')
    group.locator("button").filter(has_text=re.compile("^" + re.escape(view) + "$")).click()
    settle(page)
    main = page.locator(MAIN)
    assert eventually(page, lambda: marks[view] in main.inner_text()), (
        f"{view}: {marks[view]!r} not in the main area, which reads {main.inner_text()[-1500:]!r}"
    )


def play(page: Any) -> None:
    """Press ▶ Play; the animation's slider moves past the first phase."""
    moved = "() => document.querySelector('.js-plotly-plot')._fullLayout.sliders[0].active > 0"
    for attempt in range(3):
        settle(page)
        plot = page.locator(".js-plotly-plot").first
        plot.scroll_into_view_if_needed()
        plot.locator(".updatemenu-button").first.click()
        if eventually(page, lambda: bool(page.evaluate(moved)), timeout_s=10):
            return
        # A chart Streamlit redraws just after the click starts again at its first frame.
        print(f"Play did not start the animation (attempt {attempt + 1}); pressing it again")
    raise AssertionError("Play never moved the animation's slider past its first phase")
