"""Individual 2v2 on the sparse graph (services/tournaments/sparse_pairs.py) against the exact
method on the complete graph, on small fields where both run: the sparse limits are shrunk so
that fields of 8 to 60 bots go through blocks, widening and repair."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournaments.event import SeededEntrant
from services.tournaments.partnerships import (
    Candidate,
    History,
    Partnership,
    Table,
    form_round,
    pair_partners,
    pair_tables,
    partnerships,
)
from services.tournaments.round_robin.format import round_robin_rounds
from services.tournaments.sparse_pairs import Limits, candidate_edges, min_cost_pairs

EXACT = Limits(exact=10_000)
SPARSE_LIMITS = st.builds(Limits, exact=st.just(2), block=st.sampled_from([4, 8, 12, 16, 256]))


def _field(rng: random.Random, size: int, owners: int) -> list[Candidate]:
    return [
        Candidate(100 + k, rng.randrange(owners), rng.randrange(0, 9, 2), k + 1)
        for k in range(size)
    ]


def _history(rng: random.Random, field: list[Candidate], tables: int) -> list[Table]:
    ids = [c.id for c in field]
    return [tuple(rng.sample(ids, 4)) for _ in range(tables)]  # type: ignore[misc]


def _partner_tiers(pairs: list[Partnership], history: History) -> tuple[int, int]:
    return (
        sum(a.owner == b.owner for a, b in pairs),
        sum(history.partnered[frozenset((a.id, b.id))] for a, b in pairs),
    )


def _closeness(pairs: list[Partnership], place: dict[int, int]) -> int:
    return sum(abs(place[a.id] - place[b.id]) for a, b in pairs)


fields = st.tuples(
    st.integers(2, 30).map(lambda half: 2 * half),  # an even number of playing bots
    st.integers(1, 12),  # owners
    st.integers(0, 40),  # earlier tables
    st.integers(0, 100_000),
)


@settings(max_examples=80, deadline=None)
@given(shape=fields, limits=SPARSE_LIMITS, swiss=st.booleans())
def test_sparse_partnerships_match_the_exact_rule_tiers(
    shape: tuple[int, int, int, int], limits: Limits, swiss: bool
) -> None:
    """As few same-owner partnerships, then as few repeated ones, as the exact method. In Swiss
    on one block the closeness (summed distance in the standing order) is at most a quarter
    more than exact (blocks as tiny as these cost more at their edges: up to 1.8 times on 4
    bots a block; the bench compares 400 and 1,000 bots on the default blocks)."""
    size, owners, earlier, seed = shape
    rng = random.Random(seed)
    field = sorted(_field(rng, size, owners), key=lambda c: (-c.points2, c.seed, c.id))
    history = History(_history(rng, field, earlier))
    preferred = [] if swiss else [(field[k].id, field[-1 - k].id) for k in range(size // 2)]
    sparse = pair_partners(field, history, swiss=swiss, preferred=preferred, limits=limits)
    exact = pair_partners(field, history, swiss=swiss, preferred=preferred, limits=EXACT)
    assert sorted(c.id for p in sparse for c in p) == sorted(c.id for c in field)
    assert _partner_tiers(sparse, history) == _partner_tiers(exact, history)
    if swiss and limits.block >= size:
        place = {c.id: k for k, c in enumerate(field)}
        assert _closeness(sparse, place) * 4 <= _closeness(exact, place) * 5


@settings(max_examples=80, deadline=None)
@given(shape=fields, limits=SPARSE_LIMITS, swiss=st.booleans())
def test_sparse_tables_match_the_exact_rule_tiers_on_the_same_partnerships(
    shape: tuple[int, int, int, int], limits: Limits, swiss: bool
) -> None:
    size, owners, earlier, seed = shape
    size += size % 4  # whole tables
    rng = random.Random(seed)
    field = _field(rng, size, owners)
    place = {c.id: k for k, c in enumerate(field)}
    history = History(_history(rng, field, earlier))
    pairs = [(field[k], field[k + 1]) for k in range(0, size, 2)]

    def tiers(tables: list[tuple[Partnership, Partnership]]) -> tuple[int, int]:
        shared = sum(4 - len({c.owner for c in (*p, *q)}) for p, q in tables)
        met = sum(history.opposed[frozenset((x.id, y.id))] for p, q in tables for x in p for y in q)
        return shared, met

    sparse = pair_tables(pairs, history, place, swiss, limits)
    exact = pair_tables(pairs, history, place, swiss, EXACT)
    assert sorted(c.id for t in sparse for p in t for c in p) == sorted(place)
    assert tiers(sparse) == tiers(exact)


@settings(max_examples=40, deadline=None)
@given(shape=fields, limits=SPARSE_LIMITS, swiss=st.booleans())
def test_sparse_rounds_seat_everyone_once_and_are_deterministic(
    shape: tuple[int, int, int, int], limits: Limits, swiss: bool
) -> None:
    size, owners, earlier, seed = shape
    rng = random.Random(seed)
    field = _field(rng, size + rng.randrange(4), owners)
    played = _history(rng, field, earlier)
    formed = form_round(field, played, swiss=swiss, limits=limits)
    seated = [b for t in formed.tables for b in t] + formed.byes
    assert sorted(seated) == sorted(c.id for c in field)
    assert formed == form_round(list(field), list(played), swiss=swiss, limits=limits)
    exact = form_round(field, played, swiss=swiss, limits=EXACT)
    assert formed.byes == exact.byes


@pytest.mark.parametrize(("size", "run", "block"), [(32, 16, 8), (64, 30, 4), (200, 100, 8)])
def test_a_crowded_block_grows_until_its_owner_can_be_avoided(
    size: int, run: int, block: int
) -> None:
    """Owner 0's bots all stand first, several blocks long: a block of them alone would force
    same-owner partners, the field does not (at most half the bots are owner 0's). The tables
    share owners as often as the exact method's (those the field forces)."""
    field = [Candidate(k, 0 if k < run else k, 0, k + 1) for k in range(size)]
    limits = Limits(2, block)
    pairs = pair_partners(field, History([]), swiss=True, preferred=[], limits=limits)
    assert not any(a.owner == b.owner for a, b in pairs)
    owner = {c.id: c.owner for c in field}

    def shared(tables: list[Table]) -> int:
        return sum(4 - len({owner[b] for b in t}) for t in tables)

    sparse = form_round(field, [], swiss=True, limits=limits).tables
    exact = form_round(field, [], swiss=True, limits=EXACT).tables
    assert shared(sparse) == shared(exact) == max(0, run - size // 4)


def test_partners_and_opponents_rotate_over_rounds_on_the_sparse_graph() -> None:
    """400 bots of 100 owners, six Swiss rounds: no same-owner partner, no repeated partner."""
    rng = random.Random(3)
    field = [Candidate(k, k % 100, 0, k + 1) for k in range(400)]
    played: list[Table] = []
    for _ in range(6):
        formed = form_round(field, played, swiss=True)
        played += formed.tables
        gained: Counter[int] = Counter()
        for table in formed.tables:
            side = rng.randrange(2)
            gained.update({table[side]: 2, table[side + 2]: 2})
        field = [Candidate(c.id, c.owner, c.points2 + gained[c.id], c.seed) for c in field]
    partners = Counter(p for t in played for p in partnerships(t))
    assert len(played) == 600 and max(partners.values()) == 1
    owner = {c.id: c.owner for c in field}
    assert all(owner[a] != owner[b] for p in partners for a, b in [sorted(p)])


def test_the_band_alone_always_has_a_perfect_matching() -> None:
    """Nothing clean at all: the band still pairs everyone."""
    edges = candidate_edges(10, 1, lambda i, j: False)
    assert edges == [(k, k + 1) for k in range(9)]
    pairs = min_cost_pairs(10, lambda i, j: 1, lambda i, j: False, lambda r, p: True)
    assert sorted(b for p in pairs for b in p) == list(range(10))


def test_round_robin_on_the_sparse_graph_keeps_the_circle_partnerships() -> None:
    """200 bots of 200 owners, three rounds: every partnership is the circle method's."""
    entrants = [SeededEntrant(k + 1, k + 1) for k in range(200)]
    field = [Candidate(k + 1, k, 0, k + 1) for k in range(200)]
    schedule = round_robin_rounds(entrants)
    played: list[Table] = []
    for fixtures in schedule[:3]:
        preferred = [(f.mano, f.other) for f in fixtures]
        formed = form_round(field, played, swiss=False, preferred=preferred)
        played += formed.tables
        assert not formed.byes and len(formed.tables) == 50
        chosen = {p for t in formed.tables for p in partnerships(t)}
        assert chosen == {frozenset(p) for p in preferred}
