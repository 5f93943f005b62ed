"""The exact graph: every edge that some optimal pairing may use, once the certificate's bounds
are known to be reachable.

:mod:`services.tournaments.swiss.certificate` bounds tiers 1-4 from below for *every* pairing:
no clash, the bye in the lowest group with an eligible player (``gL``), each boundary between
score groups crossed at least ``k_b`` times (:func:`needed_crossings`), no pair that skips a
group. Suppose some pairing reaches all of these bounds (it is *certified*). Then every
optimal pairing of the complete graph reaches them too (the tiers are lexicographic), so it
uses none of these edges, and they can be left out without changing the optimum:

* a rematch or a clash (tiers 1 and hard);
* a pair that skips a group, or that crosses a boundary with ``k_b = 0``;
* a bye outside ``gL``;
* where C.3 makes a boundary *tight* on one side: say above it ``a`` players must have one side
  (``S``), ``o`` must have the other and ``f`` are free (the bye's empty seat counts), with
  ``s = a - o - f > 0``. Of the ``k`` pairs crossing, say ``x`` take an ``S`` player from above,
  and let ``NN`` count the pairs above with no ``S`` player; counting the non-``S`` players
  above gives ``x - NN = (s + k) / 2``, so ``NN <= (k - s) / 2`` and the non-``S`` players
  crossing, ``k - x``, are at most as many. When ``k - s <= 1`` both are 0: every pair wholly
  above the boundary has an ``S`` player (the bye's seat too: the bye goes to an ``S``
  player), and every pair crossing it takes an ``S`` player from above. The same holds below.

With most players under an absolute side preference (every match's higher-ranked player
mano, say), the last rule holds at most boundaries and cuts the graph by another quarter.

:func:`exact_edges` gives that graph. Its optimum is the complete graph's optimum **when it
is certified** (the optimum over the complete graph lies in it, and it is a subgraph): a proof
on every tier, jitter included, where the sparse graph's windows carry tiers 5-8 only by the
property tests. When the optimum here is not certified nothing is proven, and the caller goes
on to the complete graph.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.tournaments.swiss.certificate import boundary_sides, needed_crossings
from services.tournaments.swiss.field import Field


@dataclass(frozen=True, slots=True)
class ExactGraph:
    edges: list[tuple[int, int]]  # (i, j), i < j, sorted
    byes: list[int]  # the players who may take the bye (empty for an even field)


def _tight_sides(field: Field, bye_group: int | None) -> tuple[list[int], list[int], list[int]]:
    """Per boundary: the crossings needed, and the side ``S`` every pair above (below) it must
    hold when that side is tight (0: not tight)."""
    needed = needed_crossings(field, bye_group)
    above_side, below_side = [], []
    for k, (above, below) in zip(needed, boundary_sides(field, bye_group), strict=True):
        above_side.append(above.surplus_side if k - above.surplus <= 1 else 0)
        below_side.append(below.surplus_side if k - below.surplus <= 1 else 0)
    return needed, above_side, below_side


def exact_edges(field: Field) -> ExactGraph:
    """The graph of the module's rules: valid only for a field whose optimum is certified."""
    bye_group = field.bye_group() if field.size % 2 else None
    needed, above_side, below_side = _tight_sides(field, bye_group)
    groups = field.group_count
    # the sides a pair must hold, by the lowest group it touches (pairs wholly above a tight
    # boundary) and by the highest (pairs wholly below one)
    inside_above: list[frozenset[int]] = [
        frozenset(s for s in above_side[g:] if s) for g in range(groups)
    ]
    inside_below: list[frozenset[int]] = [
        frozenset(s for s in below_side[:g] if s) for g in range(groups)
    ]
    side = [field.c3_side(i) for i in range(field.size)]
    group = field.group
    edges: list[tuple[int, int]] = []
    for g in range(groups):
        members = _by_side(range(field.starts[g], field.starts[g + 1]), side)
        _pairs(field, members, members, inside_above[g] | inside_below[g], edges)
        if g + 1 < groups and needed[g]:
            lower = _by_side(range(field.starts[g + 1], field.starts[g + 2]), side)
            up = {s: m for s, m in members.items() if not above_side[g] or s == above_side[g]}
            down = {s: m for s, m in lower.items() if not below_side[g] or s == below_side[g]}
            _pairs(field, up, down, inside_above[g + 1] | inside_below[g], edges)
    byes = [
        i
        for i in sorted(field.bye_value)
        if group[i] == bye_group
        and all(side[i] == s for s in inside_above[group[i]] | inside_below[group[i]])
    ]
    edges.sort()
    return ExactGraph(edges=edges, byes=byes)


def _by_side(members: range, side: list[int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {1: [], -1: [], 0: []}
    for i in members:
        out[side[i]].append(i)
    return out


def _pairs(
    field: Field,
    upper: dict[int, list[int]],
    lower: dict[int, list[int]],
    wanted: frozenset[int],
    out: list[tuple[int, int]],
) -> None:
    """Append the pairs of ``upper`` x ``lower`` (players by C.3 side; the same dict: the pairs
    of one group, each once) that are no rematch, no clash (two of one absolute side) and hold
    every side in ``wanted``."""
    same = upper is lower
    for su, ups in upper.items():
        for sd, downs in lower.items():
            if su and su == sd:
                continue  # a clash
            if any(su != s and sd != s for s in wanted):
                continue
            if same and su > sd:
                continue  # each unordered pair of classes once
            for i in ups:
                opponents = field.opponents[i]
                for j in downs:
                    if (same and su == sd and j <= i) or j in opponents:
                        continue
                    out.append((i, j) if i < j else (j, i))
