"""The API served as in production (``services.api.serve``: uvicorn with the head deadline,
keep-alive and connection limit; the app with its body deadline) on 127.0.0.1 in a thread,
with the timeouts shortened so tests of slow clients are quick."""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field

import msgspec
import pytest
import uvicorn
from litestar import Litestar

from services.api import serve
from services.api.guard import slow_clients
from services.base.config import DatabaseSettings, Secret, SecretSettings, Settings
from services.launch.app import create_app
from tests.services.helpers.uvicorn_thread import start, stop

HEAD_S = 1.0
BODY_S = 1.0
KEEP_ALIVE_S = 1
MAX_CONNECTIONS = 8
HANG_GUARD_S = 60.0
"""How long a test waits for the server before calling it hung: a guard, never a speed bound
(that the server acts at its deadline is checked by what it logs and what it cut short)."""


@dataclass(frozen=True)
class Served:
    port: int
    app: Litestar | None = field(default=None, compare=False)

    def connect(self, source: str = "127.0.0.1") -> socket.socket:
        """A connection from ``source`` (another 127.0.0.x: another client address)."""
        sock = socket.create_connection(
            ("127.0.0.1", self.port), timeout=10, source_address=(source, 0)
        )
        sock.settimeout(HANG_GUARD_S)
        return sock


@contextlib.contextmanager
def serve_api(
    database_url: str,
    *,
    head_s: float = HEAD_S,
    max_connections: int | None = MAX_CONNECTIONS,
    max_requests: int | None = serve.MAX_REQUESTS,
    body_s: float = BODY_S,
    connections_per_address: int | None = serve.CONNECTIONS_PER_ADDRESS,
    heads_per_address: int | None = serve.HEADS_PER_ADDRESS,
    servers: list[uvicorn.Server] | None = None,
    settings: Settings | None = None,
    write_deadline_s: float = serve.WRITE_DEADLINE_S,
) -> Iterator[Served]:
    """The API served on a free port; ``servers`` (if given) gets the uvicorn server, whose
    ``config.http`` is the protocol class holding the per-address counters (``caps``);
    ``settings`` (its database and secret key are set here) replaces the defaults."""
    slow = pytest.MonkeyPatch()
    slow.setattr(slow_clients, "BODY_TIMEOUT_S", body_s)
    settings = msgspec.structs.replace(
        settings or Settings(),
        database=DatabaseSettings(url=database_url),
        secrets=SecretSettings(key=Secret("s" * 48)),
    )
    app = create_app(settings)
    server = uvicorn.Server(
        serve.config(
            app,
            host="127.0.0.1",
            port=0,
            head_timeout_s=head_s,
            keep_alive_s=KEEP_ALIVE_S,
            max_connections=max_connections,
            max_requests=max_requests,
            connections_per_address=connections_per_address,
            heads_per_address=heads_per_address,
            write_deadline_s=write_deadline_s,
        )
    )
    if servers is not None:
        servers.append(server)
    thread, port = start(server)
    try:
        yield Served(port, app)
    finally:
        stop(server, thread)
        slow.undo()
