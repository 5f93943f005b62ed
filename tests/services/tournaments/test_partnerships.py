"""Individual 2v2 partnerships and tables (services/tournaments/partnerships.py), by property."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournaments.event import SeededEntrant
from services.tournaments.partnerships import (
    Candidate,
    History,
    Table,
    form_round,
    opponent_links,
    partnerships,
)
from services.tournaments.round_robin.format import round_robin_rounds


def _field(owners: list[int], points: list[int] | None = None) -> list[Candidate]:
    points = points or [0] * len(owners)
    return [
        Candidate(id=100 + k, owner=o, points2=p, seed=k + 1)
        for k, (o, p) in enumerate(zip(owners, points, strict=True))
    ]


def _owner_clashes(table: Table, owner: dict[int, int]) -> int:
    return len(table) - len({owner[b] for b in table})


def _perfect_matchings(items: list[int]) -> list[list[tuple[int, int]]]:
    if not items:
        return [[]]
    first, rest = items[0], items[1:]
    out = []
    for k, other in enumerate(rest):
        for tail in _perfect_matchings(rest[:k] + rest[k + 1 :]):
            out.append([(first, other), *tail])
    return out


def _simulate(field: list[Candidate], rounds: int, *, swiss: bool, seed: int) -> list[list[Table]]:
    """Play ``rounds`` rounds with random results, updating scores and byes."""
    rng = random.Random(seed)
    played: list[list[Table]] = []
    current = list(field)
    for _ in range(rounds):
        formed = form_round(current, [t for r in played for t in r], swiss=swiss)
        played.append(formed.tables)
        gained: Counter[int] = Counter({b: 2 for b in formed.byes})
        for table in formed.tables:
            side = rng.randrange(2)
            gained.update({table[side]: 2, table[side + 2]: 2})
        current = [
            Candidate(
                c.id, c.owner, c.points2 + gained[c.id], c.seed, c.byes + (c.id in formed.byes)
            )
            for c in current
        ]
    return played


owners_st = st.integers(min_value=1, max_value=6).flatmap(
    lambda size: st.lists(st.integers(0, 7), min_size=4 * size, max_size=4 * size + 3)
)


@settings(max_examples=60, deadline=None)
@given(owners=owners_st, seed=st.integers(0, 10_000), swiss=st.booleans())
def test_everyone_seated_once_byes_only_for_the_remainder_and_deterministic(
    owners: list[int], seed: int, swiss: bool
) -> None:
    rng = random.Random(seed)
    field = _field(owners, [rng.randrange(0, 9, 2) for _ in owners])
    earlier = [tuple(rng.sample([c.id for c in field], 4)) for _ in range(rng.randrange(4))]
    formed = form_round(field, earlier, swiss=swiss)  # type: ignore[arg-type]
    seated = [b for t in formed.tables for b in t] + formed.byes
    assert sorted(seated) == sorted(c.id for c in field)
    assert len(formed.byes) == len(field) % 4
    assert formed == form_round(list(field), list(earlier), swiss=swiss)  # type: ignore[arg-type]


@settings(max_examples=40, deadline=None)
@given(
    owners=st.lists(st.integers(0, 4), min_size=8, max_size=8),
    seed=st.integers(0, 10_000),
)
def test_partnerships_are_optimal_for_owners_then_repeats(owners: list[int], seed: int) -> None:
    """Brute force over all 105 pairings of 8: none has fewer same-owner partnerships, nor as
    few and fewer repeated partnerships, than the one chosen."""
    rng = random.Random(seed)
    field = _field(owners)
    owner = {c.id: c.owner for c in field}
    ids = [c.id for c in field]
    earlier = [tuple(rng.sample(ids, 4)) for _ in range(rng.randrange(6))]
    history = History(earlier)  # type: ignore[arg-type]
    formed = form_round(field, earlier, swiss=True)  # type: ignore[arg-type]
    chosen = [tuple(p) for t in formed.tables for p in partnerships(t)]

    def score(pairs: list[tuple[int, ...]]) -> tuple[int, int]:
        return (
            sum(owner[a] == owner[b] for a, b in pairs),
            sum(history.partnered[frozenset(p)] for p in pairs),
        )

    best = min(score(list(m)) for m in _perfect_matchings(ids))
    assert score(chosen) == best


@settings(max_examples=40, deadline=None)
@given(owners=st.lists(st.integers(0, 5), min_size=8, max_size=8), swiss=st.booleans())
def test_tables_avoid_shared_owners_when_the_partnerships_allow(
    owners: list[int], swiss: bool
) -> None:
    field = _field(owners)
    owner = {c.id: c.owner for c in field}
    formed = form_round(field, [], swiss=swiss)
    pairs = [p for t in formed.tables for p in partnerships(t)]
    clashes = sum(_owner_clashes(t, owner) for t in formed.tables)
    alternatives = []
    for grouping in _perfect_matchings(list(range(len(pairs)))):
        total = 0
        for i, j in grouping:
            members = [*pairs[i], *pairs[j]]
            total += len(members) - len({owner[b] for b in members})
        alternatives.append(total)
    assert clashes == min(alternatives)


@settings(max_examples=25, deadline=None)
@given(
    tables=st.integers(min_value=2, max_value=5),
    most=st.integers(min_value=1, max_value=3),
    seed=st.integers(0, 10_000),
    swiss=st.booleans(),
)
def test_no_same_owner_partner_nor_repeated_partner_within_the_guaranteed_rounds(
    tables: int, most: int, seed: int, swiss: bool
) -> None:
    """With n = 4·tables bots and at most ``most`` per owner, the first n/2 - most + 1 rounds
    have neither (Dirac: the allowed-partner graph keeps minimum degree >= n/2)."""
    n = 4 * tables
    if n // 2 - most + 1 < 1:
        return
    owners = [k // most for k in range(n)]
    random.Random(seed).shuffle(owners)
    field = _field(owners)
    owner = {c.id: c.owner for c in field}
    rounds = _simulate(field, n // 2 - most + 1, swiss=swiss, seed=seed)
    seen: set[frozenset[int]] = set()
    for formed in rounds:
        assert len(formed) == n // 4  # everyone plays: n is a multiple of 4
        for table in formed:
            for pair in partnerships(table):
                a, b = sorted(pair)
                assert owner[a] != owner[b]
                assert pair not in seen
                seen.add(pair)


def test_eight_bots_of_eight_owners_swiss_four_rounds() -> None:
    field = _field(list(range(8)))
    rounds = _simulate(field, 4, swiss=True, seed=1)
    partners: Counter[frozenset[int]] = Counter()
    opposed: Counter[frozenset[int]] = Counter()
    for formed in rounds:
        assert len(formed) == 2 and sorted(b for t in formed for b in t) == sorted(
            c.id for c in field
        )
        for table in formed:
            partners.update(partnerships(table))
            opposed.update(opponent_links(table))
    assert max(partners.values()) == 1  # partners rotate: 16 distinct partnerships
    assert len(partners) == 16


def test_round_robin_with_the_circle_partnerships_partners_everyone_once() -> None:
    entrants = [SeededEntrant(100 + k, k + 1) for k in range(8)]
    field = _field(list(range(8)))
    schedule = round_robin_rounds(entrants)
    played: list[Table] = []
    partners: Counter[frozenset[int]] = Counter()
    for fixtures in schedule:
        formed = form_round(
            field, played, swiss=False, preferred=[(f.mano, f.other) for f in fixtures]
        )
        assert not formed.byes and len(formed.tables) == 2
        played += formed.tables
        for table in formed.tables:
            partners.update(partnerships(table))
    assert len(schedule) == 7
    assert set(partners) == {frozenset(p) for p in combinations([c.id for c in field], 2)}
    assert set(partners.values()) == {1}


def test_byes_go_to_the_fewest_byes_then_lowest_score() -> None:
    field = _field([0, 1, 2, 3, 4, 5], [4, 4, 2, 2, 0, 0])
    first = form_round(field, [], swiss=True)
    assert first.byes == [105, 104]  # lowest score, then worst seed
    again = [
        Candidate(c.id, c.owner, c.points2, c.seed, byes=int(c.id in first.byes)) for c in field
    ]
    assert not set(form_round(again, first.tables, swiss=True).byes) & set(first.byes)
