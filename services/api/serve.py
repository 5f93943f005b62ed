"""``python -m services.api.serve [--host H] [--port P]``: the API under uvicorn, with limits.

Every way of running the API (``make run``, the container image) goes through here, so the
server's limits are set in one place:

==========================  ========  ===========================================================
limit                       value     what happens
==========================  ========  ===========================================================
request head                10 s      from the connection's start (or the end of the previous
                                      response) to a complete request line and headers; else
                                      the connection is closed
request head size           16 KiB    h11's bound on an incomplete head: a 400, then closed
request body                15 s      the whole body, once the app reads it
                                      (``services.api.slow_clients``): a 408, then closed
body size                   64 KiB    ``services.api.app.MAX_BODY_BYTES``: a 413
keep-alive                  5 s       an idle connection between requests is closed
connections                 512       with more connections or requests in flight, new
                                      requests get a 503 at once
==========================  ========  ===========================================================

``X-Forwarded-For`` is not read by uvicorn (``proxy_headers=False``): the app believes it only
from ``TRUCO_TRUSTED_PROXIES`` (``services/api/client_address.py``).

A reverse proxy in front (``infra/nginx.conf``) should have tighter or equal timeouts and do
the per-address limiting; these limits are what holds when something reaches uvicorn directly.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
from collections.abc import Sequence

import h11
import uvicorn
from litestar.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

HEAD_TIMEOUT_S = 10.0
MAX_HEAD_BYTES = 16 * 1024
KEEP_ALIVE_S = 5
MAX_CONNECTIONS = 512
APP = "services.launch.app:app_from_env"

logger = logging.getLogger("services.api")


class HeadDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request head (uvicorn has none: a client
    that sends half a request line, or one header line now and then, held its connection
    for as long as it liked)."""

    head_timeout_s = HEAD_TIMEOUT_S
    _head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_head_timer()  # the next request's head has its own deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        super().connection_lost(exc)

    def _arm_head_timer(self) -> None:
        self._cancel_head_timer()
        if self.transport.is_closing():
            return
        waiting_after = self.cycle  # the exchange before the head we wait for (None: the first)
        self._head_timer = self.loop.call_later(
            self.head_timeout_s, self._head_timed_out, waiting_after
        )

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self, waiting_after: object) -> None:
        self._head_timer = None
        if self.cycle is not waiting_after or self.transport.is_closing():
            return  # a new request arrived in time (its body has its own deadline)
        logger.info(
            "no complete request head from %s within %.0f s: closed",
            _peer(self.client),
            self.head_timeout_s,
        )
        if self.conn.our_state is not h11.ERROR:
            with contextlib.suppress(h11.LocalProtocolError):
                self.conn.send(h11.ConnectionClosed())
        self.transport.close()


def _peer(client: tuple[str, int] | None) -> str:
    return f"{client[0]}:{client[1]}" if client else "unknown"


def config(
    app: str | ASGIApp = APP,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    access_log: bool = True,
    head_timeout_s: float = HEAD_TIMEOUT_S,
    keep_alive_s: int = KEEP_ALIVE_S,
    max_connections: int = MAX_CONNECTIONS,
) -> uvicorn.Config:
    """uvicorn's settings for the API (``app``: the factory's import path, or an app)."""
    protocol = type(
        "HeadDeadlineProtocol", (HeadDeadlineProtocol,), {"head_timeout_s": head_timeout_s}
    )
    return uvicorn.Config(
        app,
        factory=app == APP,
        host=host,
        port=port,
        http=protocol,
        timeout_keep_alive=keep_alive_s,
        limit_concurrency=max_connections,
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        access_log=access_log,
        # X-Forwarded-For is the app's to judge (TRUCO_TRUSTED_PROXIES, services/api/
        # client_address.py), not uvicorn's: by default uvicorn believes it from any loopback
        # peer, so forged values bought fresh rate-limit budgets and reached the access log
        proxy_headers=False,
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m services.api.serve", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--no-access-log", action="store_true", help="no line per request")
    args = parser.parse_args(argv)
    served = config(host=args.host, port=args.port, access_log=not args.no_access_log)
    uvicorn.Server(served).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
