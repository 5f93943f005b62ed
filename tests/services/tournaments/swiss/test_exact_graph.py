"""The exact graph (:mod:`services.tournaments.swiss.pruned`) holds every certified optimum of
the complete graph, and the pairing through it is the complete graph's, C.3-heavy fields
included."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.c3_history import c3_history
from bench.tournaments import ranked_first_history, seeded_players
from services.tournaments.swiss import pairing
from services.tournaments.swiss.certificate import c3_forces_floats, uncertified_groups
from services.tournaments.swiss.field import Field, make_field
from services.tournaments.swiss.graph import complete_edges
from services.tournaments.swiss.pairing import match_field, solve
from services.tournaments.swiss.pruned import exact_edges
from services.tournaments.swiss.state import build_states
from services.tournaments.swiss.weights import make_layout, pair_weight, pair_weights
from tests.services.tournaments.builders import (
    foreign_swiss,
    players,
    random_swiss,
)

HISTORIES = {"own": random_swiss, "foreign": foreign_swiss, "ranked_first": ranked_first_history}


def field_of(size: int, rounds: int, seed: int, kind: str, final: bool = False) -> Field:
    field_players = players(size)
    history = HISTORIES[kind](field_players, rounds, seed)
    final_after = len(history) if final else None  # the next round is the last: topscorers
    return make_field(build_states(field_players, history), final_after=final_after)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 90),
    st.integers(0, 8),
    st.integers(0, 100_000),
    st.sampled_from(sorted(HISTORIES)),
    st.booleans(),
)
def test_the_exact_graph_holds_every_certified_optimum(
    size: int, rounds: int, seed: int, kind: str, final: bool
) -> None:
    """The pruning rules are sound: whenever the complete graph's optimum reaches the
    certificate's bounds, each of its pairs, and its bye, is in the exact graph."""
    field = field_of(size, rounds, seed, kind, final)
    complete = match_field(field, sparse=False)
    if uncertified_groups(field, complete.partner, complete.bye):
        return
    exact = exact_edges(field)
    edges = set(exact.edges)
    assert {(i, j) for i, j in complete.partner.items() if i < j} <= edges
    if complete.bye is not None:
        assert complete.bye in exact.byes


@settings(max_examples=40, deadline=None)
@given(st.integers(10, 160), st.integers(2, 7), st.integers(0, 100_000))
def test_c3_heavy_fields_get_the_complete_graph_pairing(size: int, rounds: int, seed: int) -> None:
    field = field_of(size, rounds, seed, "ranked_first")
    ours = match_field(field)
    complete = match_field(field, sparse=False)
    assert (ours.partner, ours.bye, ours.weight) == (
        complete.partner,
        complete.bye,
        complete.weight,
    )


def test_the_c3_shape_is_paired_on_the_exact_graph() -> None:
    """The shape of issue 34 (every match's higher-ranked player mano) at 300 players: C.3
    forces floats, the exact graph answers with a fraction of the complete graph's edges, and
    its pairing is the complete graph's."""
    field = field_of(300, 5, 5, "ranked_first")
    assert c3_forces_floats(field)
    ours = match_field(field)
    complete = match_field(field, sparse=False)
    assert not ours.complete
    assert ours.edges < complete.edges / 3
    assert (ours.partner, ours.bye) == (complete.partner, complete.bye)


def test_packed_weights_equal_the_tier_by_tier_weights() -> None:
    field = field_of(61, 4, 11, "foreign", final=True)
    layout = make_layout(field)
    edges = complete_edges(field)
    packed = pair_weights(field, layout, edges)
    assert [w for _, _, w in packed] == [pair_weight(field, layout, i, j) for i, j in edges]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 70),
    st.integers(0, 8),
    st.integers(0, 100_000),
    st.sampled_from(sorted(HISTORIES)),
)
def test_no_certified_pairing_exists_when_the_exact_graphs_optimum_is_not_certified(
    size: int, rounds: int, seed: int, kind: str
) -> None:
    """What lets the pairing go straight to the complete graph after an uncertified exact
    graph: then not even the complete graph's optimum is certified."""
    field = field_of(size, rounds, seed, kind)
    exact = exact_edges(field)
    found = solve(field, make_layout(field), exact.edges, exact.byes)
    if not uncertified_groups(field, found.partner, found.bye):
        return
    complete = match_field(field, sparse=False)
    assert uncertified_groups(field, complete.partner, complete.bye)


def test_above_the_exact_graphs_size_c3s_cross_edges_keep_the_sparse_graph_certified(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """How a 10,000-player C.3 field is paired, at 1,000 players (history:
    :mod:`bench.c3_history`, every player under an absolute preference): without the exact
    graph, the first sparse graph, with C.3's cross edges, is already certified (one matching;
    without those edges it took widening, 4.6 s and 137,000 edges)."""
    monkeypatch.setattr(pairing, "EXACT_MAX_PLAYERS", 0)
    solves: list[int] = []
    real_solve = pairing.solve

    def counted(*args: Any, **kwargs: Any) -> pairing.Matching:
        found = real_solve(*args, **kwargs)
        solves.append(found.edges)
        return found

    monkeypatch.setattr(pairing, "solve", counted)
    field_players = seeded_players(1_000, 1)
    field = make_field(build_states(field_players, c3_history(field_players, 5, 1)))
    assert c3_forces_floats(field)
    ours = match_field(field)
    assert not ours.complete
    assert not uncertified_groups(field, ours.partner, ours.bye)
    assert len(solves) == 1, solves
