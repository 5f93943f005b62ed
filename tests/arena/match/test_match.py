"""The match runner with in-process bots: faults, forfeits, walkovers, replays (deals:
test_deals.py)."""

from __future__ import annotations

import asyncio
import time

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.client.bot_client import Fault, TimeBank
from arena.client.connection import Answer, InProcessBot, random_decider
from arena.match.replay import Cause, Decision, EntrantRecord, Replay, VerifyError, load_replay
from arena.match.runner import MatchSettings, run_match
from arena.match.verify import verify_replay
from arena.wire import structs as wire
from arena.wire.protocol import ActRequest, ActResponse, EndRequest, StartRequest
from engine import Rules
from engine.events import ActionTaken, HandStarted
from tests.engine.strategies import cards_in

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def bot(name: str, seed: int) -> tuple[EntrantRecord, InProcessBot]:
    return EntrantRecord(name, "builtin:random"), InProcessBot(name, random_decider(seed))


async def test_result_counts_games_then_tantos() -> None:
    replay = await run_match("m2", 5, MatchSettings(games_per_match=2), [bot("a", 3), bot("b", 4)])
    result = replay.result
    wins = [0, 0]
    tantos = [0, 0]
    for game in replay.games:
        assert game.winner is not None
        wins[game.winner] += 1
        for team, entrant in enumerate(game.teams):
            tantos[entrant] += game.score[team]
    assert result.games_won == tuple(wins) and result.tantos == tuple(tantos)
    if wins[0] != wins[1]:
        assert result.reason == "games" and result.winner == (0 if wins[0] > wins[1] else 1)
    elif tantos[0] != tantos[1]:
        assert result.reason == "tantos" and result.winner == (0 if tantos[0] > tantos[1] else 1)
    assert result.latency is not None and result.latency[0].calls > 0


def _always(response: ActResponse):  # type: ignore[no-untyped-def]
    return lambda request: response


async def test_illegal_answers_are_faults_with_fallback_then_forfeit() -> None:
    cheat = InProcessBot("cheat", _always(ActResponse(action="play", card="1E")))
    replay = await run_match(
        "m3",
        1,
        MatchSettings(fault_limit=3),
        [(EntrantRecord("cheat", "builtin:cheat"), cheat), bot("honest", 9)],
    )
    game = replay.games[0]
    faults = [e for e in game.events if isinstance(e, Decision) and e.fault]
    assert [f.strikes for f in faults] == [1, 2, 3]
    assert {f.fault for f in faults} == {"illegal_action"}
    assert all(f.fallback for f in faults)
    assert game.forfeit == 0 and game.winner == 1
    assert replay.result.reason == "forfeit" and replay.result.winner == 1
    assert len(replay.games) == 1  # the match stops at the forfeit
    # the cause: the act fault that reached the limit
    assert replay.result.causes == (
        Cause(0, "act", "illegal_action", None, "fault 3 in game 1: 'play 1E' is not legal now"),
    )
    verify_replay(replay)
    # the trusted side recomputes a forfeit's cause: a different one does not verify
    data = msgspec.to_builtins(replay)
    data["result"]["causes"][0]["kind"] = "timeout"
    with pytest.raises(VerifyError, match="causes"):
        verify_replay(msgspec.convert(data, Replay))


async def test_fallback_plays_the_weakest_card_or_refuses_the_question() -> None:
    def broken(request: ActRequest) -> ActResponse:
        raise RuntimeError("bug in the bot")

    replay = await run_match(
        "m4",
        3,
        MatchSettings(fault_limit=1000, rules=Rules(flor=False)),
        [(EntrantRecord("broken", "builtin:x"), InProcessBot("broken", broken)), bot("b", 5)],
    )
    for game in replay.games:
        events = game.events
        for i, event in enumerate(events):
            if isinstance(event, Decision) and event.fault:
                assert event.fault == "http_status" and "bug in the bot" in (event.detail or "")
                taken = events[i + 1]
                assert isinstance(taken, ActionTaken)
                assert taken.action in ("play", "no_quiero")
    assert replay.result.winner == 1


