"""Candidate edges for the Swiss matching: the complete graph, or a sparse one for big fields.

The sparse graph keeps, for every player:

* inside its score group, the ``window`` nearest players of each mano class (wants mano / wants
  not / indifferent) around its Dutch partners (``pos ± size//2``), skipping past opponents;
* towards each of the next ``reach`` groups below, the bottom ``2·window`` players of its group
  against the top ``2·window`` of the other group (the only players the float tiers prefer).

Rematch edges never exist. :mod:`services.tournaments.swiss.pairing` widens ``window`` and ``reach`` only
for the score groups whose pairing could not be certified optimal, up to the complete graph.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterator, Sequence
from itertools import combinations

from services.tournaments.swiss.field import Field

DEFAULT_WINDOW = 16


def complete_edges(field: Field) -> list[tuple[int, int]]:
    """Every pair of players who have not met, ``(i, j)`` with ``i < j``."""
    return [(i, j) for i, j in combinations(range(field.size), 2) if not field.played(i, j)]


def _nearest(members: Sequence[int], target: int, count: int) -> Iterator[int]:
    """Up to ``count`` nearest to ``target`` (positions), closest first, ties low."""
    right = bisect.bisect_left(members, target)
    left = right - 1
    taken = 0
    while taken < count and (left >= 0 or right < len(members)):
        if right >= len(members) or (
            left >= 0 and target - members[left] <= members[right] - target
        ):
            yield members[left]
            left -= 1
        else:
            yield members[right]
            right += 1
        taken += 1


def _group_edges(field: Field, g: int, window: int, out: set[tuple[int, int]]) -> None:
    lo, hi = field.starts[g], field.starts[g + 1]
    size = hi - lo
    if size < 2:
        return
    if window >= size:
        out.update((i, j) for i, j in combinations(range(lo, hi), 2) if not field.played(i, j))
        return
    classes: dict[int, list[int]] = {}
    for p in range(size):
        classes.setdefault(field.players[lo + p].mano.side, []).append(p)
    half = size // 2
    for p in range(size):
        i = lo + p
        for target in (p + half, p - half):
            if not 0 <= target < size:
                continue
            for members in classes.values():
                found = 0
                for q in _nearest(members, target, size):
                    j = lo + q
                    if q == p or field.played(i, j):
                        continue
                    out.add((min(i, j), max(i, j)))
                    found += 1
                    if found == window:
                        break


def _cross_edges(field: Field, g: int, h: int, width: int, out: set[tuple[int, int]]) -> None:
    upper = range(max(field.starts[g], field.starts[g + 1] - width), field.starts[g + 1])
    lower = range(field.starts[h], min(field.starts[h + 1], field.starts[h] + width))
    out.update((i, j) for i in upper for j in lower if not field.played(i, j))


def sparse_edges(
    field: Field, windows: Sequence[int], reaches: Sequence[int]
) -> list[tuple[int, int]]:
    """The sparse candidate graph with a ``window`` and a ``reach`` per score group."""
    out: set[tuple[int, int]] = set()
    groups = field.group_count
    for g in range(groups):
        _group_edges(field, g, windows[g], out)
        for h in range(g + 1, min(groups, g + 1 + reaches[g])):
            _cross_edges(field, g, h, 2 * max(windows[g], windows[h]), out)
    return sorted(out)


def is_complete(field: Field, windows: Sequence[int], reaches: Sequence[int]) -> bool:
    """Whether these parameters already give every edge of the complete graph."""
    groups = field.group_count
    return all(
        windows[g] >= field.group_size(g) and reaches[g] >= groups - 1 - g for g in range(groups)
    )
