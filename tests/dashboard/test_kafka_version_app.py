"""The dashboard's Kafka version selector: shown for a version-dependent strategy, default the
newest, and the comparison follows the picked release (the core answers, through evaluate)."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from assignors import KAFKA_VERSIONS, NEWEST_KAFKA_VERSION, evaluate
from sample_data import load_sample
from tests.dashboard import plotly_spec
from tests.dashboard.app_session import assert_no_exception, start_app

SAMPLE = "lag-aware-worked-example"
SELECTOR = "strategies.kafka_version"
STREAMS_SELECTOR = "streams.kafka_version"


def _moved(version: str | None) -> int:
    scenario = load_sample(SAMPLE).scenario
    assert scenario is not None
    outcome = evaluate(scenario, [], ["uniform"], kafka_version=version).strategies[0]
    return outcome.metrics.movement.moved_count


def test_selector_follows_the_strategies_and_changes_the_answer() -> None:
    # The sample's group answers apart under the two releases (3.9 moves a partition).
    assert _moved(None) != _moved("3.9")
    app = start_app(sample=SAMPLE)
    app.multiselect(key="strategies.pick").set_value(["roundrobin"]).run()
    assert_no_exception(app)
    assert not [box for box in app.selectbox if box.key == SELECTOR]

    app.multiselect(key="strategies.pick").set_value(["range", "uniform"]).run()
    assert_no_exception(app)
    selector = app.selectbox(key=SELECTOR)
    assert selector.value == NEWEST_KAFKA_VERSION
    assert selector.options == list(reversed(KAFKA_VERSIONS))
    newest = plotly_spec.comparison(app)["uniform"]["partitions moved"]
    assert newest == str(_moved(None))

    app.selectbox(key=SELECTOR).set_value("3.9").run()
    assert_no_exception(app)
    assert plotly_spec.comparison(app)["uniform"]["partitions moved"] == str(_moved("3.9"))
    assert app.selectbox(key=SELECTOR).value == "3.9"

    # A line uniform did not exist in: range still answers, uniform says which line has it.
    app.selectbox(key=SELECTOR).set_value("3.2").run()
    assert_no_exception(app)
    shown = " ".join(str(box.value) for box in app.warning)
    assert "uniform cannot run" in shown and "first release line that has it is 3.7" in shown
    assert "range" in plotly_spec.comparison(app)


def test_a_link_carries_the_kafka_version() -> None:
    app = start_app(sample=SAMPLE, strategies="range,uniform", kafka="3.9")
    assert app.selectbox(key=SELECTOR).value == "3.9"
    assert plotly_spec.comparison(app)["uniform"]["partitions moved"] == str(_moved("3.9"))
    app.selectbox(key=SELECTOR).set_value(NEWEST_KAFKA_VERSION).run()
    assert_no_exception(app)
    assert "kafka" not in app.query_params  # the newest is the default: no parameter
    app.selectbox(key=SELECTOR).set_value("3.9").run()
    assert_no_exception(app)
    assert app.query_params["kafka"] == "3.9"  # the address bar carries the pick
    refused = start_app(sample=SAMPLE, strategies="uniform", kafka="2.8")
    assert "Kafka version was not restored" in " ".join(e.value for e in refused.error)
    assert refused.selectbox(key=SELECTOR).value == NEWEST_KAFKA_VERSION


#: Answered by Kafka's StickyTaskAssignor: 4.4.0 moves one active task (0_0 to c), 3.9.2 two
#: (its quota of 1 x (3 // 4) = 0 keeps nothing back: 0_1 to b, 0_2 to c).
STREAMS = {
    "name": "Three tasks, four threads",
    "tasks": [{"id": "0_0"}, {"id": "0_1"}, {"id": "0_2"}],
    "clients": [
        {
            "process_id": f"00000000-0000-0000-0000-00000000000{name}",
            "capacity": threads,
            "prev_active": ran,
        }
        for name, threads, ran in (("a", 1, ["0_0", "0_1"]), ("b", 1, ["0_2"]), ("c", 2, []))
    ],
}


def _sticky_moves(app: AppTest) -> int:
    table = app.dataframe[1].value
    return int(table.loc[table["assignor"] == "streams-sticky", "active tasks moved"].iloc[0])


def test_streams_view_selector_reproduces_kafka_39() -> None:
    app = start_app()
    app.radio(key="source.kind").set_value("Upload").run()
    app.file_uploader(key="source.upload").upload(
        "streams.json", json.dumps(STREAMS).encode(), "application/json"
    ).run()
    assert_no_exception(app)
    assert app.selectbox(key=STREAMS_SELECTOR).value == NEWEST_KAFKA_VERSION
    assert _sticky_moves(app) == 1
    app.selectbox(key=STREAMS_SELECTOR).set_value("3.9").run()
    assert_no_exception(app)
    assert _sticky_moves(app) == 2


def test_the_streams_views_kafka_version_is_in_its_address_bar() -> None:
    """Found by the generated runs (issue 36): the Kafka Streams page wrote its address bar
    before its Kafka version picker ran, so after a pick the link still named the release
    picked before (opened, it showed the newest while the page showed 3.9)."""
    app = start_app(sample="streams-new-instance")
    app.selectbox(key=STREAMS_SELECTOR).set_value("3.9").run()
    assert_no_exception(app)
    assert app.query_params["kafka"] == "3.9"
    again = start_app(**dict(app.query_params))
    assert again.selectbox(key=STREAMS_SELECTOR).value == "3.9"


def test_a_line_a_walkthrough_step_cannot_answer_falls_back_to_the_newest() -> None:
    # Found by the generated UI run: a lesson's walkthrough step runs a strategy that refuses
    # the picked Kafka line (then the eager-vs-cooperative lesson with 3.0, when
    # cooperative-sticky refused lines before 3.5; it answers every line now). Here the KIP-848
    # lesson's step runs uniform, which refuses 3.7: the page says so and answers as the
    # newest line, instead of "The scenario cannot be shown" (and no edit of the user's is
    # undone for it).
    app = start_app(sample="lesson-kip848-consumer-protocol")
    app.button(key="teach.start").click().run()
    assert_no_exception(app)
    app.selectbox(key=SELECTOR).set_value("3.7").run()
    assert_no_exception(app)
    assert not app.error, [box.value for box in app.error]
    [said] = [w.value for w in app.warning if "cannot be shown here" in w.value]
    assert said.startswith("Kafka 3.7 cannot be shown here") and "3.8" in said
    assert app.session_state["ae.kafka_version"] is None
    app.run()  # the next run's version box shows what the page answers as
    assert app.selectbox(key=SELECTOR).value == NEWEST_KAFKA_VERSION
