"""Individual 2v2: who partners whom and which pairs meet, round by round (pure, no I/O).

Every bot enters alone; each round forms *tables* of four bots, two partnerships facing each
other. A table is a tuple in slot order ``(a1, b1, a2, b2)``: ``a1`` and ``a2`` are partners
(side 0), ``b1`` and ``b2`` (side 1); it is exactly the order in which the match runner seats
the four bots (:mod:`arena.match.runner`).

A round is formed in three deterministic steps, each a minimum-cost perfect matching
(rustworkx's maximum-weight matching): exact over the complete graph up to 128 items, block by
block on a certified sparse graph beyond (:mod:`services.tournaments.sparse_pairs`):

1. **Byes**: with a field that is not a multiple of four, ``n % 4`` bots sit out: those with the
   fewest byes so far, then (Swiss) the lowest score, then the worst seed.
2. **Partnerships**: a perfect matching of the rest. Its cost, in strict priority order:
   partners of the same owner, then partners who were partners before (counted), then closeness
   (Swiss: partners of similar standing; round robin: the circle-method partner of this round).
3. **Tables**: a perfect matching of the partnerships. Cost, in strict priority order: bots of
   one owner at the table, then opponents who met as opponents before (counted), then (Swiss)
   pairs of similar standing.

Because each step is exact on the rule tiers (the sparse graph's certificate checks that its
blocks reach the rules' lower bounds, and grows them until they do), a round avoids same-owner
partners and repeated partners whenever some pairing of the playing bots avoids them (beyond
256 bots, when a block of 4,096 or the whole field still falls short of the certificate, the
best matching a window of 24 finds is kept); with ``m`` the most bots one owner has and ``n``
a multiple of four, that is guaranteed (Dirac) in each of the first ``n/2 - m + 1`` rounds. Step 3 keeps every table free of shared owners whenever the partnerships of step 2
allow it (the two steps are not solved jointly: a field crowded with one owner's bots can force
a shared owner that a joint search would avoid).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from services.tournaments.owner_spread import spread_owners
from services.tournaments.sparse_pairs import DEFAULT_LIMITS, Limits, min_cost_pairs

Table = tuple[int, int, int, int]  # slot order: side 0, side 1, side 0, side 1

OWNER = 1 << 44  # a pair (or table) sharing an owner: worse than anything else
REPEAT = 1 << 24  # one repeated partnership / opponent meeting


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
        self.partners_of: dict[int, set[int]] = {}
        self.opponents_of: dict[int, set[int]] = {}
        for table in tables:
            self.partnered.update(partnerships(table))
            self.opposed.update(opponent_links(table))
            for k, bot in enumerate(table):
                self.partners_of.setdefault(bot, set()).add(table[(k + 2) % 4])
                self.opponents_of.setdefault(bot, set()).update(table[(k + 1) % 2 :: 2])


def choose_byes(field: Sequence[Candidate], *, swiss: bool) -> list[int]:
    """The ``len(field) % 4`` bots that sit out this round: the fewest byes so far first (a
    hard rule), then, among those, a bot of an owner with more bots than the round has tables
    (such an owner would crowd a table: four owners a table is possible exactly when no owner
    has more bots than there are tables), then (Swiss) the lowest score, then the worst seed.
    Without the second rule, six bots of four owners (two owners with two bots) gave the byes
    to the two single bots and seated both pairs at the only table (issue 32)."""
    key = (
        (lambda c: (c.byes, c.points2, -c.seed, c.id))
        if swiss
        else (lambda c: (c.byes, -c.seed, c.id))
    )
    ordered = sorted(field, key=key)
    sitting = len(field) % 4
    tables = (len(field) - sitting) // 4
    left = Counter(c.owner for c in field)
    byes: list[int] = []
    for _ in range(sitting):
        chosen = {b for b in byes}
        waiting = [c for c in ordered if c.id not in chosen]
        fewest = min(c.byes for c in waiting)
        tier = [c for c in waiting if c.byes == fewest]
        crowded = [c for c in tier if left[c.owner] > tables]
        pick = (crowded or tier)[0]
        byes.append(pick.id)
        left[pick.owner] -= 1
    return byes


def form_round(
    field: Sequence[Candidate],
    earlier: Iterable[Table],
    *,
    swiss: bool,
    preferred: Iterable[tuple[int, int]] = (),
    limits: Limits = DEFAULT_LIMITS,
) -> TableRound:
    """The tables and byes of the next round for the bots in ``field`` (those still in).

    ``earlier`` holds every earlier table of the event; ``preferred`` (round robin) the
    partnerships the circle method proposes for this round. Each step matches on the complete
    graph up to ``limits.exact`` items, on a sparse one beyond (:mod:`.sparse_pairs`)."""
    ids = [c.id for c in field]
    if len(set(ids)) != len(ids):
        raise ValueError("a bot appears twice in the field")
    history = History(earlier)
    byes = choose_byes(field, swiss=swiss)
    playing = sorted(
        (c for c in field if c.id not in byes), key=lambda c: (-c.points2, c.seed, c.id)
    )
    place = {c.id: k for k, c in enumerate(playing)}
    pairs = pair_partners(playing, history, swiss=swiss, preferred=preferred, limits=limits)
    if swiss and len(pairs) > limits.exact:  # the sparse graph's order: summed places
        pairs.sort(key=lambda p: (place[p[0].id] + place[p[1].id], place[p[0].id]))
    faced = spread_owners(pair_tables(pairs, history, place, swiss, limits), history.partnered)
    tables = [_seat(p, q, place) for p, q in faced]
    tables.sort(key=lambda t: min(place[b] for b in t))
    return TableRound(tables=tables, byes=byes)


def pair_partners(
    playing: Sequence[Candidate],
    history: History,
    *,
    swiss: bool,
    preferred: Iterable[tuple[int, int]],
    limits: Limits,
) -> list[tuple[Candidate, Candidate]]:
    """Step 2: the partnerships (``playing`` in standing order, its index the place). Round
    robin on the sparse graph lists each bot's preferred partner right after it, so the blocks
    keep them together."""
    liked = {frozenset(p) for p in preferred}
    if not swiss and len(playing) > limits.exact:
        playing = _liked_order(playing, liked)

    def same_owner(i: int, j: int) -> bool:
        return playing[i].owner == playing[j].owner

    def repeats(i: int, j: int) -> int:
        return history.partnered[frozenset((playing[i].id, playing[j].id))]

    def cost(i: int, j: int) -> int:
        rules = OWNER * same_owner(i, j) + REPEAT * repeats(i, j)
        if swiss:
            return rules + abs(i - j)
        return rules + (frozenset((playing[i].id, playing[j].id)) not in liked)

    owner = [c.owner for c in playing]
    ident = [c.id for c in playing]
    partners_of = history.partners_of

    def clean(i: int, j: int) -> bool:  # the sparse graph's hot loop: no Counter, no frozenset
        return owner[i] != owner[j] and ident[j] not in partners_of.get(ident[i], ())

    def forced(items: range) -> int:
        """Same-owner partnerships no pairing of ``items`` avoids (an owner with more than
        half of them)."""
        most = max(Counter(owner[k] for k in items).values(), default=0)
        return max(0, most - len(items) // 2)

    def certified(items: range, pairs: list[tuple[int, int]]) -> bool:
        """No repeat, and only the same-owner partnerships the whole field forces (a block
        that forces some grows)."""
        must = forced(items)
        if must and len(items) < len(playing):
            return False
        owned = sum(same_owner(i, j) for i, j in pairs)
        return owned == must and not any(repeats(i, j) for i, j in pairs)

    index = {c.id: k for k, c in enumerate(playing)}
    extra = [
        (index[a], index[b])
        for a, b in (sorted(p) for p in liked if len(p) == 2)
        if a in index and b in index
    ]
    found = min_cost_pairs(
        len(playing),
        cost,
        clean,
        certified,
        feasible=lambda items: not forced(items),
        extra=extra,
        limits=limits,
    )
    return [(playing[i], playing[j]) for i, j in found]


def _liked_order(playing: Sequence[Candidate], liked: set[frozenset[int]]) -> list[Candidate]:
    """``playing`` with each bot's preferred partner moved right after it."""
    by_id = {c.id: c for c in playing}
    partner: dict[int, int] = {}
    for pair in liked:
        if len(pair) == 2 and pair <= by_id.keys():
            a, b = sorted(pair)
            partner[a], partner[b] = b, a
    out: list[Candidate] = []
    seen: set[int] = set()
    for c in playing:
        if c.id in seen:
            continue
        out.append(c)
        seen.add(c.id)
        mate = partner.get(c.id)
        if mate is not None and mate not in seen:
            out.append(by_id[mate])
            seen.add(mate)
    return out


