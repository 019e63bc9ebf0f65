"""Shareable links and downloads: pure functions, no Streamlit.

A link restores a sample scenario, the picked strategies and the what-if edits through these
query parameters:

* ``sample``: the sample's name,
* ``step`` (optional): how many of the sample's walkthrough steps the scenario has behind it,
* ``strategies``: comma-separated strategy names,
* ``kafka`` (optional): the Kafka release the version-dependent strategies reproduce (added by
  :func:`dashboard.panels.source_panel.link_params` when it is not the newest, and for the newest
  too when the restored scenario would open with another: its own ``kafka_version``, e.g. a live
  cluster's),
* ``edits``: the edits as compact JSON, zlib-compressed, URL-safe base64 without padding; each
  :func:`restore_edits` checks each on the way in (:func:`dashboard.model.whatif.check_edit`: the
  core's one change format), so a link made before and one made now restore alike.

Only sample sources can be shared this way (an upload or a cluster snapshot is not on the other
person's machine); exports of the scenario itself are JSON files without any secret, since a
scenario never holds connection settings.
"""

from __future__ import annotations

import base64
import binascii
import csv
import io
import json
import zlib
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from assignors import (
    MAX_CHANGES,
    AssignmentExplorerError,
    Scenario,
    TopicPartition,
    decode_json,
    scenario_to_json,
)
from dashboard.model import whatif

#: The longest edits parameter a link restores (compressed form); longer ones are refused.
MAX_EDITS_PARAM = 16_384
#: The most bytes the edits parameter may inflate to.
MAX_EDITS_JSON_BYTES = 1_000_000
#: The most strategies a link restores (after dropping repeats); the rest are ignored.
MAX_SHARED_STRATEGIES = 32


class ShareLinkError(AssignmentExplorerError, ValueError):
    """A shared link's query parameters cannot be restored; the message says which and why."""


def encode_edits(edits: Sequence[Mapping[str, Any]]) -> str:
    """Edits -> the ``edits`` query parameter."""
    raw = json.dumps(list(edits), separators=(",", ":"), sort_keys=True).encode("utf-8")
    return base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")


def unpack(param: str, what: str, limit: int) -> bytes:
    """A packed parameter (URL-safe base64 of zlib data, padding optional) -> its bytes, at most
    ``limit`` of them; :class:`ShareLinkError` naming the parameter ``what`` when it is damaged
    (any character outside base64's, non-ASCII included, or data zlib cannot read) or too big."""
    try:
        packed = base64.urlsafe_b64decode(param + "=" * (-len(param) % 4))
        inflater = zlib.decompressobj()
        data = inflater.decompress(packed, limit + 1)
    except (binascii.Error, zlib.error, ValueError) as error:
        raise ShareLinkError(f"the link's {what} parameter is damaged ({error})") from None
    if len(data) > limit or inflater.unconsumed_tail:
        raise ShareLinkError(f"the link's {what} parameter unpacks to more than {limit:,} bytes")
    return data


def decode_edits(param: str) -> list[dict[str, Any]]:
    """The ``edits`` query parameter -> edits; :class:`ShareLinkError` if it is damaged."""
    if len(param) > MAX_EDITS_PARAM:
        raise ShareLinkError(
            f"the link's edits parameter is {len(param):,} characters; at most {MAX_EDITS_PARAM:,}"
        )
    text = unpack(param, "edits", MAX_EDITS_JSON_BYTES)
    try:
        value = decode_json(text, "the link's edits parameter", max_bytes=MAX_EDITS_JSON_BYTES)
    except AssignmentExplorerError as error:
        raise ShareLinkError(f"the link's edits parameter is damaged: {error}") from None
    if not isinstance(value, list) or not all(isinstance(item, dict) for item in value):
        raise ShareLinkError("the link's edits parameter is not a list of edits")
    if len(value) > MAX_CHANGES:
        raise ShareLinkError(f"the link holds {len(value):,} edits; at most {MAX_CHANGES:,}")
    return value


def restore_edits(param: str) -> list[dict[str, Any]]:
    """The ``edits`` query parameter -> edits checked as the dashboard applies them: at most
    :data:`~assignors.MAX_CHANGES`, each a filter or a change in the core's one JSON form
    (:func:`dashboard.model.whatif.check_edit`); :class:`ShareLinkError` naming the first bad
    one."""
    edits = decode_edits(param)
    if len(edits) > MAX_CHANGES:
        raise ShareLinkError(f"the link holds {len(edits):,} edits; at most {MAX_CHANGES:,}")
    added = 0
    for index, edit in enumerate(edits):
        try:
            whatif.check_edit(edit, index)
        except AssignmentExplorerError as error:
            raise ShareLinkError(f"the link's edits cannot be restored: {error}") from None
        added += whatif.members_added(edit)
        if added > whatif.MAX_ADDED_MEMBERS:
            raise ShareLinkError(whatif.too_many_added(added, f"edit {index + 1}"))
    return edits


def parse_step(param: str) -> int:
    """The ``step`` query parameter -> walkthrough steps behind the scenario (>= 0)."""
    if not (param.isascii() and param.isdigit()) or len(param) > 4:
        raise ShareLinkError(f"the link's step parameter must be a step number, got {param!r}")
    return int(param)


