"""Standings and tiebreaks, checked by hand on a small event."""

from __future__ import annotations

from services.tournaments.standings import Tiebreak, compute_standings
from tests.services.tournaments.builders import draw, loss, players, round_of, win


def by_id(rows: list) -> dict:  # type: ignore[type-arg]
    return {r.id: r for r in rows}


def test_hand_checked_tiebreaks_with_a_bye() -> None:
    # 5 players, 2 rounds. R1: 1 beats 3, 2 draws 4, 5 has the bye. R2: 1 beats 5, 3 beats 2, 4 bye.
    rounds = [
        round_of(win(1, 3, games_a=2, games_b=1, tantos_a=50, tantos_b=40), draw(2, 4), bye=5),
        round_of(win(1, 5), win(3, 2, games_a=2, tantos_a=30, tantos_b=10), bye=4),
    ]
    rows = by_id(compute_standings(players(5), rounds))
    assert compute_standings(players(5), rounds)[0].id == 1
    assert rows[1].values["match_points"] == 2.0
    assert rows[4].values["match_points"] == 1.5  # draw + bye as a win
    # Opponents' byes count as draws: 5 scored 1 (bye) + 0 -> 0.5; 3 scored 0 + 1 = 1.
    assert rows[1].values["buchholz"] == 1.5
    assert rows[1].values["buchholz_cut1"] == 1.0
    assert rows[1].values["sonneborn_berger"] == 1.5
    # 4's bye in round 2 of 2: virtual opponent = 4's score before (0.5) + (1 - 1) + 0 = 0.5;
    # 4's real opponent 2 scored 0.5 + 0 = 0.5; Buchholz 1.0, SB = 0.5 * 0.5 + 1 * 0.5 = 0.75
    assert rows[4].values["buchholz"] == 1.0
    assert rows[4].values["sonneborn_berger"] == 0.75
    # 5's bye in round 1: virtual opponent = 0 + (1 - 1) + 0.5 * (2 - 1) = 0.5; opponent 1 has 2
    assert rows[5].values["buchholz"] == 2.5
    assert rows[1].values["game_points"] == 2.0
    assert rows[1].values["tantos_difference"] == 10.0
    assert rows[3].values["tantos_difference"] == 10.0


def test_direct_encounter_breaks_a_tie_between_players_who_met() -> None:
    # 1 and 2 both finish on 1 point with equal Buchholz; 2 beat 1.
    rounds = [round_of(loss(1, 2), win(3, 4)), round_of(win(1, 4), loss(2, 3))]
    order = [Tiebreak.MATCH_POINTS, Tiebreak.DIRECT_ENCOUNTER]
    rows = compute_standings(players(4), rounds, order)
    assert [r.id for r in rows] == [3, 2, 1, 4]
    assert by_id(rows)[2].values["direct_encounter"] == 1.0
    assert by_id(rows)[1].values["direct_encounter"] == 0.0


def test_tiebreak_order_is_configurable() -> None:
    rounds = [round_of(win(1, 2, tantos_a=10, tantos_b=60), win(3, 4, tantos_a=90))]
    # 1 and 3 tie on everything except tantos (1: -50, 3: +90)
    by_default = compute_standings(players(4), rounds)
    points_only = compute_standings(players(4), rounds, [Tiebreak.MATCH_POINTS])
    assert [r.id for r in by_default][:2] == [3, 1]  # tantos difference is the last default
    assert [r.id for r in points_only][:2] == [1, 3]  # unbroken ties keep the initial ranking
