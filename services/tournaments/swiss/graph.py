"""Candidate edges for the Swiss matching: the complete graph, or a sparse one for big fields.

The sparse graph keeps, for every player:

* inside its score group, the ``window`` nearest players of each mano class (wants mano / wants
  not / indifferent) around its Dutch partners (``pos ± size//2``), skipping past opponents;
* towards each of the next ``reach`` groups below, the bottom ``2·window`` players of its group
  against the top ``2·window`` of the other group (the only players the float tiers prefer);
  and, when C.3 forces ``k > 1`` crossings of the boundary (two players who must both be mano, or
  both not, cannot meet: :func:`~services.tournaments.swiss.certificate.needed_crossings`),
  for each two C.3 classes that may meet (absolutely mano / absolutely not / free), the bottom
  ``max(2·window + k, 128)`` of one class above against the top as many of the other below:
  the surplus side's floaters then find their legal partners below (128: twice the distance
  past which the rank tier is capped and every float of a class costs the same).

Rematch edges never exist. :mod:`services.tournaments.swiss.pairing` widens ``window`` and ``reach`` only
for the score groups whose pairing could not be certified optimal, up to the complete graph; when
the matching had to break C.3 (or leave a player out) for want of legal edges, every group's
window is doubled instead (the repair is an alternating path that can run through any group).
A wider graph is a superset of the narrower one, so a certified pairing stays the complete
graph's (the certificate, not the graph, carries the optimality argument).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Sequence
from itertools import combinations

from services.tournaments.swiss.certificate import needed_crossings
from services.tournaments.swiss.field import Field
from services.tournaments.swiss.weights import RANK_CAP

DEFAULT_WINDOW = 16
CAP_RADIUS = math.isqrt(RANK_CAP)  # 64: rank distances beyond it are all capped


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


def _by_class(field: Field, members: range) -> dict[int, list[int]]:
    classes: dict[int, list[int]] = {}
    for i in members:
        classes.setdefault(field.c3_side(i), []).append(i)
    return classes


def _cross_edges(
    field: Field, g: int, h: int, width: int, extra: int, out: set[tuple[int, int]]
) -> None:
    """The bottom ``width`` of group ``g`` against the top ``width`` of group ``h``; and, for
    every two C.3 classes that may meet, the bottom ``width + extra`` of that class in ``g``
    against the top ``width + extra`` of the other in ``h`` (``extra``: the crossings C.3
    forces, :func:`~services.tournaments.swiss.certificate.needed_crossings`, so that the
    players of a surplus side find partners of the other side below)."""
    upper = range(max(field.starts[g], field.starts[g + 1] - width), field.starts[g + 1])
    lower = range(field.starts[h], min(field.starts[h + 1], field.starts[h] + width))
    out.update((i, j) for i in upper for j in lower if not field.played(i, j))
    if extra <= 1:
        return  # parity alone: any player may cross, the plain window serves
    # past RANK_CAP's radius every float costs the same on the rank tier (the jitter then picks
    # among the whole class): at least that many of each class, so one solve mostly suffices
    wide = max(width + extra, 2 * CAP_RADIUS)
    above = _by_class(field, range(field.starts[g], field.starts[g + 1]))
    below = _by_class(field, range(field.starts[h], field.starts[h + 1]))
    for side_up, ups in above.items():
        for side_down, downs in below.items():
            if side_up and side_up == side_down:
                continue  # a clash: C.3 forbids it
            out.update((i, j) for i in ups[-wide:] for j in downs[:wide] if not field.played(i, j))


def sparse_edges(
    field: Field, windows: Sequence[int], reaches: Sequence[int]
) -> list[tuple[int, int]]:
    """The sparse candidate graph with a ``window`` and a ``reach`` per score group."""
    out: set[tuple[int, int]] = set()
    groups = field.group_count
    forced = needed_crossings(field, field.bye_group() if field.size % 2 else None)
    for g in range(groups):
        _group_edges(field, g, windows[g], out)
        for h in range(g + 1, min(groups, g + 1 + reaches[g])):
            width = 2 * max(windows[g], windows[h])
            _cross_edges(field, g, h, width, max(forced[g:h]), out)
    return sorted(out)


def is_complete(field: Field, windows: Sequence[int], reaches: Sequence[int]) -> bool:
    """Whether these parameters already give every edge of the complete graph."""
    groups = field.group_count
    return all(
        windows[g] >= field.group_size(g) and reaches[g] >= groups - 1 - g for g in range(groups)
    )