def share_params(
    sample: str,
    strategies: Sequence[str],
    edits: Sequence[Mapping[str, Any]],
    step: int = 0,
) -> dict[str, str]:
    """The query parameters that restore this view (``step``: walkthrough steps behind it)."""
    params = {"sample": sample}
    if step:
        params["step"] = str(step)
    return {**params, **choice_params(strategies, edits)}


def choice_params(strategies: Sequence[str], edits: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The ``strategies`` and ``edits`` parameters (each left out when empty)."""
    params = {}
    if strategies:
        params["strategies"] = ",".join(strategies)
    if edits:
        params["edits"] = encode_edits(edits)
    return params


def share_query(
    sample: str,
    strategies: Sequence[str],
    edits: Sequence[Mapping[str, Any]],
    step: int = 0,
) -> str:
    """``?sample=...&step=...&strategies=...&edits=...`` for appending to the app's address."""
    return "?" + urlencode(share_params(sample, strategies, edits, step))


def parse_strategies(param: str | None) -> list[str]:
    """The ``strategies`` query parameter -> names: empty entries and repeats dropped, at most
    :data:`MAX_SHARED_STRATEGIES`, in the order first named."""
    if not param:
        return []
    names = dict.fromkeys(name.strip() for name in param[:65_536].split(",") if name.strip())
    return list(names)[:MAX_SHARED_STRATEGIES]


def scenario_download(scenario: Scenario) -> str:
    """The edited scenario as a JSON file's text (the project's scenario format)."""
    return json.dumps(scenario_to_json(scenario), indent=2) + "\n"


def assignment_csv(assignments: Mapping[str, Mapping[str, Sequence[TopicPartition]]]) -> str:
    """``strategy,member,topic,partition`` rows for every named assignment."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["strategy", "member", "topic", "partition"])
    for name, assignment in assignments.items():
        for member, partitions in assignment.items():
            for tp in partitions:
                writer.writerow([name, member, tp.topic, tp.partition])
    return out.getvalue()


def movement_rows(
    before: Mapping[str, Sequence[TopicPartition]], after: Mapping[str, Sequence[TopicPartition]]
) -> list[dict[str, str | int]]:
    """One row per partition whose owner changes: topic, partition, from, to."""
    owner_before = {tp: member for member, tps in before.items() for tp in tps}
    owner_after = {tp: member for member, tps in after.items() for tp in tps}
    rows: list[dict[str, str | int]] = []
    for tp in sorted(set(owner_before) | set(owner_after)):
        previous = owner_before.get(tp)
        following = owner_after.get(tp)
        if previous != following:
            rows.append(
                {
                    "topic": tp.topic,
                    "partition": tp.partition,
                    "from": previous or "(nobody)",
                    "to": following or "(nobody)",
                }
            )
    return rows


def movement_csv(movements: Mapping[str, Sequence[Mapping[str, str | int]]]) -> str:
    """``strategy,topic,partition,from,to,kind`` rows for every strategy's movement (``kind``:
    moved, newly assigned, dropped; empty for rows that do not say)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["strategy", "topic", "partition", "from", "to", "kind"])
    for name, rows in movements.items():
        for row in rows:
            writer.writerow(
                [name, row["topic"], row["partition"], row["from"], row["to"], row.get("kind", "")]
            )
    return out.getvalue()


#: The longest ``scenario`` parameter a link carries (compressed form): an uploaded or cluster
#: scenario larger than this gets no link (download its JSON instead). 16,384 characters stay
#: well inside what browsers and Streamlit's server accept in an address.
MAX_SCENARIO_PARAM = 16_384
#: The most a ``scenario`` parameter may unpack to.
MAX_SCENARIO_TEXT = 2_000_000


def encode_scenario(scenario: Scenario) -> str | None:
    """A scenario (the project's format, never connection settings) as the ``scenario`` query
    parameter; ``None`` when it is longer than :data:`MAX_SCENARIO_PARAM`."""
    raw = json.dumps(scenario_to_json(scenario), separators=(",", ":")).encode("utf-8")
    packed = base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=")
    return packed if len(packed) <= MAX_SCENARIO_PARAM else None


def decode_scenario_text(param: str) -> str:
    """The ``scenario`` query parameter -> the scenario's JSON text (parse it with the loader);
    :class:`ShareLinkError` when it is too long or damaged."""
    if len(param) > MAX_SCENARIO_PARAM:
        raise ShareLinkError(
            f"the link's scenario is {len(param):,} characters; at most {MAX_SCENARIO_PARAM:,}"
        )
    try:
        return unpack(param, "scenario", MAX_SCENARIO_TEXT).decode("utf-8")
    except UnicodeDecodeError as error:
        raise ShareLinkError(f"the link's scenario parameter is damaged ({error})") from None


def scenario_params(
    encoded: str, strategies: Sequence[str], edits: Sequence[Mapping[str, Any]]
) -> dict[str, str]:
    """The query parameters of a link that carries its scenario (an upload or a group)."""
    return {"scenario": encoded, **choice_params(strategies, edits)}
