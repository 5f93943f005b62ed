"""The sparse candidate graph gives the same pairing as the complete graph; weights are sound."""

from __future__ import annotations

import itertools
import random

import rustworkx as rx
from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournaments.swiss.certificate import uncertified_groups
from services.tournaments.swiss.field import Field, make_field
from services.tournaments.swiss.graph import complete_edges, sparse_edges
from services.tournaments.swiss.pairing import match_field, solve
from services.tournaments.swiss.state import build_states
from services.tournaments.swiss.weights import MAX_WEIGHT_BITS, make_layout
from tests.services.tournaments.builders import foreign_swiss, players, random_swiss

FOREIGN = st.booleans()  # history by a foreign pairer (loose score order, random mano and byes)


def field_after(size: int, rounds: int, seed: int, foreign: bool) -> Field:
    """The field of the next round after ``rounds`` of our own or of a foreign history."""
    field_players = players(size)
    history = (foreign_swiss if foreign else random_swiss)(field_players, rounds, seed)
    return make_field(build_states(field_players, history))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 160), st.integers(0, 9), st.integers(0, 100_000), FOREIGN)
def test_sparse_graph_gives_the_complete_graph_pairing(
    size: int, rounds: int, seed: int, foreign: bool
) -> None:
    """Foreign histories leave small, oddly shaped score groups; the pairing must not care."""
    field = field_after(size, rounds, seed, foreign)
    sparse = match_field(field)
    complete = match_field(field, sparse=False)
    assert sparse.partner == complete.partner
    assert sparse.bye == complete.bye
    assert sparse.weight == complete.weight


@settings(max_examples=120, deadline=None)
@given(st.integers(4, 40), st.integers(0, 6), st.integers(0, 100_000), FOREIGN)
def test_the_certificate_never_accepts_a_pairing_the_complete_graph_beats(
    size: int, rounds: int, seed: int, foreign: bool
) -> None:
    """Soundness of the certificate itself, whatever graph the matching came from: on a
    random subgraph that keeps few floats to the next group and most longer ones, an accepted
    matching must equal the complete graph's optimum on tiers 1-4 (clash, bye, floats, score
    gaps)."""
    field = field_after(size, rounds, seed, foreign)
    layout = make_layout(field)
    rng = random.Random(seed)
    edges = [
        (i, j)
        for i, j in complete_edges(field)
        if rng.random() < (0.15 if field.group[j] - field.group[i] == 1 else 0.9)
    ]
    candidate = solve(field, layout, edges)
    if uncertified_groups(field, candidate.partner, candidate.bye):
        return
    complete = match_field(field, sparse=False)
    assert layout.unpack(candidate.weight)[:4] == layout.unpack(complete.weight)[:4]


@settings(max_examples=15, deadline=None)
@given(size=st.integers(20, 80), rounds=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_small_windows_still_agree_on_the_certified_tiers(
    size: int, rounds: int, seed: int
) -> None:
    """With a tiny window the lower tiers may differ, but clash, bye, floats and gaps never
    do."""
    field_players = players(size)
    field = make_field(build_states(field_players, random_swiss(field_players, rounds, seed)))
    layout = make_layout(field)
    sparse = match_field(field, window=2)
    complete = match_field(field, sparse=False)
    assert layout.unpack(sparse.weight)[:4] == layout.unpack(complete.weight)[:4]
    if complete.bye is not None:  # who in the group gets it is a lower tier's choice
        assert sparse.bye is not None and field.group[sparse.bye] == field.group[complete.bye]


def test_the_sparse_graph_is_really_sparse() -> None:
    field_players = players(200)
    field = make_field(build_states(field_players, random_swiss(field_players, 3, seed=1)))
    groups = field.group_count
    sparse = sparse_edges(field, [16] * groups, [1] * groups)
    assert len(sparse) < len(complete_edges(field)) / 2
    assert not match_field(field).complete


def test_weights_are_lexicographic() -> None:
    field_players = players(51)
    field = make_field(build_states(field_players, random_swiss(field_players, 4, seed=2)))
    layout = make_layout(field)
    slots = (field.size + 1) // 2
    for t in range(len(layout.bounds) - 1):
        lower_total = sum(
            slots * b * m
            for b, m in zip(layout.bounds[t + 1 :], layout.multipliers[t + 1 :], strict=True)
        )
        assert layout.multipliers[t] > lower_total
    assert layout.pack(layout.bounds).bit_length() <= MAX_WEIGHT_BITS


def _brute_force(n: int, weights: dict[tuple[int, int], int]) -> int:
    best = -1
    for perm in itertools.permutations(range(1, n)):
        nodes = [0, *perm]
        pairs = [(min(nodes[k], nodes[k + 1]), max(nodes[k], nodes[k + 1])) for k in range(0, n, 2)]
        if all(p in weights for p in pairs):
            best = max(best, sum(weights[p] for p in pairs))
    return best


def test_rustworkx_is_exact_at_the_largest_weights_we_use() -> None:
    rng = random.Random(11)
    for _ in range(30):
        n = 6
        weights = {
            (i, j): rng.randrange(1 << (MAX_WEIGHT_BITS - 3), 1 << MAX_WEIGHT_BITS)
            for i in range(n)
            for j in range(i + 1, n)
            if rng.random() < 0.8
        }
        expected = _brute_force(n, weights)
        if expected < 0:
            continue
        graph = rx.PyGraph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from([(i, j, w) for (i, j), w in weights.items()])
        found = rx.max_weight_matching(graph, max_cardinality=True, weight_fn=lambda w: w)
        assert sum(weights[(min(u, v), max(u, v))] for u, v in found) == expected
