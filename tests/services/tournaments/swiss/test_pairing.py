"""Swiss pairing: hand-checked rounds and properties over random tournaments."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from services.tournaments.model import Player, Round, TournamentDataError
from services.tournaments.swiss.mano import ABSOLUTE, same_absolute_preference
from services.tournaments.swiss.pairing import NoValidPairing, pair_round
from services.tournaments.swiss.state import build_states
from tests.services.tournaments.builders import players, random_swiss, round_of, win


def pairs_of(pairing: object) -> list[tuple[object, object]]:
    return [(p.a, p.b) for p in pairing.pairs]  # type: ignore[attr-defined]


def test_round_one_is_dutch_top_half_against_bottom_half() -> None:
    pairing = pair_round(players(8), [])
    assert pairs_of(pairing) == [(1, 5), (2, 6), (3, 7), (4, 8)]
    assert pairing.bye is None
    # no history: the higher player is mano on even boards, the lower on odd boards
    assert [p.mano for p in pairing.pairs] == [1, 6, 3, 8]


def test_initial_ranking_is_by_rating_not_by_input_order() -> None:
    field = [
        Player(id="low", rating=1000),
        Player(id="top", rating=2000),
        Player(id="mid", rating=1500),
        Player(id="x", rating=1200),
    ]
    assert pairs_of(pair_round(field, [])) == [("top", "x"), ("mid", "low")]


def test_round_two_pairs_score_groups_and_balances_mano() -> None:
    # round 1: 1 v 3 (1 mano, wins), 2 v 4 (4 mano, 2 wins)
    history = [round_of(win(1, 3, mano=1), win(2, 4, mano=4))]
    pairing = pair_round(players(4), history)
    assert pairs_of(pairing) == [(1, 2), (3, 4)]
    # 1 was mano, 2 was not -> 2 is mano; 3 was not mano, 4 was -> 3 is mano
    assert [p.mano for p in pairing.pairs] == [2, 3]


def test_rematch_is_never_allowed_even_across_score_groups() -> None:
    history = [round_of(win(1, 3), win(2, 4)), round_of(win(1, 2), win(3, 4))]
    # scores: 1 -> 2, 2 -> 1, 3 -> 1, 4 -> 0; 1 has met 2 and 3, so 1 v 4 and 2 v 3
    assert pairs_of(pair_round(players(4), history)) == [(1, 4), (2, 3)]


def test_no_valid_pairing_is_a_typed_error_with_a_clear_message() -> None:
    history = [
        round_of(win(1, 2), win(3, 4)),
        round_of(win(1, 3), win(2, 4)),
        round_of(win(1, 4), win(2, 3)),
    ]
    with pytest.raises(NoValidPairing, match="rematches"):
        pair_round(players(4), history)


def test_bye_goes_to_lowest_ranked_player_without_a_bye_and_scores_a_win() -> None:
    field = players(5)
    first = pair_round(field, [])
    assert first.bye == 5
    # 5 got the bye (a win); the losers of round one are now the lowest: 4 (rank) then 3...
    history = [round_of(win(1, 3), win(2, 4), bye=5)]
    second = pair_round(field, history)
    assert second.bye == 4  # lowest score group (3 and 4 at 0), lowest initial rank
    assert 5 in {x for pair in pairs_of(second) for x in pair}


def test_every_player_has_had_the_bye() -> None:
    field = players(3)
    history = [round_of(win(1, 2), bye=3), round_of(win(1, 3), bye=2), round_of(win(3, 2), bye=1)]
    with pytest.raises(NoValidPairing):
        pair_round(field, history)


def test_same_input_gives_the_same_pairing() -> None:
    field = players(31)
    history = random_swiss(field, 3, seed=5)
    first = pair_round(field, history)
    assert first == pair_round(list(reversed(field)), history)


def test_inconsistent_rounds_are_rejected() -> None:
    with pytest.raises(TournamentDataError, match="unknown player"):
        pair_round(players(4), [round_of(win(1, 9))])
    with pytest.raises(TournamentDataError, match="twice"):
        pair_round(players(4), [round_of(win(1, 2), win(2, 3))])


@settings(max_examples=25, deadline=None)
@given(size=st.integers(2, 200), rounds=st.integers(1, 7), seed=st.integers(0, 10_000))
def test_random_tournaments_pair_everyone_once_without_rematches(
    size: int, rounds: int, seed: int
) -> None:
    field = players(size)
    history = random_swiss(field, rounds, seed)
    ids = {p.id for p in field}
    met: set[frozenset[object]] = set()
    byes: list[object] = []
    for round_ in history:
        seen = [x for m in round_.matches for x in (m.a, m.b)] + list(round_.byes)
        assert sorted(seen) == sorted(ids)  # everyone exactly once
        assert len(round_.byes) == size % 2
        for match in round_.matches:
            pair = frozenset((match.a, match.b))
            assert pair not in met, "rematch"
            met.add(pair)
        byes.extend(round_.byes)
    assert len(byes) == len(set(byes)), "double bye"
    if len(history) < rounds:  # stopped early: the next round must really be impossible
        with pytest.raises(NoValidPairing):
            pair_round(field, history)


def test_score_groups_are_kept_when_possible() -> None:
    field = players(16)
    history: list[Round] = random_swiss(field, 2, seed=3, draw_share=0.0)
    points = {p.id: 0 for p in field}
    for round_ in history:
        for m in round_.matches:
            points[m.a if m.result == "a" else m.b] += 1
    # after two rounds without draws the groups (2, 1, 0 wins) have sizes 4, 8, 4: all even,
    # so nobody needs to float unless rematches or FIDE's C.3 force it. In the final round
    # the two-win players are topscorers, exempt from C.3, and nobody floats
    final = pair_round(field, history, total_rounds=3)
    assert all(points[p.a] == points[p.b] for p in final.pairs)
    # before it, C.3 applies to everyone: three of the four two-win players (7, 14, 16) were
    # non-mano in both games, so at most one of them meets the fourth (2) and two float down
    states = {s.id: s.mano for s in build_states(field, history)}
    assert [pid for pid in (2, 7, 14, 16) if states[pid].strength == ABSOLUTE] == [7, 14, 16]
    earlier = pair_round(field, history, total_rounds=4)
    floats = [p for p in earlier.pairs if points[p.a] != points[p.b]]
    assert len(floats) == 2
    assert all({p.a, p.b} & {7, 14, 16} and {points[p.a], points[p.b]} == {2, 1} for p in floats)
    assert not any(same_absolute_preference(states[p.a], states[p.b]) for p in earlier.pairs)
