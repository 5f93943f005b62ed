"""Shared dependencies: the pool, settings and handshake client factory kept in app state."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import asyncpg
import redis
from litestar.datastructures import State

from arena.client.bot_client import BotClient
from arena.client.egress import EgressPolicy
from services.base.config import Settings
from services.base.secretbox import SecretBox
from services.worker.results.dispatch import send_matches as dispatch_matches
from services.worker.stops import flags_client, request_stops

BotClientFactory = Callable[[str, str, EgressPolicy], BotClient]
"""``(base_url, signing_secret, policy) -> BotClient`` used for the registration handshake."""

MatchSender = Callable[[asyncpg.Pool, list[int]], Awaitable[None]]
"""``(pool, match_ids)``: hand new matches to the workers
(``services.worker.results.dispatch.send_matches`` in production; tests run them in process)."""


Stopper = Callable[[list[int]], Awaitable[None]]
"""``(match_ids)``: ask the bot-calling workers to stop playing matches decided without their
play (``services.worker.stops.request_stops`` on the platform's Redis)."""


logger = logging.getLogger("services.api")


def default_sender(secret_box: SecretBox) -> MatchSender:
    """:func:`services.worker.results.dispatch.send_matches`, decrypting the bots' signing
    secrets with ``secret_box``."""

    async def send(pool: asyncpg.Pool, match_ids: list[int]) -> None:
        await dispatch_matches(pool, match_ids, secret_box=secret_box)

    return send


async def no_stopper(match_ids: list[int]) -> None:
    """Without a Redis shared with the workers there are no stop flags to set (and no worker
    of this platform playing the matches)."""


def default_stopper(settings: Settings) -> Stopper:
    """Stop flags in the platform's Redis (:mod:`services.worker.stops`) when
    ``settings.redis.url`` is set (as for the rate counters; without it no worker shares this
    app's Redis)."""
    url = settings.redis.url
    if url is None:
        return no_stopper
    client: redis.Redis | None = None

    def flag(match_ids: list[int]) -> None:
        nonlocal client
        if client is None:
            client = flags_client(url)
        request_stops(client, settings.redis.prefix, match_ids)

    async def stop(match_ids: list[int]) -> None:
        await asyncio.to_thread(flag, match_ids)

    return stop


@dataclass(slots=True)
class Services:
    """What handlers need, built once per app (the pool is set by the lifespan)."""

    settings: Settings
    secret_box: SecretBox
    bot_client_factory: BotClientFactory
    sender: MatchSender
    pool: asyncpg.Pool | None = None
    stopper: Stopper = no_stopper


async def send_matches(svc: Services, match_ids: list[int]) -> None:
    """Hand matches to the sender; a failure is logged (the matches stay pending and can be
    queued again), never an error for the request that created them."""
    if not match_ids:
        return
    assert svc.pool is not None
    try:
        await svc.sender(svc.pool, match_ids)
    except Exception:
        logger.exception("sending matches %s failed; they stay pending", match_ids)


async def stop(svc: Services, match_ids: list[int]) -> None:
    """Ask the workers to stop these decided matches; a failure is logged (the recovery
    sweeper sets the flags of every match still stopping on its next pass), never an error
    for the request that decided them."""
    if not match_ids:
        return
    try:
        await svc.stopper(match_ids)
    except Exception:
        logger.exception("stop flags of matches %s not set; the sweeper sets them", match_ids)


def services_of(state: State) -> Services:
    found: Services = state["services"]
    return found


def get_pool(state: State) -> asyncpg.Pool:
    pool = services_of(state).pool
    if pool is None:
        raise RuntimeError("the database pool is not open")
    return pool
