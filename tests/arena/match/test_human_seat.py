"""A person's seat through the match runner, with a scripted "person" (plain data): the choice
check, a whole match that verifies, the person's view is their own seat's, a timeout is a
fault with the fallback, leaving forfeits."""

from __future__ import annotations

import asyncio

import msgspec
import pytest

from arena.client.connection import InProcessBot, random_decider
from arena.game.truco import TRUCO
from arena.match.human import BANK_SPENT_DETAIL, HumanSeat, Turn, check_choice
from arena.match.replay import Decision, EntrantRecord, Replay
from arena.match.runner import MatchSettings, run_match
from arena.match.verify import verify_replay
from arena.wire import structs as wire
from arena.wire.protocol import ActResponse, act_request
from engine import Rules

pytestmark = pytest.mark.anyio
SHORT = MatchSettings(rules=Rules(points_to_win=15), games_per_match=1)


def _turn(number: int, legal: list[wire.Action]) -> Turn:
    state = TRUCO.new_game(Rules(), 1)
    seat = TRUCO.to_act(state)
    request = act_request(
        "m",
        "g",
        seat,
        TRUCO.observe(state, seat),
        TRUCO.legal_actions(state),
        timeout_ms=1000,
        time_bank_ms=1000,
        last_latency_ms=None,
    )
    return Turn(
        number=number,
        request=msgspec.structs.replace(request, legal_actions=legal),
        clock_ms=60_000,
    )


def test_check_choice_on_plain_data() -> None:
    turn = _turn(3, [wire.Action("play", "1E"), wire.Action("truco")])
    assert check_choice(turn, 3, ActResponse(action="play", card="1E")) is None
    assert check_choice(turn, 3, ActResponse(action="truco")) is None
    illegal = check_choice(turn, 3, ActResponse(action="play", card="7O"))
    assert illegal is not None and illegal.kind == "illegal" and "truco" in illegal.detail
    stale = check_choice(turn, 2, ActResponse(action="truco"))
    assert stale is not None and stale.kind == "stale"
    none = check_choice(None, 1, ActResponse(action="truco"))
    assert none is not None and none.kind == "stale"
    sena = check_choice(turn, 3, ActResponse(action="truco", sena="tres"))
    assert sena is not None and sena.kind == "illegal" and "2v2" in sena.detail


async def _first_legal(seat: HumanSeat, seen: list[Turn]) -> None:
    """The scripted person: answers each turn with its first legal action."""
    version = 0
    while not seat.closed:
        version = await seat.wait_change(version, 5.0)
        turn = seat.turn
        if turn is None:
            continue
        seen.append(turn)
        first = turn.request.legal_actions[0]
        assert seat.submit(turn.number, ActResponse(action=first.action, card=first.card)) is None


async def _play(
    seat: HumanSeat, settings: MatchSettings = SHORT, person_first: bool = True
) -> Replay:
    bot = InProcessBot("house", random_decider(7))
    human = (EntrantRecord("person", "person"), seat)
    other = (EntrantRecord("house", "builtin:random"), bot)
    entrants = [human, other] if person_first else [other, human]
    return await asyncio.wait_for(run_match("p1", 11, settings, entrants), 60)


async def test_a_person_plays_a_whole_match_that_verifies() -> None:
    seat = HumanSeat("person", clock_s=10)
    seen: list[Turn] = []
    person = asyncio.create_task(_first_legal(seat, seen))
    replay = await _play(seat, MatchSettings(rules=Rules(points_to_win=15), games_per_match=2))
    await asyncio.wait_for(person, 10)
    verify_replay(replay)
    assert seen and replay.result.reason != "walkover"
    faults = [e for g in replay.games for e in g.events if isinstance(e, Decision) and e.fault]
    assert faults == []
    numbers = [t.number for t in seen]
    assert numbers == list(range(1, len(seen) + 1))
    for turn in seen:  # only the person's own seat: its observation, its cards
        observation = turn.request.observation
        assert turn.request.seat == observation.seat == observation.to_act
        assert len(observation.cards) <= 3
    assert seat.last_end is not None and seat.last_end.observation.game_over


async def test_no_answer_in_time_is_a_timeout_fault_with_the_fallback() -> None:
    seat = HumanSeat("person", clock_s=0.05)
    settings = MatchSettings(rules=Rules(points_to_win=15), games_per_match=1, fault_limit=2)
    replay = await _play(seat, settings, person_first=False)
    faults = [e for e in replay.games[0].events if isinstance(e, Decision) and e.fault]
    assert [f.fault for f in faults] == ["timeout", "timeout"]
    assert all(f.fallback for f in faults)
    assert replay.result.winner == 0 and replay.games[0].forfeit == 1
    verify_replay(replay)


async def test_leaving_forfeits() -> None:
    seat = HumanSeat("person", clock_s=30)

    async def leave_at_first_turn() -> None:
        version = 0
        while seat.turn is None:
            version = await seat.wait_change(version, 5.0)
        seat.leave()

    leaver = asyncio.create_task(leave_at_first_turn())
    replay = await _play(seat)
    await leaver
    assert replay.result.winner == 1 and replay.games[-1].forfeit == 0
    faults = [e for e in replay.games[-1].events if isinstance(e, Decision) and e.fault]
    assert faults and {f.fault for f in faults} == {"connect"}
    assert seat.submit(1, ActResponse(action="mazo")) is not None  # nothing open any more
    verify_replay(replay)


async def test_answering_just_before_each_clock_cannot_hold_a_game_past_its_bank() -> None:
    """Issue 33, 9: a person who answers every decision just before its clock runs out held a
    /play session for a whole match (any answer opened a fresh clock). The game's thinking time
    is a bank: once spent, every decision is a timeout at once and the fault limit forfeits."""
    seat = HumanSeat("person", clock_s=5.0, bank_s=1.0)
    answered: list[float] = []

    async def stalling() -> None:
        version = 0
        while not seat.closed:
            version = await seat.wait_change(version, 5.0)
            turn = seat.turn
            if turn is None:
                continue
            await asyncio.sleep(0.3)  # the attack: take most of what the clock allows
            first = turn.request.legal_actions[0]
            if seat.submit(turn.number, ActResponse(action=first.action, card=first.card)) is None:
                answered.append(0.3)

    person = asyncio.create_task(stalling())
    settings = MatchSettings(rules=Rules(points_to_win=30), games_per_match=3)
    try:
        replay = await _play(seat, settings)
    finally:
        person.cancel()
    assert replay.result.reason == "forfeit" and replay.result.winner == 1
    faults = [e for g in replay.games for e in g.events if isinstance(e, Decision) and e.fault]
    assert faults and faults[-1].detail == BANK_SPENT_DETAIL
    assert {f.fault for f in faults} == {"timeout"}
    # the bank of 1 s held at most a few answers of 0.3 s each, not a 30-point game's
    assert len(answered) <= 1.0 / 0.3 + 1
    verify_replay(replay)


def test_each_decision_s_clock_is_what_is_left_of_the_bank() -> None:
    seat = HumanSeat("person", clock_s=60.0, bank_s=90.0)
    assert seat.clock_for_decision() == 60.0  # no game started: the clock alone
    seat.bank_left = 90.0
    assert seat.clock_for_decision() == 60.0
    seat.bank_left = 12.5
    assert seat.clock_for_decision() == 12.5
    seat.bank_left = 0.0
    assert seat.clock_for_decision() == 0.0
    assert HumanSeat("person", clock_s=60.0).clock_for_decision() == 60.0  # no bank