def test_fallback() -> None:
    from arena.game.fallback import fallback_action
    from engine.actions import Action

    plays = [Action("play", c) for c in ("1E", "4C", "7B")]
    assert fallback_action([*plays, Action("truco"), Action("mazo")]) == Action("play", "4C")
    assert fallback_action([Action("quiero"), Action("no_quiero"), Action("mazo")]) == Action(
        "no_quiero"
    )
    assert fallback_action([Action("flor")]) == Action("flor")
    assert fallback_action(
        [Action("con_flor_quiero"), Action("con_flor_me_achico"), Action("contraflor_al_resto")]
    ) == Action("con_flor_me_achico")


async def test_a_sena_in_1v1_or_an_overlong_say_is_an_illegal_action() -> None:
    calls = {"n": 0}

    def sneaky(request: ActRequest) -> ActResponse:
        calls["n"] += 1
        choice = request.legal_actions[0]
        return ActResponse(action=choice.action, card=choice.card, sena="ancho_espada")

    replay = await run_match(
        "m5",
        4,
        MatchSettings(fault_limit=2),
        [(EntrantRecord("s", "builtin:s"), InProcessBot("s", sneaky)), bot("b", 1)],
    )
    faults = [e for e in replay.games[0].events if isinstance(e, Decision) and e.fault]
    assert faults and "señas exist only in 2v2" in (faults[0].detail or "")


class Unreachable(InProcessBot):
    async def open(self) -> Fault | None:
        return Fault("connect", "connection refused", 1.0)


async def test_walkover_when_a_bot_cannot_be_reached() -> None:
    down = Unreachable("down", random_decider(1))
    replay = await run_match(
        "m6", 1, MatchSettings(), [bot("up", 1), (EntrantRecord("down", "x"), down)]
    )
    assert replay.result.reason == "walkover" and replay.result.winner == 0
    assert replay.result.walkover == (1,) and replay.games == []
    assert replay.result.causes == (Cause(1, "info", "connect", None, "connection refused"),)
    both = await run_match(
        "m7",
        1,
        MatchSettings(),
        [
            (EntrantRecord("d1", "x"), Unreachable("d1", random_decider(1))),
            (EntrantRecord("d2", "x"), Unreachable("d2", random_decider(1))),
        ],
    )
    assert both.result.winner is None and both.result.walkover == (0, 1)
    assert [(c.side, c.call) for c in both.result.causes] == [(0, "info"), (1, "info")]


class RefusesStart(InProcessBot):
    async def start(self, request: StartRequest) -> Fault | None:
        return Fault("http_status", "HTTP 401, expected 2xx", 1.0, 401)


async def test_walkover_on_the_first_start_names_the_call_and_status() -> None:
    refuser = RefusesStart("strict", random_decider(1))
    replay = await run_match(
        "m8", 1, MatchSettings(), [bot("up", 1), (EntrantRecord("strict", "x"), refuser)]
    )
    assert replay.result.reason == "walkover" and replay.result.winner == 0
    assert replay.result.causes == (
        Cause(1, "start", "http_status", 401, "HTTP 401, expected 2xx"),
    )
    encoded = msgspec.json.decode(msgspec.json.encode(replay))
    assert encoded["result"]["causes"] == [
        {
            "side": 1,
            "call": "start",
            "kind": "http_status",
            "status": 401,
            "detail": "HTTP 401, expected 2xx",
        }
    ]
    verify_replay(load_replay(msgspec.json.encode(replay)))


class Slow(InProcessBot):
    """Answers after ``delay`` seconds of real waiting."""

    def __init__(self, delay: float) -> None:
        super().__init__("slow", random_decider(2))
        self.delay = delay

    async def act(self, request: ActRequest, bank: TimeBank) -> Answer:
        start = time.perf_counter()
        await asyncio.sleep(self.delay)
        answer = await super().act(request, bank)
        latency = (time.perf_counter() - start) * 1000
        if latency > bank.limit_ms(request.timeout_ms):
            return Answer(None, Fault("timeout", "too slow", latency), latency)
        return Answer(answer.response, None, latency)


