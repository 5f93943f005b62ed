"""Hidden information at the arena level: no payload sent to a bot shows a card its seat may not
know, and the spectator view of a live game shows no deal and no seña.

Many random 2v2 matches (hypothesis; team 2v2, one bot a side, and individual 2v2, one bot a
seat) run through ``run_match`` with recording connections; the
replay is the ground truth: walking its events in order gives, at every ``/act`` call, what each
seat may know (its own dealt cards, every card played so far, the proofs shown at hands' ends).
Every card string anywhere in a payload (start, act, end) must be in that set. Señas are seen
only by the actor, its partner and the opponents the engine chose as witnesses. Every request
goes to the bot that plays its seat in that game.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.client.bot_client import Fault, TimeBank
from arena.client.connection import Answer, InProcessBot
from arena.client.signing import generate_secret
from arena.match.entrants import connect
from arena.match.replay import Decision, EntrantRecord, Replay, StartFault
from arena.match.runner import MatchSettings, run_match
from arena.match.verify import verify_replay
from arena.sdk import BotServer
from arena.wire import structs as wire
from arena.wire.protocol import ActRequest, ActResponse, EndRequest, StartRequest
from arena.wire.structs import event_to_wire
from engine import Rules
from engine.actions import SENAS
from engine.cards import DECK
from engine.events import ActionTaken, Event, HandEnded, HandStarted
from engine.observe import SPECTATOR, visible_events

DECK_SET = frozenset(DECK)
Request = StartRequest | ActRequest | EndRequest


@dataclass
class Recorder:
    """Every request sent to any bot of a match, in the order the arena sent them."""

    requests: list[tuple[str, Request]] = field(default_factory=list)  # (entrant name, request)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, name: str, request: Request) -> None:
        with self.lock:
            self.requests.append((name, request))


def chatty_decider(seed: int, sena_rate: float) -> Any:
    """Uniform among legal actions; in 2v2 adds a seña (and sometimes a say) now and then."""
    rng = random.Random(seed)

    def decide(request: ActRequest) -> ActResponse:
        choice = request.legal_actions[rng.randrange(len(request.legal_actions))]
        sena = rng.choice(SENAS) if rng.random() < sena_rate else None
        say = "hola" if rng.random() < 0.05 else None
        return ActResponse(action=choice.action, card=choice.card, sena=sena, say=say)

    return decide


class RecordingBot:
    """An in-process bot that records the start, act and end requests it is sent."""

    def __init__(self, name: str, recorder: Recorder, seed: int, sena_rate: float) -> None:
        self.name = name
        self._inner = InProcessBot(name, chatty_decider(seed, sena_rate))
        self._recorder = recorder

    async def open(self) -> Fault | None:
        return await self._inner.open()

    async def start(self, request: StartRequest) -> Fault | None:
        self._recorder.add(self.name, request)
        return await self._inner.start(request)

    async def act(self, request: ActRequest, bank: TimeBank) -> Answer:
        self._recorder.add(self.name, request)
        return await self._inner.act(request, bank)

    async def end(self, request: EndRequest) -> None:
        self._recorder.add(self.name, request)
        await self._inner.end(request)

    async def close(self) -> None:
        await self._inner.close()


def cards_in(payload: object) -> set[str]:
    """Every card string anywhere in the JSON of a payload (keys and values)."""
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, str):
            if node in DECK_SET:
                found.add(node)
        elif isinstance(node, dict):
            for key, value in node.items():
                walk(key)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(msgspec.json.decode(msgspec.json.encode(payload)))
    return found


class Knowledge:
    """What each seat may know, built from the true events of a game in order."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.own: list[set[str]] = [set() for _ in range(players)]
        self.public: set[str] = set()  # played or shown
        self.true_actions: list[ActionTaken] = []

    def learn(self, event: Event) -> None:
        if isinstance(event, HandStarted):
            for seat, cards in enumerate(event.deal):
                self.own[seat].update(cards)
        elif isinstance(event, ActionTaken):
            self.true_actions.append(event)
            if event.card is not None:
                self.public.add(event.card)
        elif isinstance(event, HandEnded):
            for shown in event.shown:
                self.public.update(shown.cards)

    def check(self, seat: int, request: Request) -> None:
        allowed = self.own[seat] | self.public
        leaked = cards_in(request) - allowed
        assert not leaked, f"seat {seat} was sent {sorted(leaked)} in {type(request).__name__}"
        if isinstance(request, ActRequest | EndRequest):
            obs = request.observation
            for event in (*obs.events, *obs.previous_hand):
                assert not isinstance(event, wire.HandStarted), "a deal was sent to a bot"
                if isinstance(event, wire.ActionTaken) and event.sena is not None:
                    assert event.seat == seat or seat in event.sena_seen_by, (seat, event)
                    true_actions = [event_to_wire(e) for e in self.true_actions]
                    assert event in true_actions, event  # not forged, not stale