Partnership = tuple[Candidate, Candidate]


def pair_tables(
    pairs: Sequence[Partnership],
    history: History,
    place: dict[int, int],
    swiss: bool,
    limits: Limits,
) -> list[tuple[Partnership, Partnership]]:
    """Step 3: the partnerships that face each other."""

    def clashes(i: int, j: int) -> int:
        owners = {c.owner for c in (*pairs[i], *pairs[j])}
        return 4 - len(owners)

    def met(i: int, j: int) -> int:
        return sum(history.opposed[frozenset((x.id, y.id))] for x in pairs[i] for y in pairs[j])

    def cost(i: int, j: int) -> int:
        rules = OWNER * clashes(i, j) + REPEAT * met(i, j)
        if swiss:
            ours = sum(place[c.id] for c in pairs[i])
            theirs = sum(place[c.id] for c in pairs[j])
            return rules + abs(ours - theirs)
        return rules

    owner_sets = [{a.owner, b.owner} for a, b in pairs]
    opponents_of = history.opponents_of

    def clean(i: int, j: int) -> bool:  # the sparse graph's hot loop
        ours, theirs_owners = owner_sets[i], owner_sets[j]
        if len(ours) < 2 or len(theirs_owners) < 2 or not ours.isdisjoint(theirs_owners):
            return False
        theirs = (pairs[j][0].id, pairs[j][1].id)
        for x in pairs[i]:
            faced = opponents_of.get(x.id)
            if faced and (theirs[0] in faced or theirs[1] in faced):
                return False
        return True

    def crowded(items: range) -> int:
        """Shared owners forced by owners with more bots than ``items`` make tables."""
        tables = len(items) // 2
        owners = Counter(c.owner for k in items for c in pairs[k])
        return sum(max(0, k - tables) for k in owners.values())

    def certified(items: range, found: list[tuple[int, int]]) -> bool:
        """No repeated meeting, and only the shared owners that are forced: by an owner with
        more bots than there are tables (only in the whole list: a block that forces them
        grows) or by a same-owner partnership (one each)."""
        crowding = crowded(items)
        if crowding and len(items) < len(pairs):
            return False
        forced = max(crowding, sum(pairs[k][0].owner == pairs[k][1].owner for k in items))
        shared = sum(clashes(i, j) for i, j in found)
        return shared == forced and not any(met(i, j) for i, j in found)

    found = min_cost_pairs(
        len(pairs), cost, clean, certified, feasible=lambda items: not crowded(items), limits=limits
    )
    return [(pairs[i], pairs[j]) for i, j in found]


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
