"""Who may see what once users sign in (dashboard.model.access): the ``[access]`` table parsed
with messages that say what to fix, and pages and clusters filtered by the user's groups.

Specification: a page or cluster with no groups is open to every signed-in user; one with
groups only to users sharing at least one of them; order is kept; nothing else is let through.
"""

from __future__ import annotations

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dashboard.model.access import (
    AccessConfigError,
    AccessRules,
    allowed_clusters,
    allowed_pages,
    parse_access,
    user_groups,
)
from dashboard.views.pages import PAGES

PAGE_NAMES = tuple(spec.url_path for spec in PAGES)
GROUP = st.sampled_from(["ops", "sre", "dev", "Ops", "guests", "ops "])
GROUPS = st.frozensets(GROUP, max_size=4)
CLUSTERS = st.dictionaries(
    st.text(min_size=1, max_size=8), st.lists(GROUP, max_size=3, unique=True).map(tuple)
)


def test_worked_example_of_a_team_file() -> None:
    document = tomllib.loads(
        """
        [access]
        groups_claim = "roles"
        [access.pages]
        live = ["kafka-ops"]
        fleet = ["kafka-ops", "sre"]
        """
    )
    rules = parse_access(document, PAGE_NAMES)
    assert rules == AccessRules("roles", {"live": ("kafka-ops",), "fleet": ("kafka-ops", "sre")})
    everyone_else = tuple(name for name in PAGE_NAMES if name not in ("live", "fleet"))
    assert allowed_pages({"sre"}, rules, PAGE_NAMES) == tuple(
        name for name in PAGE_NAMES if name != "live"
    )
    assert allowed_pages({"kafka-ops"}, rules, PAGE_NAMES) == PAGE_NAMES
    assert allowed_pages(set(), rules, PAGE_NAMES) == everyone_else


def test_no_access_table_opens_everything() -> None:
    rules = parse_access({}, PAGE_NAMES)
    assert rules == AccessRules()
    assert allowed_pages(frozenset(), rules, PAGE_NAMES) == PAGE_NAMES


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ({"access": ["x"]}, "[access] must be a table"),
        ({"access": {"group_claim": "g"}}, "unknown key(s) group_claim"),
        ({"access": {"groups_claim": ""}}, "groups_claim must be a claim name"),
        ({"access": {"groups_claim": 3}}, "groups_claim must be a claim name"),
        ({"access": {"pages": ["live"]}}, "[access.pages] must be a table"),
        ({"access": {"pages": {"Live group": ["ops"]}}}, "names no page 'Live group'"),
        ({"access": {"pages": {"live": []}}}, "live must be a non-empty list"),
        ({"access": {"pages": {"live": "ops"}}}, "live must be a non-empty list"),
        ({"access": {"pages": {"live": ["ops", 1]}}}, "live must be a non-empty list"),
        ({"access": {"pages": {"live": [""]}}}, "live must be a non-empty list"),
    ],
)
def test_a_malformed_table_is_refused_with_what_to_fix(table: dict, message: str) -> None:
    with pytest.raises(AccessConfigError) as refused:
        parse_access(table, PAGE_NAMES)
    assert message in str(refused.value)


def test_an_unknown_page_lists_the_pages() -> None:
    with pytest.raises(AccessConfigError, match="the pages are classroom, deploy, explorer"):
        parse_access({"access": {"pages": {"admin": ["ops"]}}}, PAGE_NAMES)


@pytest.mark.parametrize(
    ("claims", "groups"),
    [
        ({"groups": ["ops", "dev"]}, {"ops", "dev"}),
        ({"groups": "ops"}, {"ops"}),
        ({"groups": ["ops", 7, None]}, {"ops"}),
        ({"groups": {"ops": True}}, set()),
        ({"roles": ["ops"]}, set()),
        ({}, set()),
    ],
)
def test_groups_read_from_the_claim(claims: dict, groups: set[str]) -> None:
    assert user_groups(claims, "groups") == groups


def test_clusters_worked_example() -> None:
    clusters = {"staging": (), "prod": ("kafka-ops",), "audit": ("sre", "kafka-ops")}
    assert allowed_clusters({"dev"}, clusters) == ("staging",)
    assert allowed_clusters({"sre"}, clusters) == ("staging", "audit")
    assert allowed_clusters({"kafka-ops", "dev"}, clusters) == ("staging", "prod", "audit")
    assert allowed_clusters(set(), {}) == ()
    # Exact names: a provider's "Kafka-Ops" is another group.
    assert allowed_clusters({"Kafka-Ops"}, clusters) == ("staging",)


@given(groups=GROUPS, clusters=CLUSTERS)
def test_a_cluster_is_shown_exactly_when_open_or_sharing_a_group(
    groups: frozenset[str], clusters: dict[str, tuple[str, ...]]
) -> None:
    shown = allowed_clusters(groups, clusters)
    assert shown == tuple(name for name in clusters if name in shown)  # the file's order
    for name, required in clusters.items():
        assert (name in shown) == (not required or bool(groups & set(required)))


@given(fewer=GROUPS, more=GROUPS, clusters=CLUSTERS)
def test_more_groups_never_see_less(
    fewer: frozenset[str], more: frozenset[str], clusters: dict[str, tuple[str, ...]]
) -> None:
    assert set(allowed_clusters(fewer, clusters)) <= set(allowed_clusters(fewer | more, clusters))


@given(groups=GROUPS, restricted=st.dictionaries(st.sampled_from(PAGE_NAMES), GROUPS.filter(bool)))
def test_pages_follow_the_same_rule(
    groups: frozenset[str], restricted: dict[str, frozenset[str]]
) -> None:
    table = {"access": {"pages": {page: sorted(need) for page, need in restricted.items()}}}
    rules = parse_access(table, PAGE_NAMES)
    shown = allowed_pages(groups, rules, PAGE_NAMES)
    as_clusters = {page: tuple(sorted(restricted.get(page, ()))) for page in PAGE_NAMES}
    assert shown == allowed_clusters(groups, as_clusters)
    assert set(PAGE_NAMES) - set(restricted) <= set(shown)  # unnamed pages stay open
