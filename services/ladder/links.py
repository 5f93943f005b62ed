"""Owners whose bots never meet on a ladder (pure): one owner's bots, and the bots of accounts
linked to each other, made from one address (an IPv6 /64) within a short time
(``TRUCO_LADDER_LINK_WINDOW_S``): one person's accounts, as far as the platform can tell. One
address can make five accounts an hour; without this, their bots could be fed to one another
(issue 33: four bots of two such accounts conceded to one target, 12 of 12).

Links are pairs, not groups: two accounts made a month apart from one shared address (a
university's) are not linked through a third made between them."""

from __future__ import annotations

from collections.abc import Collection, Iterable

OwnerPair = tuple[int, int]


def owner_pair(a: int, b: int) -> OwnerPair:
    return (a, b) if a < b else (b, a)


def kept_apart(a: int, b: int, linked: Collection[OwnerPair]) -> bool:
    """Whether bots of owners ``a`` and ``b`` may never meet: one owner, or linked owners."""
    return a == b or owner_pair(a, b) in linked


def linked_to(owner: int, linked: Iterable[OwnerPair]) -> set[int]:
    """The owners linked to ``owner``."""
    return {b if a == owner else a for a, b in linked if owner in (a, b)}
