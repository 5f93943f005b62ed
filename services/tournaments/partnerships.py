"""Individual 2v2: who partners whom and which pairs meet, round by round (pure, no I/O).

Every bot enters alone; each round forms *tables* of four bots, two partnerships facing each
other. A table is a tuple in slot order ``(a1, b1, a2, b2)``: ``a1`` and ``a2`` are partners
(side 0), ``b1`` and ``b2`` (side 1); it is exactly the order in which the match runner seats
the four bots (:mod:`arena.match.runner`).

A round is formed in three deterministic steps, each an exact minimum-cost perfect matching
(rustworkx's maximum-weight matching over the complete graph):

1. **Byes**: with a field that is not a multiple of four, ``n % 4`` bots sit out: those with the
   fewest byes so far, then (Swiss) the lowest score, then the worst seed.
2. **Partnerships**: a perfect matching of the rest. Its cost, in strict priority order:
   partners of the same owner, then partners who were partners before (counted), then closeness
   (Swiss: partners of similar standing; round robin: the circle-method partner of this round).
3. **Tables**: a perfect matching of the partnerships. Cost, in strict priority order: bots of
   one owner at the table, then opponents who met as opponents before (counted), then (Swiss)
   pairs of similar standing.

Because each step is an exact matching, a round avoids same-owner partners and repeated partners
whenever some pairing of the playing bots avoids them; with ``m`` the most bots one owner has
and ``n`` a multiple of four, that is guaranteed (Dirac) in each of the first ``n/2 - m + 1``
rounds. Step 3 keeps every table free of shared owners whenever the partnerships of step 2
allow it (the two steps are not solved jointly: a field crowded with one owner's bots can force
a shared owner that a joint search would avoid).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import combinations

import rustworkx as rx

Table = tuple[int, int, int, int]  # slot order: side 0, side 1, side 0, side 1

OWNER = 1 << 44  # a pair (or table) sharing an owner: worse than anything else
REPEAT = 1 << 24  # one repeated partnership / opponent meeting
_TOP = 1 << 62  # weight = _TOP - cost, so the maximum weight is the minimum cost


@dataclass(frozen=True, slots=True)
class Candidate:
    """A bot to seat: its owner, its score so far in half points (2 a win), its seed (1 best)
    and its byes so far."""

    id: int
    owner: int
    points2: int = 0
    seed: int = 0
    byes: int = 0


@dataclass(frozen=True, slots=True)
class TableRound:
    tables: list[Table]
    byes: list[int]


def partnerships(table: Table) -> tuple[frozenset[int], frozenset[int]]:
    return frozenset((table[0], table[2])), frozenset((table[1], table[3]))


def opponent_links(table: Table) -> list[frozenset[int]]:
    """The four bot-vs-bot pairs of a table (each bot against each opponent)."""
    return [frozenset((x, y)) for x in (table[0], table[2]) for y in (table[1], table[3])]


class History:
    """How often two bots partnered and faced each other in earlier tables."""

    def __init__(self, tables: Iterable[Table]) -> None:
        self.partnered: Counter[frozenset[int]] = Counter()
        self.opposed: Counter[frozenset[int]] = Counter()
        for table in tables:
            self.partnered.update(partnerships(table))
            self.opposed.update(opponent_links(table))


def _matching(count: int, cost: dict[tuple[int, int], int]) -> list[tuple[int, int]]:
    """Minimum-cost perfect matching of nodes 0..count-1 (count even), pairs sorted."""
    graph = rx.PyGraph(multigraph=False)
    graph.add_nodes_from(range(count))
    graph.add_edges_from([(i, j, _TOP - c) for (i, j), c in sorted(cost.items())])
    found = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=lambda w: w)
    pairs = sorted((min(u, v), max(u, v)) for u, v in found)
    if 2 * len(pairs) != count:  # pragma: no cover - the graph is complete
        raise RuntimeError("no perfect matching")
    return pairs


def choose_byes(field: Sequence[Candidate], *, swiss: bool) -> list[int]:
    """The ``len(field) % 4`` bots that sit out this round."""
    key = (
        (lambda c: (c.byes, c.points2, -c.seed, c.id))
        if swiss
        else (lambda c: (c.byes, -c.seed, c.id))
    )
    return [c.id for c in sorted(field, key=key)[: len(field) % 4]]


def form_round(
    field: Sequence[Candidate],
    earlier: Iterable[Table],
    *,
    swiss: bool,
    preferred: Iterable[tuple[int, int]] = (),
) -> TableRound:
    """The tables and byes of the next round for the bots in ``field`` (those still in).

    ``earlier`` holds every earlier table of the event; ``preferred`` (round robin) the
    partnerships the circle method proposes for this round."""
    ids = [c.id for c in field]
    if len(set(ids)) != len(ids):
        raise ValueError("a bot appears twice in the field")
    history = History(earlier)
    byes = choose_byes(field, swiss=swiss)
    playing = sorted(
        (c for c in field if c.id not in byes), key=lambda c: (-c.points2, c.seed, c.id)
    )
    place = {c.id: k for k, c in enumerate(playing)}
    liked = {frozenset(p) for p in preferred}

    def partner_cost(x: Candidate, y: Candidate) -> int:
        cost = OWNER * (x.owner == y.owner) + REPEAT * history.partnered[frozenset((x.id, y.id))]
        if swiss:
            return cost + abs(place[x.id] - place[y.id])
        return cost + (frozenset((x.id, y.id)) not in liked)

    pair_cost = {
        (i, j): partner_cost(playing[i], playing[j])
        for i, j in combinations(range(len(playing)), 2)
    }
    pairs = [(playing[i], playing[j]) for i, j in _matching(len(playing), pair_cost)]

    def table_cost(p: tuple[Candidate, Candidate], q: tuple[Candidate, Candidate]) -> int:
        owners = Counter(c.owner for c in (*p, *q))
        cost = OWNER * sum(k - 1 for k in owners.values())
        cost += REPEAT * sum(history.opposed[frozenset((x.id, y.id))] for x in p for y in q)
        if swiss:
            cost += abs(sum(place[c.id] for c in p) - sum(place[c.id] for c in q))
        return cost

    tables_cost = {
        (i, j): table_cost(pairs[i], pairs[j]) for i, j in combinations(range(len(pairs)), 2)
    }
    tables = [_seat(pairs[i], pairs[j], place) for i, j in _matching(len(pairs), tables_cost)]
    tables.sort(key=lambda t: min(place[b] for b in t))
    return TableRound(tables=tables, byes=byes)


def _seat(
    p: tuple[Candidate, Candidate], q: tuple[Candidate, Candidate], place: dict[int, int]
) -> Table:
    """Slot order: the pair with the best-placed bot is side 0; the better-placed first."""
    a = sorted((c.id for c in p), key=place.__getitem__)
    b = sorted((c.id for c in q), key=place.__getitem__)
    if place[b[0]] < place[a[0]]:
        a, b = b, a
    return (a[0], b[0], a[1], b[1])


def round_robin_rounds(entrants: int) -> int:
    """Rounds of an individual 2v2 round robin: enough for each bot to partner every other
    bot once (``n - 1``; ``n`` with an odd field, where the circle method rests one a round)."""
    return entrants - 1 if entrants % 2 == 0 else entrants
