"""``truco.probe_bots``: the bot-calling worker checks that bots answer ``GET {url}/``.

Health checks call bots, so they run where bots are called (queue ``matches``, no database);
the trusted worker sends the list of bots and records the outcomes it gets back
(``truco.record_bot_health``), so it never opens a connection to a bot itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import msgspec

from arena.client.bot_client import BotClient, ClientConfig, Fault
from arena.client.egress import EgressPolicy
from arena.client.signing import generate_secret
from arena.match.entrants import BadBotSpec, builtin_bot, builtin_name
from arena.wire.protocol import API_VERSION, BotInfo
from services.base.limits import SHORT_HARD_LIMIT_S, SHORT_SOFT_LIMIT_S
from services.worker.app import app
from services.worker.loop_thread import BOT_CALLS
from services.worker.messages import ProbeOutcome, ProbeTarget
from services.worker.names import PROBE_BOTS
from services.worker.senders import send_health
from services.worker.task import platform_task

PROBE_TIMEOUT_MS = 5000.0
PROBE_CONCURRENCY = 16

ClientFactory = Callable[[str, str, EgressPolicy], BotClient]
"""``(url, signing_secret, policy) -> BotClient``: tests inject one with a fake resolver and a
network backend that refuses anything but loopback."""


def probe_client(url: str, secret: str, policy: EgressPolicy) -> BotClient:
    return BotClient(url, secret, config=ClientConfig(timeout_ms=PROBE_TIMEOUT_MS, policy=policy))


async def probe(
    target: ProbeTarget, *, allow_loopback: bool, make_client: ClientFactory = probe_client
) -> ProbeOutcome:
    """One ``GET {url}/`` through the guarded client: ok if it answers protocol v1 info. A
    ``builtin:NAME`` bot runs in the bot-calling worker itself: ok if the strategy exists."""
    if builtin_name(target.url) is not None:
        try:
            builtin_bot(target.url, seed=0)
        except BadBotSpec as exc:
            return ProbeOutcome(target.bot_id, False, f"bad_body: {exc}")
        return ProbeOutcome(target.bot_id, True, None)
    policy = EgressPolicy(allow_loopback=allow_loopback)
    # GET / carries no game data: a throwaway signing secret, as for a URL change
    async with make_client(target.url, generate_secret(), policy) as client:
        result = await client.info()
    error: str | None = None
    if isinstance(result, Fault):
        error = f"{result.kind}: {result.detail}"
    else:
        info = result.decode(BotInfo)
        if isinstance(info, Fault):
            error = f"{info.kind}: {info.detail}"
        elif info.apiversion != API_VERSION:
            error = f"protocol version {info.apiversion!r}, expected {API_VERSION!r}"
    return ProbeOutcome(target.bot_id, error is None, error)


async def probe_all(
    targets: list[ProbeTarget], *, allow_loopback: bool, make_client: ClientFactory = probe_client
) -> list[ProbeOutcome]:
    gate = asyncio.Semaphore(PROBE_CONCURRENCY)

    async def one(target: ProbeTarget) -> ProbeOutcome:
        async with gate:
            return await probe(target, allow_loopback=allow_loopback, make_client=make_client)

    return list(await asyncio.gather(*(one(target) for target in targets)))


@platform_task(PROBE_BOTS, limits=(SHORT_SOFT_LIMIT_S, SHORT_HARD_LIMIT_S))
def probe_bots(targets: list[dict[str, Any]]) -> int:
    """Probe every target; send the outcomes to the trusted worker. Returns how many failed."""
    decoded = msgspec.convert(targets, list[ProbeTarget])
    allow_loopback = app.settings.allow_loopback_bots
    outcomes = app.resources.loop(BOT_CALLS).run(
        lambda: probe_all(decoded, allow_loopback=allow_loopback)
    )
    send_health(outcomes)
    return sum(not outcome.ok for outcome in outcomes)
