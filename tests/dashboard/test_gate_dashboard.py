"""The dashboard's entry points fed garbage: uploads (and pastes), share links, edits.

Generated cases call the pure functions behind them
(:func:`dashboard.model.sources.upload_source`, :mod:`dashboard.model.share`,
:func:`dashboard.model.whatif.plan`); the problems of issue 21 run in the real app under
Streamlit's AppTest: an alert in the project's words, the user's scenario kept, no exception on the
page.
"""

from __future__ import annotations

import base64
import json
import zlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import sample_data
from dashboard.model import share, whatif
from dashboard.model.sources import upload_source
from tests.dashboard.app_session import assert_no_exception, shown_text, start_app
from tests.garbage import JSON_TREES, KNOWN_BAD, SCENARIO_TREES, is_ours, render

GARBAGE = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _ours(call: object) -> object:
    try:
        return call()  # type: ignore[operator]
    except Exception as error:  # the test: nothing but the project's errors escapes
        assert is_ours(error), f"{type(error).__name__}: {error}"
        return None


def _upload(app: AppTest, name: str, data: bytes) -> AppTest:
    app.radio(key="source.kind").set_value("Upload").run()
    app.file_uploader(key="source.upload").upload(name, data, "application/json").run()
    assert_no_exception(app)
    return app


def test_a_5000_digit_upload_shows_the_path_and_keeps_the_scenario() -> None:
    """Before the gate, this upload replaced the page with a traceback showing server paths."""
    app = start_app()
    headline = app.markdown[0].value
    _upload(app, "huge.json", KNOWN_BAD["5000-digit partitions"].encode())
    errors = [shown_text(e.value) for e in app.error]
    assert any(
        "huge.json was not loaded" in e and "topics[0].partitions: an integer of 5,000 digits" in e
        for e in errors
    ), errors
    assert app.markdown[0].value == headline


def test_an_upload_with_a_byte_order_mark_loads() -> None:
    app = start_app()
    scenario = {
        "name": "Saved by Notepad",
        "topics": [{"name": "orders", "partitions": 2}],
        "members": [{"member_id": "x", "topics": ["orders"]}],
    }
    _upload(app, "bom.json", b"\xef\xbb\xbf" + json.dumps(scenario).encode())
    assert "Saved by Notepad" in app.markdown[0].value
    assert not [shown_text(e.value) for e in app.error]


def test_a_link_repeating_a_strategy_150_times_shows_it_once() -> None:
    """Before: 150 repeats put a Plotly traceback on the page."""
    app = start_app(sample=sample_data.DEFAULT_SAMPLE, strategies=",".join(["range"] * 150))
    assert app.multiselect(key="strategies.pick").value == ["range"]


def test_a_link_with_garbage_edits_shows_an_alert_not_a_traceback() -> None:
    packed = zlib.compress(b'[{"op": "set_partitions", "topic": "t0", "partitions": NaN}]')
    edits = base64.urlsafe_b64encode(packed).decode().rstrip("=")
    app = start_app(sample=sample_data.DEFAULT_SAMPLE, edits=edits, step="²")
    texts = [shown_text(e.value) for e in app.error]
    assert texts, "expected an alert for the link"


@GARBAGE
@given(st.one_of(st.binary(max_size=300), SCENARIO_TREES.map(render)), st.booleans())
def test_uploads_and_pastes_give_a_source_or_our_error(data: bytes | str, bom: bool) -> None:
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    data = b"\xef\xbb\xbf" + data if bom else data
    _ours(lambda: upload_source("upload.json", data))
    _ours(lambda: upload_source("paste", data.decode("utf-8", "surrogateescape")))


@GARBAGE
@given(st.one_of(st.text(max_size=200), JSON_TREES.map(render)))
def test_link_parameters_give_values_or_our_error(text: str) -> None:
    packed = base64.urlsafe_b64encode(zlib.compress(text.encode("utf-8", "surrogatepass")))
    for param in (text, packed.decode().rstrip("=")):
        _ours(lambda param=param: share.decode_edits(param))
        _ours(lambda param=param: share.parse_step(param))
        names = share.parse_strategies(param)
        assert len(names) == len(set(names)) <= share.MAX_SHARED_STRATEGIES


@GARBAGE
@given(st.lists(st.sampled_from(["range", "sticky", "x" * 100, "", " "]), max_size=400))
def test_strategy_lists_are_deduplicated_and_capped(names: list[str]) -> None:
    parsed = share.parse_strategies(",".join(names))
    assert len(parsed) == len(set(parsed)) <= share.MAX_SHARED_STRATEGIES
    assert all(name and name == name.strip() for name in parsed)


EDIT_OPS = st.sampled_from(
    [*whatif.SHAPING_OPS, *whatif.CHANGE_OPS, "add_members", "restart_member", "nope"]
)
EDITS = st.lists(
    st.builds(
        lambda op, fields: {"op": op, **fields},
        EDIT_OPS,
        st.dictionaries(
            st.sampled_from(
                ["member_id", "topics", "members", "topic", "partitions", "lags", "rates"]
            ),
            st.one_of(
                st.sampled_from(["C0", "C1", "t0", "t1", 3, 2_000_000, 10**30, -1, 1.5]),
                st.lists(st.sampled_from(["t0", "t1", "C0", "C9"]), max_size=3),
                st.dictionaries(st.sampled_from(["0", "1", "x"]), st.integers(-2, 10**7)),
                JSON_TREES,
            ),
            max_size=3,
        ),
    ),
    max_size=5,
)


@GARBAGE
@given(EDITS)
def test_random_edit_stacks_plan_or_fail_with_our_error(edits: list[dict[str, object]]) -> None:
    """Edits as a link restores them (through the gate), then planned on the default sample."""
    scenario = sample_data.load_sample(sample_data.DEFAULT_SAMPLE).scenario
    assert scenario is not None
    text = render(edits).encode("utf-8", "surrogatepass")
    param = base64.urlsafe_b64encode(zlib.compress(text)).decode().rstrip("=")
    decoded = _ours(lambda: share.decode_edits(param))
    if decoded is None:
        return
    planned = _ours(lambda: whatif.plan(scenario, decoded))  # type: ignore[arg-type]
    if planned is not None:
        after = planned.after  # type: ignore[attr-defined]
        assert sum(topic.partitions for topic in after.topics) <= 5_000_000


def test_edits_beyond_the_limits_are_refused_in_the_projects_words() -> None:
    """Before: *Add member* took a 10,000-character id and *Grow a topic* any count."""
    scenario = sample_data.load_sample(sample_data.DEFAULT_SAMPLE).scenario
    assert scenario is not None
    topic = scenario.topics[0].name
    for edit in (
        {"op": "add_member", "member_id": "x" * 10_000},
        {"op": "set_partitions", "topic": topic, "partitions": 50_000_000},
    ):
        try:
            whatif.plan(scenario, [edit])
        except Exception as refused:
            assert is_ours(refused) and ("4,096" in str(refused) or "1,000,000" in str(refused))
        else:
            raise AssertionError(f"{edit['op']} beyond the limits was accepted")
