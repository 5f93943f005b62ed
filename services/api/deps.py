"""Shared dependencies: the pool, settings and handshake client factory kept in app state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import asyncpg
from litestar.datastructures import State

from arena.client import BotClient
from arena.egress import EgressPolicy
from services.api.secretbox import SecretBox
from services.config import Settings

BotClientFactory = Callable[[str, str, EgressPolicy], BotClient]
"""``(base_url, signing_secret, policy) -> BotClient`` used for the registration handshake."""


@dataclass(slots=True)
class Services:
    """What handlers need, built once per app (the pool is set by the lifespan)."""

    settings: Settings
    secret_box: SecretBox
    bot_client_factory: BotClientFactory
    pool: asyncpg.Pool | None = None


def services(state: State) -> Services:
    found: Services = state["services"]
    return found


def get_pool(state: State) -> asyncpg.Pool:
    pool = services(state).pool
    if pool is None:
        raise RuntimeError("the database pool is not open")
    return pool
