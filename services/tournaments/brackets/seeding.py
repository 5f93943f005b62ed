"""Standard knockout seeding: 1 v 16, 8 v 9, ... so the top seeds can only meet late."""

from __future__ import annotations


def bracket_size(entrants: int) -> int:
    """The smallest power of two holding ``entrants`` (at least 2)."""
    size = 2
    while size < entrants:
        size *= 2
    return size


def seed_order(size: int) -> list[int]:
    """Seeds in bracket-line order for a power-of-two ``size``: for 8, 1 8 4 5 2 7 3 6.

    Built by doubling: each seed ``s`` of the smaller bracket is followed by ``2·len + 1 - s``.
    """
    if size < 2 or size & (size - 1):
        raise ValueError(f"bracket size must be a power of two >= 2, not {size}")
    order = [1]
    while len(order) < size:
        total = 2 * len(order) + 1
        order = [x for s in order for x in (s, total - s)]
    return order
