"""A result's words and order (services.tournaments.outcome): winner first with the winner's
score first, the reason when it is not a plain win on games, the partnerships in individual
2v2. The API, the CLI and the pages all read this one function."""

from __future__ import annotations

from dataclasses import dataclass

from services.domain.result import StoredResult, withdrawn_result
from services.tournaments.outcome import MatchOutcome, match_outcome


@dataclass(frozen=True)
class Seat:
    bot_id: int | None
    name: str
    side: int


ONE_V_ONE = [Seat(1, "house-random", 0), Seat(2, "house-heuristic", 1)]
INDIVIDUAL = [Seat(1, "ana", 0), Seat(2, "beto", 1), Seat(3, "carla", 0), Seat(4, "dora", 1)]


def result(
    games: tuple[int, int],
    tantos: tuple[int, int],
    reason: str,
    *,
    forfeit: int | None = None,
    walkover: tuple[int, ...] = (),
) -> StoredResult:
    return StoredResult(
        games=(),
        games_won=games,
        tantos=tantos,
        reason=reason,  # type: ignore[arg-type]
        forfeit=forfeit,
        walkover=walkover,
        faults=(0, 0),
    )


def outcome(
    stored: StoredResult | None,
    winner_side: int | None,
    *,
    seats: list[Seat] = ONE_V_ONE,
    status: str = "done",
    bracket_match: str | None = None,
) -> MatchOutcome:
    found = match_outcome(
        status=status,
        bye=False,
        seats=seats,
        winner_side=winner_side,
        result=stored,
        bracket_match=bracket_match,
    )
    assert found is not None
    return found


def test_the_winner_comes_first_with_its_score_first() -> None:
    found = outcome(result((0, 2), (20, 60), "games"), 1)
    assert found.phrase == "house-heuristic wins 2-0 against house-random"
    assert [s.side for s in found.sides] == [1, 0]
    assert [(s.games, s.tantos) for s in found.sides] == [(2, 60), (0, 20)]
    assert found.decided_by == "games" and not found.partners


def test_side_0_winning_keeps_the_order() -> None:
    found = outcome(result((2, 1), (70, 66), "games"), 0)
    assert found.phrase == "house-random wins 2-1 against house-heuristic"


def test_level_on_games_says_tantos_decided() -> None:
    found = outcome(result((3, 3), (38, 45), "tantos"), 1)
    assert found.decided_by == "tantos"
    assert found.phrase == "house-heuristic wins on tantos 45-38 against house-random (games 3-3)"


def test_a_draw_keeps_the_match_order() -> None:
    found = outcome(result((1, 1), (40, 40), "draw"), None)
    assert found.decided_by == "draw"
    assert found.phrase == "house-random vs house-heuristic: draw 1-1 (tantos 40-40)"


def test_a_bracket_draw_goes_through_on_seed() -> None:
    found = outcome(result((1, 1), (40, 40), "draw"), None, bracket_match="W1-1")
    assert found.decided_by == "seed"
    assert "the better seed goes through" in found.phrase


def test_forfeit_and_walkover_say_so() -> None:
    forfeit = outcome(result((0, 1), (3, 30), "forfeit", forfeit=0), 1, status="forfeit")
    assert forfeit.decided_by == "forfeit"
    assert forfeit.phrase == "house-heuristic wins by forfeit against house-random (games 1-0)"
    walkover = outcome(result((0, 0), (0, 0), "walkover", walkover=(1,)), 0)
    assert walkover.phrase == "house-random wins by walkover: house-heuristic could not be reached"
    both = outcome(result((0, 0), (0, 0), "walkover", walkover=(0, 1)), None)
    assert both.phrase.endswith("no winner, neither side could be reached")


def test_a_withdrawal_says_who_left() -> None:
    found = outcome(withdrawn_result([0]), 1)
    assert found.decided_by == "withdrawn"
    assert found.phrase == "house-heuristic wins: house-random withdrew from the event"


def test_individual_2v2_names_the_partnerships() -> None:
    found = outcome(result((1, 3), (50, 90), "games"), 1, seats=INDIVIDUAL)
    assert found.partners
    assert [s.names for s in found.sides] == [("beto", "dora"), ("ana", "carla")]
    assert found.phrase == "beto & dora win 3-1 against ana & carla"


def test_no_outcome_before_the_end_and_a_bye_has_one_side() -> None:
    open_match = match_outcome(
        status="running", bye=False, seats=ONE_V_ONE, winner_side=None, result=None
    )
    assert open_match is None
    bye = match_outcome(status="done", bye=True, seats=ONE_V_ONE[:1], winner_side=0, result=None)
    assert bye is not None and bye.decided_by == "bye" and len(bye.sides) == 1
    assert bye.phrase == "house-random has a bye"
