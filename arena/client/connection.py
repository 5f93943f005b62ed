"""How the match runner talks to a bot: over HTTP through the guarded client, or in process.

Both kinds answer the same four calls; a bot's misbehaviour is always a returned
:class:`~arena.client.bot_client.Fault`, never an exception.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Protocol

import msgspec

from arena.client.bot_client import BotClient, Fault, Reply, TimeBank
from arena.wire import structs as wire
from arena.wire.protocol import (
    API_VERSION,
    ActRequest,
    ActResponse,
    BotInfo,
    EndRequest,
    StartRequest,
)
from engine.actions import Action

Choice = ActResponse | Action | wire.Action
"""What a decide function returns: an answer, or an action (the engine's or the wire's)."""
Decide = Callable[[ActRequest], Choice]


class Answer(msgspec.Struct, frozen=True):
    """What one ``/act`` call produced: a decoded response or a fault, and its latency."""

    response: ActResponse | None
    fault: Fault | None
    latency_ms: float


class BotConnection(Protocol):
    name: str

    async def open(self) -> Fault | None: ...

    async def start(self, request: StartRequest) -> Fault | None: ...

    async def act(self, request: ActRequest, bank: TimeBank) -> Answer: ...

    async def end(self, request: EndRequest) -> None: ...

    async def close(self) -> None: ...


class InProcessBot:
    """A bot that is a Python function: built-in strategies in local play, tests, benchmarks."""

    def __init__(self, name: str, decide: Decide) -> None:
        self.name = name
        self._decide = decide

    async def open(self) -> Fault | None:
        return None

    async def start(self, request: StartRequest) -> Fault | None:
        return None

    async def act(self, request: ActRequest, bank: TimeBank) -> Answer:
        start = time.perf_counter()
        try:
            answer = self._decide(request)
            response = (
                answer
                if isinstance(answer, ActResponse)
                else ActResponse(
                    action=answer.action, card=answer.card, say=answer.say, sena=answer.sena
                )
            )
        except Exception as exc:  # an in-process bot's bug is its fault, as over HTTP
            latency = (time.perf_counter() - start) * 1000
            return Answer(None, Fault("http_status", f"bot raised {exc!r}"[:300], latency), latency)
        latency = (time.perf_counter() - start) * 1000
        if latency > bank.limit_ms(request.timeout_ms):
            fault = Fault("timeout", f"answered after {latency:.0f} ms", latency)
            return Answer(None, fault, latency)
        return Answer(response, None, latency)

    async def end(self, request: EndRequest) -> None:
        return None

    async def close(self) -> None:
        return None


class HttpBot:
    """A bot behind its base URL, called through the guarded :class:`BotClient`."""

    def __init__(self, name: str, client: BotClient) -> None:
        self.name = name
        self.client = client
        self.info: BotInfo | None = None

    async def open(self) -> Fault | None:
        result = await self.client.info()
        if isinstance(result, Fault):
            return result
        info = result.decode(BotInfo)
        if isinstance(info, Fault):
            return info
        if info.apiversion != API_VERSION:
            shown = repr(info.apiversion[:20]) + ("..." if len(info.apiversion) > 20 else "")
            return Fault("bad_body", f"apiversion {shown}, expected '1'", 0.0)
        self.info = info
        return None

    async def start(self, request: StartRequest) -> Fault | None:
        result = await self.client.start(request)
        return result if isinstance(result, Fault) else None

    async def act(self, request: ActRequest, bank: TimeBank) -> Answer:
        return answer_from(await self.client.act(request, bank))

    async def end(self, request: EndRequest) -> None:
        await self.client.end(request)

    async def close(self) -> None:
        await self.client.aclose()


def answer_from(result: Reply | Fault) -> Answer:
    """What an HTTP ``/act`` call produced: the decoded ``ActResponse``, or the fault (the
    call's own, or ``bad_body`` when the body is not an ``ActResponse``)."""
    if isinstance(result, Fault):
        return Answer(None, result, result.latency_ms)
    decoded = result.decode(ActResponse)
    if isinstance(decoded, Fault):
        return Answer(None, decoded, result.latency_ms)
    return Answer(decoded, None, result.latency_ms)


def random_decider(seed: int) -> Decide:
    """A uniform-random in-process bot (its own seeded PRNG)."""
    rng = random.Random(seed)

    def decide(request: ActRequest) -> ActResponse:
        choice = request.legal_actions[rng.randrange(len(request.legal_actions))]
        return ActResponse(action=choice.action, card=choice.card)

    return decide
