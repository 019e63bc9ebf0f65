"""Who may see what once users sign in: the ``[access]`` table of the operator's configuration
file, and the rules that read a signed-in user's groups against it.

The table (in the TOML file that ``ASSIGNMENT_EXPLORER_CONFIG`` names)::

    [access]
    groups_claim = "groups"          # the ID-token claim that holds the user's groups

    [access.pages]                   # a page's address name -> the groups that may open it
    live = ["kafka-ops"]
    fleet = ["kafka-ops", "sre"]

Invariants:

* Pure: data in, data out; no Streamlit, no file read (the session layer reads the file).
* A page the table does not name is open to every signed-in user; a named page only to users
  with at least one of its groups. An empty list is refused (it would read as "nobody" to one
  operator and "everybody" to another: leave the page out to open it).
* The same rule for clusters (:func:`allowed_clusters`): a cluster with no groups is open to
  every signed-in user, one with groups only to their members.
* Group names are compared exactly (case and spaces count), as the provider sends them.
* The rules apply only when a login is configured: without one there is no user to ask about
  and every page is open, as before there was a login.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

DEFAULT_GROUPS_CLAIM = "groups"


class AccessConfigError(ValueError):
    """The ``[access]`` table is malformed; the message says which key and what it may hold."""


@dataclass(frozen=True, slots=True)
class AccessRules:
    """The parsed ``[access]`` table. ``pages`` maps a page's address name to its groups (never
    empty); a page absent from it is open to every signed-in user."""

    groups_claim: str = DEFAULT_GROUPS_CLAIM
    pages: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


def parse_access(document: Mapping[str, Any], known_pages: Collection[str]) -> AccessRules:
    """The ``[access]`` table of a parsed TOML ``document`` (no table: the open defaults).

    ``known_pages`` are the page names a rule may name; any other name, key or value type
    raises :class:`AccessConfigError` with a message naming the key and what it may hold.
    """
    table = document.get("access", {})
    if not isinstance(table, Mapping):
        raise AccessConfigError("[access] must be a table")
    unknown = sorted(set(table) - {"groups_claim", "pages"})
    if unknown:
        raise AccessConfigError(
            f"[access] has unknown key(s) {', '.join(unknown)}: it may hold groups_claim and pages"
        )
    claim = table.get("groups_claim", DEFAULT_GROUPS_CLAIM)
    if not isinstance(claim, str) or not claim.strip():
        raise AccessConfigError("[access] groups_claim must be a claim name (a non-empty string)")
    return AccessRules(claim, _parse_pages(table.get("pages", {}), known_pages))


def _parse_pages(pages: Any, known_pages: Collection[str]) -> dict[str, tuple[str, ...]]:
    if not isinstance(pages, Mapping):
        raise AccessConfigError("[access.pages] must be a table of page = [groups]")
    parsed: dict[str, tuple[str, ...]] = {}
    for page, groups in pages.items():
        if page not in known_pages:
            raise AccessConfigError(
                f"[access.pages] names no page {page!r}: "
                f"the pages are {', '.join(sorted(known_pages))}"
            )
        parsed[page] = _group_list(groups, f"[access.pages] {page}")
    return parsed


def _group_list(groups: Any, where: str) -> tuple[str, ...]:
    if (
        not isinstance(groups, list | tuple)
        or not groups
        or not all(isinstance(group, str) and group for group in groups)
    ):
        raise AccessConfigError(
            f"{where} must be a non-empty list of group names "
            "(leave a page out to open it to every signed-in user)"
        )
    return tuple(groups)


def user_groups(claims: Mapping[str, Any], claim: str) -> frozenset[str]:
    """The groups in an ID token's ``claims`` under ``claim``: a list of strings (non-strings
    left out) or one string (one group, as some providers send a single group). Absent or of
    another type: no group."""
    value = claims.get(claim)
    if isinstance(value, str):
        return frozenset((value,))
    if isinstance(value, list | tuple):
        return frozenset(group for group in value if isinstance(group, str))
    return frozenset()


def may_open(groups: Collection[str], required: Iterable[str]) -> bool:
    """Whether a user in ``groups`` may open something restricted to ``required`` (nothing
    required: everyone may)."""
    required = tuple(required)
    return not required or any(group in groups for group in required)


def allowed_pages(
    groups: Collection[str], rules: AccessRules, pages: Iterable[str]
) -> tuple[str, ...]:
    """The names among ``pages`` (in their order) that a user in ``groups`` may open."""
    return tuple(page for page in pages if may_open(groups, rules.pages.get(page, ())))


def allowed_clusters(
    user_groups: Collection[str], clusters: Mapping[str, tuple[str, ...]]
) -> tuple[str, ...]:
    """The names of the ``clusters`` (name -> the groups that may use it, in the operator
    file's order) that a user in ``user_groups`` may see: those with no groups, and those
    sharing a group with the user. The order of ``clusters`` is kept."""
    return tuple(name for name, groups in clusters.items() if may_open(user_groups, groups))


#: The claims that name a user, most readable first (providers send different ones).
NAME_CLAIMS = ("name", "preferred_username", "email", "sub")


def display_name(claims: Mapping[str, Any]) -> str:
    """Who is signed in, in words: the first non-blank of :data:`NAME_CLAIMS` (as the provider
    sent it: the caller shows it as plain text), else "an unnamed account"."""
    for claim in NAME_CLAIMS:
        value = claims.get(claim)
        if isinstance(value, str) and value.strip():
            return value
    return "an unnamed account"
