"""Minimum-cost perfect matching of an ordered list, on a sparse candidate graph for big lists.

Both steps of an individual 2v2 round (:mod:`services.tournaments.partnerships`) pair items that
stand in an order (the bots by standing, the partnerships by their summed places) at a cost
whose cheapest pairs are near each other in that order, once the pairs a rule forbids are left
aside (same owner, met before). The exact method matches over the complete graph: ``n²/2``
edges and a blossom matching that grew like ``n^2.5`` to ``n^3`` (1,000 bots: 12 s; 1,600:
25-55 s; 10,000 never finished).

For more than ``limits.exact`` items the list is matched block by block (``limits.block``
items of the order each: the blossom matching costs far more than linear time, as in
:mod:`services.tournaments.swiss.split`), each block on a sparse graph, as the 1v1 Swiss does
(:mod:`services.tournaments.swiss.graph`): every item keeps

* the ``window`` items after it in the order (a band: the band alone has a perfect matching,
  ``(0, 1), (2, 3), ...``, so the matching is always perfect);
* its ``window`` nearest *clean* items on each side (skipping past forbidden pairs, looking
  at most ``scan`` places away), so a forbidden pair is used only when no clean one is near;
* on each side, the first clean item at least ``2·window``, ``4·window``, ... places away (up
  to ``scan``): where a run of items forbids pairs among itself (one owner's bots standing
  together), these spread its items over the clean ones around it instead of funnelling
  them all to the few nearest;
* the ``extra`` pairs the caller names (round robin: this round's circle-method partners).

``certified`` then says whether a block's matching is as good as the exact method's on the
rule tiers (it reached a lower bound: no forbidden pair, or as few as the whole field forces).
If not, the window grows fourfold and the block is matched again, up to the complete graph for
blocks of at most :data:`WIDEN_LIMIT` items and up to :data:`MAX_WINDOW` beyond; then the
block doubles (the last block takes in the one before it) and starts again, up to
:data:`MAX_BLOCK` items (a field so crowded that the rules still fail there keeps the best
matching found). A block that cannot be certified whatever its matching (``feasible``: one
owner holds more than half of it) grows before any matching.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

import rustworkx as rx

Pair = tuple[int, int]

DEFAULT_WINDOW = 6
"""Band width and clean neighbours per side of the first attempt."""
MAX_WINDOW = 24
"""The widest sparse window on blocks longer than :data:`WIDEN_LIMIT`."""
SCAN_FACTOR = 16
"""How far (in windows) an item looks for its clean neighbours."""
EXACT_LIMIT = 128
"""Lists of at most this many items are matched on the complete graph at once."""
BLOCK = 256
"""Longer lists are matched block by block (blocks of the order, a block doubled while its
matching is not certified): a blossom matching costs far more than linear time."""
WIDEN_LIMIT = 256
"""Blocks of at most this many items widen up to the complete graph when not certified."""
MAX_BLOCK = 4096
"""A block stops growing at this size and keeps its best matching (only a field where one
owner has more than half of 4,096 neighbouring bots gets there)."""
_TOP = 1 << 62  # weight = _TOP - cost, so the maximum weight is the minimum cost


@dataclass(frozen=True, slots=True)
class Limits:
    """Where the exact method stops (``exact``) and how long a block is (``block``, even)."""

    exact: int = EXACT_LIMIT
    block: int = BLOCK


DEFAULT_LIMITS = Limits()


def candidate_edges(
    count: int, window: int, clean: Callable[[int, int], bool], extra: Iterable[Pair] = ()
) -> list[Pair]:
    """The sparse graph over items ``0..count-1`` (pairs ``(i, j)``, ``i < j``, sorted)."""
    out: set[Pair] = {(min(i, j), max(i, j)) for i, j in extra if i != j}
    scan = SCAN_FACTOR * window
    for i in range(count):
        out.update((i, j) for j in range(i + 1, min(count, i + 1 + window)))
        for step in (1, -1):
            _clean_from(i, i + step, step, window, scan, count, clean, out)
            far = 2 * window
            while far < count:  # spread: a run of forbidden pairs does not funnel every item
                _clean_from(i, i + step * far, step, 1, min(far, scan), count, clean, out)
                far *= 2
    return sorted(out)


def _clean_from(
    i: int,
    j: int,
    step: int,
    wanted: int,
    scan: int,
    count: int,
    clean: Callable[[int, int], bool],
    out: set[Pair],
) -> None:
    """Add up to ``wanted`` clean pairs of ``i`` from ``j`` on (direction ``step``), looking at
    no more than ``scan`` items."""
    found = 0
    end = j + step * scan
    while 0 <= j < count and found < wanted and j != end:
        if clean(i, j):
            out.add((min(i, j), max(i, j)))
            found += 1
        j += step


def matching(count: int, edges: Sequence[Pair], cost: Callable[[int, int], int]) -> list[Pair]:
    """Minimum-cost perfect matching of items ``0..count-1`` (count even) over ``edges``."""
    graph = rx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(count))
    graph.add_edges_from([(i, j, _TOP - cost(i, j)) for i, j in edges])
    found = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=_identity)
    pairs = sorted((min(u, v), max(u, v)) for u, v in found)
    if 2 * len(pairs) != count:  # pragma: no cover - every graph built here has a band
        raise RuntimeError("no perfect matching")
    return pairs


def min_cost_pairs(
    count: int,
    cost: Callable[[int, int], int],
    clean: Callable[[int, int], bool],
    certified: Callable[[range, list[Pair]], bool],
    *,
    feasible: Callable[[range], bool] = lambda items: True,
    extra: Iterable[Pair] = (),
    limits: Limits = DEFAULT_LIMITS,
) -> list[Pair]:
    """The pairs of the module docstring: exact up to ``limits.exact`` items, else block by
    block (a block of the order, doubled, or at the end joined with the one before, while
    ``certified`` refuses its matching), each sparse and widened until certified (or the
    widening stops). ``certified`` gets the block's items and their pairs; ``feasible`` says
    whether a block could be certified at all (else it grows before any matching)."""
    exact_limit, block = limits.exact, limits.block
    if count <= exact_limit:
        return matching(count, list(combinations(range(count), 2)), cost)
    wanted = sorted((min(i, j), max(i, j)) for i, j in extra if i != j)
    solved: list[tuple[int, list[Pair]]] = []  # (first item, pairs) per block
    lo = 0
    while lo < count:
        hi = _block_end(count, lo, block, block)
        while True:
            last_resort = hi - lo >= MAX_BLOCK or (hi == count and not solved)
            if last_resort or feasible(range(lo, hi)):
                inside = [(i, j) for i, j in wanted if lo <= i and j < hi]
                pairs = _solve_block(lo, hi, cost, clean, certified, inside, exact_limit)
                if last_resort or certified(range(lo, hi), pairs):
                    break
            if hi < count:  # not certified: double the block
                hi = _block_end(count, lo, 2 * (hi - lo), block)
            else:  # the last block: take in the one before
                lo = solved.pop()[0]
        solved.append((lo, pairs))
        lo = hi
    return sorted(pair for _, pairs in solved for pair in pairs)


def _block_end(count: int, lo: int, size: int, block: int) -> int:
    """The end of the block starting at ``lo``: ``size`` items on, the tail if it is shorter
    than half a ``block``."""
    hi = lo + size
    return count if count - hi < block // 2 else hi


def _solve_block(
    lo: int,
    hi: int,
    cost: Callable[[int, int], int],
    clean: Callable[[int, int], bool],
    certified: Callable[[range, list[Pair]], bool],
    extra: Sequence[Pair],
    exact_limit: int,
) -> list[Pair]:
    """Items ``lo..hi-1`` on the sparse graph, widened until certified (or at the limit)."""
    size = hi - lo
    local_extra = [(i - lo, j - lo) for i, j in extra]

    def local_cost(i: int, j: int) -> int:
        return cost(i + lo, j + lo)

    def local_clean(i: int, j: int) -> bool:
        return clean(i + lo, j + lo)

    window = DEFAULT_WINDOW
    while True:
        complete = size <= exact_limit or window >= size - 1
        edges = (
            list(combinations(range(size), 2))
            if complete
            else candidate_edges(size, window, local_clean, local_extra)
        )
        pairs = [(i + lo, j + lo) for i, j in matching(size, edges, local_cost)]
        if complete or certified(range(lo, hi), pairs):
            return pairs
        if size > WIDEN_LIMIT and window >= MAX_WINDOW:
            return pairs
        window *= 4


def _identity(weight: int) -> int:
    return weight
