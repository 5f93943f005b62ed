"""The one schemathesis setup both fuzzers use (``tests/services/api/test_schemathesis.py``, every
operation; ``tests/security/test_stateful.py``, the links between them): the checks every
answer must pass, the account and tournament they start from, and the app they run against in
process (its own pool, no match ever played, no rate limit to trip)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import asyncpg
from litestar import Litestar
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.python import asgi

from services.api.auth import hash_api_key
from services.base.config import RateLimits
from services.launch.app import create_app
from tests.services.helpers.api_helpers import settings as app_settings

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
"""No 5xx; the status, content type, headers and body as the document says."""


STREAMS = ["streamMatch", "streamTournament", "streamPlay"]
"""Left to tests/services/api/test_api_streams.py (and test_api_play_stream.py): a live stream stays open while its match or
tournament is live, by design (an in-process call would wait for ever), and its events are
JSON inside ``text/event-stream``, which schemathesis reads against the body's string schema."""


async def no_matches(pool: object, match_ids: list[int]) -> None:
    """The sender: matches are created but never played."""
    return None


async def seed_organiser(
    conn: asyncpg.Connection, account: str, tournament: str, api_key: str
) -> None:
    """One account named ``account`` holding ``api_key``, organising a Swiss (1v1) named
    ``tournament``, so the operations that take an id find one."""
    account_id = await conn.fetchval(
        "INSERT INTO accounts (name, api_key_hash) VALUES ($1, $2) RETURNING id",
        account,
        hash_api_key(api_key),
    )
    await conn.execute(
        "INSERT INTO tournaments (organiser_id, name, format, mode) "
        "VALUES ($1, $2, 'swiss', '1v1')",
        account_id,
        tournament,
    )


@contextlib.contextmanager
def fuzzed_app(database_url: str, **options: Any) -> Iterator[Litestar]:
    """The app on ``database_url`` for schemathesis (``options`` go to ``create_app``); its
    lifespans are shut down on leaving, closing its pool before the database is dropped."""
    app = create_app(
        app_settings(database_url),
        sender=no_matches,
        rate_limits=RateLimits(enabled=False),
        **options,
    )
    try:
        yield app
    finally:
        asgi.shutdown_lifespans()