async def test_time_bank_runs_out_then_every_call_is_a_timeout() -> None:
    slow = Slow(0.02)
    settings_ = MatchSettings(
        timeout_ms=1000, time_bank_ms=100, fault_limit=1000, games_per_match=1
    )
    replay = await run_match("m8", 2, settings_, [(EntrantRecord("slow", "x"), slow), bot("b", 3)])
    decisions = [e for e in replay.games[0].events if isinstance(e, Decision) and e.seat % 2 == 0]
    assert any(d.fault == "timeout" for d in decisions)
    first_timeout = next(i for i, d in enumerate(decisions) if d.fault == "timeout")
    spent = sum(d.latency_ms for d in decisions[:first_timeout])
    # the bank of 100 ms was not spent before, the call that timed out overran what was left
    # (however slow a loaded machine made each call), and from then on nothing is left
    assert spent <= 100
    assert decisions[first_timeout].latency_ms > 100 - spent - 0.1
    assert all(d.fault == "timeout" for d in decisions[first_timeout:])


class Recorder(InProcessBot):
    """A random bot that keeps every request it receives."""

    def __init__(self, name: str, seed: int) -> None:
        super().__init__(name, random_decider(seed))
        self.requests: list[object] = []

    async def start(self, request: StartRequest) -> Fault | None:
        self.requests.append(request)
        return None

    async def act(self, request: ActRequest, bank: TimeBank) -> Answer:
        self.requests.append(request)
        return await super().act(request, bank)

    async def end(self, request: EndRequest) -> None:
        self.requests.append(request)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), flor=st.booleans())
def test_no_payload_shows_another_seats_unplayedcards_in(seed: int, flor: bool) -> None:
    a, b = Recorder("a", seed), Recorder("b", seed + 1)
    replay = asyncio.run(
        run_match(
            "m9",
            seed,
            MatchSettings(rules=Rules(players=4, flor=flor), games_per_match=2),
            [(EntrantRecord("a", "x"), a), (EntrantRecord("b", "x"), b)],
        )
    )
    assert any(isinstance(r, ActRequest) for r in a.requests + b.requests)
    for recorder in (a, b):
        for request in recorder.requests:
            if not isinstance(request, ActRequest):
                continue
            obs = request.observation
            game = replay.games[int(request.game_id.rsplit("g", 1)[1]) - 1]
            deal = [e.deal for e in game.events if isinstance(e, HandStarted)][obs.hand]
            own = set(deal[request.seat])
            played = {c for rnd in obs.rounds for _, c in rnd}
            current = cards_in((obs.cards, obs.rounds, obs.events, request.legal_actions))
            assert current <= own | played, current - own - played
            assert set(obs.cards) <= own
            shown: set[str] = set()
            for event in obs.previous_hand:
                if isinstance(event, wire.HandEnded):
                    for proof in event.shown:
                        shown.update(proof.cards)
            if obs.hand > 0:
                previous = [e.deal for e in game.events if isinstance(e, HandStarted)][obs.hand - 1]
                seen_before = cards_in(obs.previous_hand)
                played_before = {
                    e.card for e in obs.previous_hand if isinstance(e, wire.ActionTaken) and e.card
                }
                assert seen_before <= set(previous[request.seat]) | played_before | shown


async def test_tampered_replays_fail_verification() -> None:
    replay = await run_match("m10", 8, MatchSettings(), [bot("a", 1), bot("b", 2)])
    data = msgspec.to_builtins(replay)
    events = data["games"][0]["events"]
    index = next(
        i for i, e in enumerate(events) if e.get("type") == "action" and e["action"] == "play"
    )
    hand = next(e for e in events if e.get("type") == "hand_started")
    other = next(c for c in hand["deal"][events[index]["seat"]] if c != events[index]["card"])
    events[index]["card"] = other
    with pytest.raises(VerifyError):
        verify_replay(msgspec.convert(data, Replay))
    data = msgspec.to_builtins(replay)
    data["result"]["tantos"] = [0, 0]
    with pytest.raises(VerifyError, match="tantos"):
        verify_replay(msgspec.convert(data, Replay))
    with pytest.raises(VerifyError, match="not a valid replay"):
        load_replay(b'{"format": 1}')
