"""A match played again is dealt afresh, verifiably (issue 21, item 7; arena/game/deals.py).

Before, a match begun twice (its worker killed, the sweeper sending it again) dealt every bot
the same cards in every hand, so a bot with memory, or a spectator of the first attempt, knew
part of the opponent's hand in the second. Attempt 0 must stay byte for byte what a bot was
sent before; later attempts deal from their own stream, recorded in the replay and checked by
the verifier."""

from __future__ import annotations

import hashlib

import msgspec
import pytest

from arena.client.bot_client import Fault, TimeBank
from arena.client.connection import Answer, InProcessBot, random_decider
from arena.game.deals import game_id, game_seed
from arena.match.replay import EntrantRecord, Replay, VerifyError, load_replay
from arena.match.runner import MatchSettings, run_match
from arena.match.verify import verify_replay
from arena.wire.protocol import ActRequest, EndRequest, StartRequest
from engine import Rules
from engine.events import HandStarted

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Recorder(InProcessBot):
    """A random bot that keeps the wire bytes of every request it receives, with the fields
    that hold measured time zeroed (they depend on the machine, not on the deals)."""

    def __init__(self, name: str, seed: int) -> None:
        super().__init__(name, random_decider(seed))
        self.wire: list[bytes] = []

    def _keep(self, request: StartRequest | ActRequest | EndRequest) -> None:
        if isinstance(request, ActRequest):
            request = msgspec.structs.replace(
                request, timeout_ms=0, time_bank_ms=0, last_latency_ms=None
            )
        self.wire.append(msgspec.json.encode(request))

    async def start(self, request: StartRequest) -> Fault | None:
        self._keep(request)
        return None

    async def act(self, request: ActRequest, bank: TimeBank) -> Answer:
        self._keep(request)
        return await super().act(request, bank)

    async def end(self, request: EndRequest) -> None:
        self._keep(request)


SETTINGS = MatchSettings(rules=Rules(points_to_win=15), games_per_match=2)

ATTEMPT_0_WIRE = "b1c06039c9c4ac0c57c755b841777f29fb46bd160e1f5a31cf585c9e87f8c563"
"""SHA-256 of every request both bots of match ``wire-pin`` (seed 20261204, bots seeded 1 and
2) receive, in order (71 requests), measured on the code before attempts existed (commit
6f26dea) and again after: attempt 0 must not change one byte a bot is sent. Measured again
when ``/end`` gained ``entrants`` (a field added within version 1, issue 33: a ladder's names
come at ``/end``): ee57ce19... before, this after, with nothing else changed."""


async def _play(attempt: int) -> tuple[Replay, list[Recorder]]:
    bots = [Recorder("a", 1), Recorder("b", 2)]
    entrants = [(EntrantRecord(b.name, f"builtin:{b.name}"), b) for b in bots]
    replay = await run_match("wire-pin", 20261204, SETTINGS, entrants, attempt=attempt)
    return replay, bots


def _digest(bots: list[Recorder]) -> str:
    digest = hashlib.sha256()
    for bot in bots:
        for body in bot.wire:
            digest.update(body)
    return digest.hexdigest()


async def test_attempt_0_sends_bots_the_bytes_it_always_sent() -> None:
    replay, bots = await _play(0)
    assert _digest(bots) == ATTEMPT_0_WIRE
    assert b'"attempt"' not in msgspec.json.encode(replay)  # absent for 0, as before
    assert [g.game_id for g in replay.games] == ["wire-pin-g1", "wire-pin-g2"]


def _hands(replay: Replay) -> list[tuple[tuple[str, ...], ...]]:
    return [
        tuple(tuple(sorted(h)) for h in e.deal)
        for g in replay.games
        for e in g.events
        if isinstance(e, HandStarted)
    ]


async def test_two_attempts_deal_differently_and_both_verify() -> None:
    first, _ = await _play(0)
    second, bots = await _play(1)
    assert second.attempt == 1 and second.seed == first.seed
    assert [g.seed for g in second.games] == [
        game_seed(first.seed, i, "independent", 1) for i in range(2)
    ]
    assert not set(g.seed for g in first.games) & set(g.seed for g in second.games)
    # no hand of the second attempt is a hand of the first (the same three cards)
    one = {hand for deal in _hands(first) for hand in deal}
    two = {hand for deal in _hands(second) for hand in deal}
    assert not one & two
    # the bots are told it is another attempt (a bot keyed on the game id starts afresh)
    assert [g.game_id for g in second.games] == ["wire-pin-a1-g1", "wire-pin-a1-g2"]
    assert game_id("wire-pin", 0, 1) in bots[0].wire[0].decode()
    for replay in (first, second):
        verify_replay(load_replay(msgspec.json.encode(replay)))


async def test_a_tampered_attempt_number_is_refused() -> None:
    second, _ = await _play(1)
    for forged in (0, 2):
        data = msgspec.to_builtins(second)
        data["attempt"] = forged
        with pytest.raises(VerifyError, match="attempt"):
            verify_replay(msgspec.convert(data, Replay))
    data = msgspec.to_builtins(second)
    data["attempt"] = -1
    with pytest.raises(VerifyError):
        load_replay(msgspec.json.encode(data))


async def test_a_replay_without_an_attempt_verifies_as_attempt_0() -> None:
    first, _ = await _play(0)
    data = msgspec.to_builtins(first)
    assert "attempt" not in data
    old = load_replay(msgspec.json.encode(data))
    assert old.attempt == 0
    verify_replay(old)


def test_game_seeds_of_attempt_0_are_the_documented_formula() -> None:
    for match_seed, index in ((1, 0), (2**62, 5)):
        formula = hashlib.sha256(f"{match_seed}/game/{index}".encode()).digest()
        assert game_seed(match_seed, index, "independent") == (
            int.from_bytes(formula[:8], "big") >> 1
        )
        again = hashlib.sha256(f"{match_seed}/attempt/3/game/{index}".encode()).digest()
        assert game_seed(match_seed, index, "independent", 3) == (
            int.from_bytes(again[:8], "big") >> 1
        )
    with pytest.raises(ValueError):
        game_seed(1, 0, "independent", -1)