def check_match(replay: Replay, recorded: list[tuple[str, Request]]) -> int:
    """Walk the replay and the recorded requests together; return the requests checked."""
    verify_replay(replay)
    queue: Iterator[tuple[str, Request]] = iter(recorded)
    checked = 0
    players = replay.rules.players
    for game in replay.games:
        names = [replay.entrants[game.entrant_at(seat)].name for seat in range(players)]
        know = Knowledge(players)
        first_deal = next(e for e in game.events if isinstance(e, HandStarted))
        know.learn(first_deal)  # logged before the /start calls
        for seat in range(players):
            name, request = next(queue)
            assert isinstance(request, StartRequest) and request.seat == seat
            assert name == names[seat]
            know.check(seat, request)
            checked += 1
        for event in game.events:
            if isinstance(event, Decision):
                name, request = next(queue)
                assert isinstance(request, ActRequest), request
                assert request.seat == event.seat and name == names[event.seat]
                assert request.game_id == game.game_id
                know.check(event.seat, request)
                checked += 1
            elif isinstance(event, StartFault):
                continue
            elif event is not first_deal:
                know.learn(event)
        for seat in range(players):
            name, request = next(queue)
            assert isinstance(request, EndRequest) and request.seat == seat
            assert name == names[seat]
            know.check(seat, request)
            checked += 1
        # the spectator view of the live game, at every 10th decision and at its end, hides the
        # deals and every seña, and shows no card that was not played or shown
        engine_events = [e for e in game.events if not isinstance(e, Decision | StartFault)]
        for upto in [*range(1, len(engine_events), 10), len(engine_events)]:
            shown = visible_events(engine_events[:upto], SPECTATOR)
            assert not any(isinstance(e, HandStarted) for e in shown)
            assert not any(isinstance(e, ActionTaken) and (e.sena or e.sena_seen_by) for e in shown)
            public = {e.card for e in engine_events[:upto] if isinstance(e, ActionTaken) and e.card}
            for e in engine_events[:upto]:
                if isinstance(e, HandEnded):
                    public.update(c for proof in e.shown for c in proof.cards)
            assert cards_in(list(shown)) <= public
    assert next(queue, None) is None, "a request the replay does not account for"
    return checked


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
@given(
    seed=st.integers(0, 2**31),
    flor=st.booleans(),
    points=st.sampled_from([15, 30]),
    sena_seen=st.sampled_from([0.0, 0.25, 1.0]),
    sena_rate=st.sampled_from([0.0, 0.3, 1.0]),
    games=st.integers(1, 2),
    individual=st.booleans(),
)
def test_no_payload_shows_a_card_the_seat_may_not_know(
    seed: int,
    flor: bool,
    points: int,
    sena_seen: float,
    sena_rate: float,
    games: int,
    individual: bool,
) -> None:
    rules = Rules(players=4, flor=flor, points_to_win=points, sena_seen_by_opponents=sena_seen)
    s = MatchSettings(rules=rules, games_per_match=games, fault_limit=1000)
    recorder = Recorder()
    entrants = [
        (EntrantRecord(name, f"builtin:{name}"), RecordingBot(name, recorder, seed + i, sena_rate))
        for i, name in enumerate(
            ("north", "east", "south", "west") if individual else ("north-south", "east-west")
        )
    ]
    replay = asyncio.run(run_match(f"hidden-{seed}", seed, s, entrants))
    assert replay.result.reason != "walkover"
    assert check_match(replay, recorder.requests) > 8 * len(replay.games)  # start + end + act


def test_no_payload_over_http_shows_a_card_the_seat_may_not_know() -> None:
    """The same check on what really went over the wire: SDK bots record what they decode."""
    secret = generate_secret()
    recorder = Recorder()
    servers: list[BotServer] = []
    for i, name in enumerate(("north-south", "east-west")):
        decide = chatty_decider(100 + i, 0.3)

        def record(request: Any, name: str = name) -> None:
            recorder.add(name, request)

        def act(request: ActRequest, name: str = name, decide: Any = decide) -> ActResponse:
            recorder.add(name, request)
            result: ActResponse = decide(request)
            return result

        servers.append(BotServer(act, name=name, secret=secret, on_start=record, on_end=record))
    for server in servers:
        server.start()
    try:
        entrants = [
            connect(
                server.url, seed=i, secret=secret, timeout_ms=2000, allow_loopback=True, label=name
            )
            for i, (server, name) in enumerate(
                zip(servers, ("north-south", "east-west"), strict=True)
            )
        ]
        rules = Rules(players=4, points_to_win=15, sena_seen_by_opponents=0.5)
        s = MatchSettings(rules=rules, games_per_match=2, fault_limit=1000)
        replay = asyncio.run(run_match("hidden-http", 3, s, entrants))
    finally:
        for server in servers:
            server.stop()
    assert check_match(replay, recorder.requests) > 40
    senas = [e for g in replay.games for e in g.events if isinstance(e, ActionTaken) and e.sena]
    assert senas  # the seña rule was exercised over the wire too
