"""Single and double elimination: seeding, byes, drops, and complete random runs."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournaments.brackets.bracket import (
    Bracket,
    BracketMatch,
    advance,
    champion,
    double_elimination,
    playable,
    resolve,
    single_elimination,
)
from services.tournaments.brackets.seeding import seed_order


def first_round(bracket: Bracket) -> list[tuple[int | None, int | None]]:
    return [(m.a.seed, m.b.seed) for m in bracket.matches if m.id.startswith("W1-")]


def test_sixteen_seeding() -> None:
    assert first_round(single_elimination(16)) == [
        (1, 16), (8, 9), (4, 13), (5, 12), (2, 15), (7, 10), (3, 14), (6, 11),
    ]  # fmt: skip


def test_thirteen_gives_byes_to_the_top_three_seeds() -> None:
    bracket = single_elimination(13)
    state = resolve(bracket, {})
    walkovers = {r.winner for r in state.values() if r.void}
    assert walkovers == {1, 2, 3}
    ready = {(a, b) for _, a, b in playable(bracket, {})}
    assert ready == {(8, 9), (4, 13), (5, 12), (7, 10), (6, 11)}


def test_seed_order_rejects_non_powers_of_two() -> None:
    with pytest.raises(ValueError):
        seed_order(12)


def test_third_place_match_is_between_the_semi_final_losers() -> None:
    bracket = single_elimination(4, third_place=True)
    results = {"W1-1": 1, "W1-2": 3, "W2-1": 3}
    assert resolve(bracket, results)["3P"].a == 4 and resolve(bracket, results)["3P"].b == 2
    results = advance(bracket, results, "3P", 2)
    assert champion(bracket, results) == 3


def test_first_drop_round_meets_players_from_the_other_half() -> None:
    for size in (8, 16, 32):
        bracket = double_elimination(size)
        feeds = {m.id: m for m in bracket.matches}

        def origins(mid: str, feeds: dict[str, BracketMatch] = feeds) -> set[str]:
            match = feeds[mid]
            if mid.startswith("W1-"):
                return {mid}
            out: set[str] = set()
            for slot in (match.a, match.b):
                source = slot.winner_of or slot.loser_of
                if source:
                    out |= origins(source)
            return out

        for match in bracket.matches:
            if match.id.startswith("L2-"):
                survivor = origins(match.a.winner_of or "")
                dropped = origins(match.b.loser_of or "")
                assert not survivor & dropped, match.id


def test_grand_final_reset_is_played_only_when_the_losers_side_wins() -> None:
    bracket = double_elimination(2)
    results = {"W1-1": 1}
    assert [mid for mid, _, _ in playable(bracket, results)] == ["GF"]
    assert champion(bracket, advance(bracket, results, "GF", 1)) == 1
    results = advance(bracket, results, "GF", 2)
    assert [mid for mid, _, _ in playable(bracket, results)] == ["GF2"]
    assert champion(bracket, advance(bracket, results, "GF2", 2)) == 2


def play_out(bracket: Bracket, rng: random.Random) -> tuple[dict[str, int], Counter[int]]:
    results: dict[str, int] = {}
    losses: Counter[int] = Counter()
    while ready := playable(bracket, results):
        mid, a, b = ready[rng.randrange(len(ready))]
        winner = rng.choice((a, b))
        results = advance(bracket, results, mid, winner)
        if mid != "3P":
            losses[b if winner == a else a] += 1
    return results, losses


@settings(max_examples=40, deadline=None)
@given(entrants=st.integers(2, 200), seed=st.integers(0, 1000), third=st.booleans())
def test_single_elimination_completes_with_one_winner(
    entrants: int, seed: int, third: bool
) -> None:
    bracket = single_elimination(entrants, third_place=third)
    results, losses = play_out(bracket, random.Random(seed))
    winner = champion(bracket, results)
    assert winner is not None and 1 <= winner <= entrants
    assert losses[winner] == 0
    assert set(losses) == set(range(1, entrants + 1)) - {winner}
    assert all(count == 1 for count in losses.values())


@settings(max_examples=40, deadline=None)
@given(entrants=st.integers(2, 200), seed=st.integers(0, 1000), reset=st.booleans())
def test_double_elimination_completes_with_one_winner(
    entrants: int, seed: int, reset: bool
) -> None:
    bracket = double_elimination(entrants, reset=reset)
    results, losses = play_out(bracket, random.Random(seed))
    winner = champion(bracket, results)
    assert winner is not None and 1 <= winner <= entrants
    assert losses[winner] <= 1
    others = set(range(1, entrants + 1)) - {winner}
    # everyone else is out after exactly two defeats (the grand-final loser may have one
    # if there is no reset and it came from the winners bracket)
    assert all(losses[p] == 2 or (not reset and losses[p] == 1) for p in others)
    assert sum(1 for p in others if losses[p] < 2) <= 1
