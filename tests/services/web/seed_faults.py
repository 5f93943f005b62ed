"""Matches lost without being played out, for the page tests: a walkover and a forfeit of every
fault kind, played for real by ``arena.match.run_match`` against bots that fail the way a bot
over HTTP fails (the guarded client's ``Fault``, with its own English detail), and a round robin
whose pairings hold a walkover and a forfeit.

What the pages must do with them: say why each match was lost, in the page's language, from
the fault's kind, call and numbers (never by showing the client's English words as the reason).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from arena.client.bot_client import Fault, TimeBank
from arena.client.connection import Answer, BotConnection, InProcessBot
from arena.match.replay import EntrantRecord
from arena.sdk import strategy_decider
from arena.wire.protocol import ActRequest, ActResponse, EndRequest, StartRequest
from services.domain.match_order import EntrantOrder
from tests.services.helpers.flow_helpers import Connector

ILLEGAL_WORD = "not_a_word"
"""What the cheating bot answers: the page quotes it as the bot's own (data, not a sentence)."""


@dataclass
class FailingBot:
    """A bot that fails one call the way the guarded client reports it: ``open`` (its
    ``GET /``), ``start`` or every ``act``; ``act`` may instead answer a word that is no
    action (``illegal_action``, judged by the arena)."""

    name: str
    call: str  # "info", "start", "act"
    fault: Fault | None  # None with call "act": an illegal word instead

    async def open(self) -> Fault | None:
        return self.fault if self.call == "info" else None

    async def start(self, request: StartRequest) -> Fault | None:
        return self.fault if self.call == "start" else None

    async def act(self, request: ActRequest, bank: TimeBank) -> Answer:
        start = time.perf_counter()
        latency = (time.perf_counter() - start) * 1000
        if self.fault is None:
            return Answer(ActResponse(action=ILLEGAL_WORD), None, latency)
        return Answer(None, self.fault, latency)

    async def end(self, request: EndRequest) -> None:
        return None

    async def close(self) -> None:
        return None


FAILURES: dict[str, tuple[str, Fault | None]] = {
    # name -> how it fails (the names read as bots' names, not as sentences); each detail is
    # the one arena/client/bot_client.py writes for that failure
    "caido": ("info", Fault("connect", "connection refused", 0.4)),
    "firma-vieja": (
        "start",
        Fault(
            "http_status",
            "HTTP 401, expected 2xx: the bot rejected the signature (is it using the right "
            "secret?)",
            3.0,
            401,
        ),
    ),
    "lento": ("act", Fault("timeout", "no complete answer within 1000 ms", 1000.0)),
    "mudo": ("act", Fault("bad_body", "JSON is malformed: invalid character (byte 0)", 2.0)),
    "gordo": ("act", Fault("too_large", "answer is longer than 65536 bytes; cut off", 2.0)),
    "roto": ("act", Fault("http_status", "HTTP 500, expected 200", 2.0, 500)),
    "tramposo": ("act", None),
}
"""One bot per way of losing without playing: each fault kind, on each call it can happen on."""


def failing(name: str) -> BotConnection:
    call, fault = FAILURES[name]
    return FailingBot(name, call, fault)


def connector(failing_ids: dict[int, str]) -> Connector:
    """A flow connector: the bots in ``failing_ids`` (bot id -> FAILURES name) fail, the others
    play the heuristic strategy."""

    def make(entrant: EntrantOrder, seed: int) -> tuple[EntrantRecord, BotConnection]:
        record = EntrantRecord(entrant.name, entrant.url)
        if entrant.bot_id in failing_ids:
            return record, failing(failing_ids[entrant.bot_id])
        return record, InProcessBot(
            entrant.name, strategy_decider("heuristic", seed + entrant.bot_id)
        )

    return make
