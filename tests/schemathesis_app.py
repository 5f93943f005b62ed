"""The one schemathesis setup both fuzzers use (``tests/services/api/test_schemathesis.py``, every
operation; ``tests/security/test_stateful.py``, the links between them): the checks every
answer must pass, and the app they run against in process (its own pool, no match ever
played, no rate limit to trip)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from litestar import Litestar
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.python import asgi

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
