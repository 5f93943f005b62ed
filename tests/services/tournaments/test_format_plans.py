"""What a format decides next (``plan_next``), on plain data: the step the workflow stores."""

from __future__ import annotations

import pytest

from services.tournaments.brackets.format import depths
from services.tournaments.event import Planned, Played, SeededEntrant
from services.tournaments.formats import FORMATS, bracket_format, get_format, table_format
from services.tournaments.swiss.format import default_swiss_rounds
from services.tournaments.swiss.pairing import NoValidPairing
from services.tournaments.table_format import plan_table


def field(size: int, withdrawn: frozenset[int] = frozenset()) -> tuple[SeededEntrant, ...]:
    return tuple(SeededEntrant(100 + k, k + 1, k + 1 in withdrawn) for k in range(size))


def fixture(number: int) -> list[Planned]:
    return [Planned(number, (100, 101), 0)]


def test_nothing_happens_while_the_current_round_is_being_played() -> None:
    played = Played(field(4), current_round=2, current_round_open=True)
    assert plan_table(played, 3, fixture) == plan_table(played, 3, lambda n: [])
    assert not plan_table(played, 3, fixture).planned
    assert not plan_table(played, 3, fixture).finished


def test_the_next_round_completes_the_current_one() -> None:
    step = plan_table(Played(field(4), current_round=1), 3, fixture)
    assert step.planned == tuple(fixture(2)) and step.done_rounds == {1}
    assert not step.finished and not step.empty_rounds


def test_a_round_with_no_match_is_skipped_and_marked_done() -> None:
    step = plan_table(Played(field(4), current_round=1), 5, lambda n: [] if n == 2 else fixture(n))
    assert step.empty_rounds == (2,) and step.done_rounds == {1, 2}
    assert step.planned == tuple(fixture(3))


def test_the_event_ends_after_its_last_round_or_with_too_few_bots() -> None:
    last = plan_table(Played(field(4), current_round=3), 3, fixture)
    assert last.finished and last.done_rounds == {3} and not last.planned
    alone = plan_table(Played(field(4, frozenset({2, 3, 4})), current_round=1), 3, fixture)
    assert alone.finished and alone.ended_early is None


def test_no_valid_pairing_ends_the_event_early_and_says_why() -> None:
    def stuck(number: int) -> list[Planned]:
        raise NoValidPairing("every pairing is a rematch")

    step = plan_table(Played(field(4), current_round=2), 5, stuck)
    assert step.finished and step.done_rounds == {2}
    assert step.ended_early == "ends after round 2: every pairing is a rematch"


def test_swiss_starts_with_every_bot_paired_and_fixes_its_round_count() -> None:
    swiss = get_format("swiss")
    step = swiss.plan_next(Played(field(5)))
    assert sorted(b for p in step.planned for b in p.bots) == [100, 101, 102, 103, 104]
    assert [p.bye for p in step.planned].count(True) == 1
    assert step.planned[0].bots[0] == 100  # the top seed's board first, as mano
    assert swiss.settle_rounds(None, 9) == default_swiss_rounds(9)
    assert swiss.settle_rounds(2, 9) == 2


def test_round_robin_leaves_out_fixtures_between_withdrawn_bots() -> None:
    robin = table_format("round_robin")
    entrants = field(4, frozenset({3, 4}))
    rounds = robin.total_rounds(None, 4)
    created = [
        get_format("round_robin").plan_next(Played(entrants, current_round=n)).planned
        for n in range(rounds)
    ]
    assert all(not {102, 103} <= set(p.bots) for plan in created for p in plan)
    assert sum(map(len, created)) == 5  # six fixtures, one between the two withdrawn bots


@pytest.mark.parametrize("name", ["single_elimination", "double_elimination"])
def test_a_bracket_creates_ready_matches_once_and_ends_with_its_champion(name: str) -> None:
    format = bracket_format(name)
    entrants = field(4)
    first = format.plan_next(Played(entrants)).planned
    assert first and all(p.round == 1 and p.bracket_match for p in first)
    created = frozenset(p.bracket_match for p in first if p.bracket_match)
    assert not format.plan_next(Played(entrants, bracket_created=created)).planned
    results: dict[str, int] = {}
    bracket = format.make_bracket(4)
    while (step := format.plan_next(Played(entrants, bracket_results=results))).planned:
        for planned in step.planned:  # the better seed (lower bot id here) wins every match
            assert planned.bracket_match is not None
            results[planned.bracket_match] = min(planned.bots) - 99
    assert step.finished and format.champion(Played(entrants, bracket_results=results)) == 100
    assert step.done_rounds == set(depths(bracket).values())  # every round is over
    assert len(results) <= len(bracket.matches)


def test_every_registered_format_plans_a_first_step_for_two_bots() -> None:
    for name, format in FORMATS.items():
        step = format.plan_next(Played(field(2)))
        assert [set(p.bots) for p in step.planned] == [{100, 101}], name
