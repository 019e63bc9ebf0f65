"""What users bring to the dashboard's other sources, generated for the UI state machine
(:mod:`tests.dashboard.test_generated_ui`): scenario files to upload, ``kafka-consumer-groups.sh
--describe`` listings to paste, bootstrap addresses nothing answers at.

Valid scenario files come from the core's own generator (:func:`tests.assignors.test_scenario_io.
scenarios`, the round-trip property's groups) and the bundled samples; malformed ones from the
input gate's garbage (:mod:`tests.garbage`) and from damaged valid files (cut short, wrong types,
not UTF-8, empty, a partition count or a size over the limits, an unknown strategy). Listings are
tables laid out as the tool prints them, from generated rows, and damaged copies of them.

Whether the core takes an input is not guessed here: the rules ask the function the widget calls
(``sources.upload_source``, ``describe_source.describe_source``), and check what the page does
with its answer.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

import sample_data
from assignors import scenario_to_json
from assignors.io.scenario import MAX_FILE_BYTES
from tests import garbage
from tests.assignors.test_scenario_io import scenarios
from tests.ports import free_port

SAMPLE_FILES = sorted(sample_data.SAMPLE_DIRECTORY.glob("*.json"))

#: File names a user's files have: plain, with spaces, unicode and markup-like text.
FILE_NAMES = st.one_of(
    st.sampled_from(["group.json", "my group.json", "**x**.json", "<b>x</b>.json", "é.json"]),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40).map(
        lambda stem: stem.replace("/", "_") + ".json"
    ),
)

VALID_FILES = st.one_of(
    scenarios().map(lambda scenario: json.dumps(scenario_to_json(scenario)).encode()),
    st.sampled_from(SAMPLE_FILES).map(lambda path: path.read_bytes()),
)


def _damaged(valid: bytes, how: str) -> bytes:
    """``valid`` made unreadable in one way a user's file is."""
    document = json.loads(valid)
    if how == "cut short":
        return valid[: max(1, len(valid) // 2)]
    if how == "wrong types":
        return json.dumps({**document, "topics": "orders", "members": 3}).encode()
    if how == "unknown strategy":
        return json.dumps({**document, "assignor": "no-such-strategy"}).encode()
    if how == "too many partitions":
        topics = [{"name": "orders", "partitions": 2_000_000}]
        return json.dumps({**document, "topics": topics}).encode()
    if how == "UTF-16":
        return valid.decode().encode("utf-16")
    if how == "Latin-1":
        return b'{"name": "caf\xe9", "topics": [], "members": []}'
    return b""  # empty


class Oversized(bytes):
    """A file's bytes, shown by their size (a failing run prints its steps)."""

    def __repr__(self) -> str:
        return f"Oversized(<{len(self):,} bytes>)"


#: Files a user may pick by mistake or that broke on the way.
MALFORMED_FILES = st.one_of(
    garbage.SCENARIO_TREES.map(lambda tree: garbage.render(tree).encode("utf-8", "surrogatepass")),
    st.builds(
        _damaged,
        st.sampled_from(SAMPLE_FILES).map(lambda path: path.read_bytes()),
        st.sampled_from(
            [
                "cut short",
                "wrong types",
                "unknown strategy",
                "too many partitions",
                "UTF-16",
                "Latin-1",
                "empty",
            ]
        ),
    ),
    # Over the size limit (the widget's too, in a browser): spaces, made when drawn.
    st.builds(lambda: Oversized(b" " * (MAX_FILE_BYTES + 1))),
    st.binary(max_size=64),
)

UPLOADS = st.tuples(FILE_NAMES, VALID_FILES | MALFORMED_FILES)

# -- kafka-consumer-groups.sh --describe ----------------------------------------------------

#: Names as Kafka allows them in a listing's cells (no spaces: cells are split on them).
_NAMES = st.text("abcxyz-_.0123456789", min_size=1, max_size=12)
_OFFSETS = st.integers(0, 10**12)
_HEADER = (
    "GROUP",
    "TOPIC",
    "PARTITION",
    "CURRENT-OFFSET",
    "LOG-END-OFFSET",
    "LAG",
    "CONSUMER-ID",
    "HOST",
    "CLIENT-ID",
)


@st.composite
def _offset_rows(draw: st.DrawFn) -> list[tuple[str, ...]]:
    """The rows of one group's ``--describe`` offsets table (a partition per row)."""
    group = draw(_NAMES)
    topics = draw(st.lists(_NAMES, min_size=1, max_size=3, unique=True))
    consumers = draw(st.lists(_NAMES, min_size=1, max_size=4, unique=True))
    rows: list[tuple[str, ...]] = []
    for topic in topics:
        for partition in range(draw(st.integers(1, 6))):
            end = draw(_OFFSETS)
            committed = draw(st.none() | st.integers(0, end))
            owner = draw(st.none() | st.sampled_from(consumers))
            rows.append(
                (
                    group,
                    topic,
                    str(partition),
                    "-" if committed is None else str(committed),
                    str(end),
                    "-" if committed is None else str(end - committed),
                    "-" if owner is None else f"{owner}-0c1d7a1e",
                    "-" if owner is None else "/10.0.0.1",
                    "-" if owner is None else owner,
                )
            )
    return rows


def _table(rows: list[tuple[str, ...]]) -> str:
    """Rows under the header, column-aligned as the tool prints them."""
    lines = [_HEADER, *rows]
    widths = [max(len(line[column]) for line in lines) for column in range(len(_HEADER))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


def _damage_listing(text: str, where: int, with_what: str) -> str:
    """``text`` with one cell of one row (after the header) replaced by ``with_what``."""
    lines = text.splitlines()
    row = 1 + where % max(1, len(lines) - 1)
    if row >= len(lines):
        return text + "\n" + with_what
    cells = lines[row].split()
    cells[2 + where % (len(cells) - 2)] = with_what  # a number column or a name
    lines[row] = "  ".join(cells)
    return "\n".join(lines)


WELL_FORMED_LISTINGS = _offset_rows().map(_table)
MALFORMED_LISTINGS = st.one_of(
    st.builds(
        _damage_listing,
        WELL_FORMED_LISTINGS,
        st.integers(0, 10**6),
        st.sampled_from(["zero", "-5", "1.5", "9" * 30, "<b>x</b>", "**x**"]),
    ),
    # Any text of the listings' characters (the reader's own property uses the same alphabet).
    st.text(st.sampled_from(list("GROUPTOPIC-ARN 0123456789\n:;,()#orders-x")), max_size=400),
    st.just(""),
)

#: Partition counts as a user types them: ``topic:N`` pairs, and mistakes.
PARTITION_COUNTS = st.one_of(
    st.just(""),
    st.lists(st.tuples(_NAMES, st.integers(1, 64)), max_size=3).map(
        lambda pairs: ", ".join(f"{topic}:{count}" for topic, count in pairs)
    ),
    st.sampled_from(["orders:many", "orders", ":4", "orders:0", "orders:2000000", ",,"]),
)

# -- bootstrap servers nothing answers at ---------------------------------------------------


def closed_port_address() -> str:
    """``127.0.0.1:<port>`` on a port nothing listens on right now."""
    return f"127.0.0.1:{free_port()}"


#: Bootstrap servers that reach no broker: a closed port, and malformed ``host:port`` text.
BAD_ADDRESSES = st.one_of(
    st.builds(closed_port_address),
    st.sampled_from(
        [
            "",
            ",",
            ":9092",
            "127.0.0.1:",
            "127.0.0.1:abc",
            "127.0.0.1:99999",
            "127.0.0.1:0",
            "host:1:2",
            "a b:9092",
            "<b>x</b>:9092",
            "no-such-host.invalid:9092",
        ]
    ),
    st.text(st.sampled_from(list("abc.:,0123456789 ")), max_size=30),
)
