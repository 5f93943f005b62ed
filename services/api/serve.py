"""``python -m services.api.serve [--host H] [--port P]``: the API under uvicorn, with limits.

Every way of running the API (``make run``, the container image) goes through here, so the
server's limits are set in one place:

==========================  ========  ===========================================================
limit                       value     what happens
==========================  ========  ===========================================================
request head                10 s      from the connection's start (or the end of the previous
                                      response) to a complete request line and headers; else
                                      the connection is closed
request head size           16 KiB    the request line and headers, complete or still arriving
                                      (``services.api.guard.head_size``): a 431, then closed
request body                15 s      the whole body, once the app reads it
                                      (``services.api.guard.slow_clients``): a 408, then closed
body size                   64 KiB    ``services.api.app.MAX_BODY_BYTES``: a 413
keep-alive                  5 s       an idle connection between requests is closed
write deadline              30 s      while the send buffers are full, a client that reads
                                      less than 16 KiB in this long is reset
                                      (``TRUCO_WRITE_DEADLINE_S``, ``TRUCO_WRITE_FLOOR_BYTES``)
connections                 512       with more connections or requests in flight, new
                                      requests get a 503 at once
connections per address     32        ``TRUCO_CONNECTIONS_PER_ADDRESS``
                                      (``services.api.guard.address_caps``): a connection past it gets
                                      a 503 with ``Retry-After`` and is closed before it is read
partial heads per address   8         ``TRUCO_UNFINISHED_HEADS_PER_ADDRESS``: connections of one
                                      address holding part of a request head; the one past it
                                      gets the same 503 and is closed
==========================  ========  ===========================================================

Per address, so that one address alone cannot reach the process's 512: its flood of half-open
requests is refused while other addresses are answered. Peers in ``TRUCO_TRUSTED_PROXIES`` (a
reverse proxy carrying many clients) are not capped per address.

``X-Forwarded-For`` is not read by uvicorn (``proxy_headers=False``): the app believes it only
from ``TRUCO_TRUSTED_PROXIES`` (``services/api/guard/client_address.py``).

A reverse proxy in front (``infra/nginx/truco-arena.conf``) should have tighter or equal
timeouts and its own per-address limits; these limits are what holds when something reaches
uvicorn directly.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import socket
import struct
from collections.abc import Sequence
from http import HTTPStatus
from typing import Any

import h11
import msgspec
import uvicorn
from litestar.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from services.api.guard.address_caps import AddressCaps
from services.api.guard.head_size import MAX_HEAD_BYTES, HeadSizedConnection
from services.api.guard.tcp_progress import bytes_acked
from services.api.problems import PROBLEM_JSON, TYPE_BASE, Problem
from services.base.config import ConfigError, WebSettings
from services.base.environment import load_settings

HEAD_TIMEOUT_S = 10.0
KEEP_ALIVE_S = 5
WRITE_DEADLINE_S = 30.0
WRITE_FLOOR_BYTES = 16 * 1024
MAX_CONNECTIONS = 512
CONNECTIONS_PER_ADDRESS = WebSettings().connections_per_address
HEADS_PER_ADDRESS = WebSettings().heads_per_address
RETRY_AFTER_S = 1
APP = "services.launch.app:app_from_env"
_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: close() resets the connection

logger = logging.getLogger("services.api")


class HeadDeadlineProtocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on each request head (uvicorn has none: a client
    that sends half a request line, or one header line now and then, held its connection
    for as long as it liked)."""

    head_timeout_s = HEAD_TIMEOUT_S
    max_head_bytes = MAX_HEAD_BYTES
    caps = AddressCaps(CONNECTIONS_PER_ADDRESS, HEADS_PER_ADDRESS)
    """Shared by every connection of the server (:func:`config` makes one per server)."""
    _head_timer: asyncio.TimerHandle | None = None
    _counted = False  # this connection is in ``caps.open``
    _unfinished = False  # ... and holds an unfinished head in ``caps.unfinished``
    _key: str | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn = HeadSizedConnection(self.max_head_bytes)

    write_deadline_s = WRITE_DEADLINE_S
    _write_timer: asyncio.TimerHandle | None = None

    # The write deadline. The transport pauses the protocol when its send buffer passes the
    # high-water mark (the kernel's buffers are full too: the client is not keeping up) and
    # resumes it once the buffer drains below the low-water mark; the app's ``send`` waits in
    # between, so a response holds at most a chunk more than the buffers. While paused, the
    # client must acknowledge ``write_floor_bytes`` more every ``write_deadline_s``
    # (:mod:`services.api.guard.tcp_progress`; where that count is unknown, the pause itself must
    # end within the deadline), or the connection is reset, which ends the response (its sends
    # return at once and Litestar's stream sees the disconnect).

    write_floor_bytes = WRITE_FLOOR_BYTES
    _acked_at_check: int | None = None

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._write_timer is None:
            self._acked_at_check = bytes_acked(self.transport.get_extra_info("socket"))
            self._write_timer = self.loop.call_later(self.write_deadline_s, self._write_check)

    def resume_writing(self) -> None:
        self._cancel_write_timer()
        super().resume_writing()

    def _cancel_write_timer(self) -> None:
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None

    def _write_check(self) -> None:
        self._write_timer = None
        sock = self.transport.get_extra_info("socket")
        acked, before = bytes_acked(sock), self._acked_at_check
        if acked is not None and before is not None and acked - before >= self.write_floor_bytes:
            self._acked_at_check = acked  # slow but reading: another period
            self._write_timer = self.loop.call_later(self.write_deadline_s, self._write_check)
            return
        logger.info(
            "%s read %s bytes in %.0f s of a full send buffer (under %d): connection cut (%s)",
            _peer(self.client),
            "?" if acked is None or before is None else acked - before,
            self.write_deadline_s,
            self.write_floor_bytes,
            self.scope["path"] if self.scope is not None else "?",
        )
        if sock is not None:  # a reset, not a FIN behind the unsent data: the kernel lets go
            with contextlib.suppress(OSError):  # of its buffers too
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
        self.transport.abort()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._key = self.caps.key(self.client[0] if self.client else None)
        if not self.caps.admit(self._key):
            self._refuse("connections")
            return
        self._counted = True
        self._arm_head_timer()

    def data_received(self, data: bytes) -> None:
        waiting = self.conn.their_state is h11.IDLE  # for a request head
        super().data_received(data)
        if waiting:
            self._mark_unfinished(
                self.conn.their_state is h11.IDLE and not self.transport.is_closing()
            )

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_head_timer()  # the next request's head has its own deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        self._mark_unfinished(False)
        if self._counted:
            self._counted = False
            self.caps.release(self._key)
        self._cancel_write_timer()
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """A request uvicorn cannot parse: a problem document (431 for a head over the limit,
        else 400), then closed."""
        status = getattr(self.conn, "refused_status", 400)
        detail = (
            f"the request line and headers must fit in {self.max_head_bytes} bytes"
            if status == 431
            else "the request is not valid HTTP/1.1"
        )
        body = _problem(status, "head-too-large" if status == 431 else "bad-request", detail)
        headers = [
            (b"content-type", PROBLEM_JSON.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        self._mark_unfinished(False)
        with contextlib.suppress(h11.LocalProtocolError):
            event = h11.Response(
                status_code=status, headers=headers, reason=HTTPStatus(status).phrase
            )
            self.transport.write(self.conn.send(event))
            self.transport.write(self.conn.send(h11.Data(data=body)))
            self.transport.write(self.conn.send(h11.EndOfMessage()))
        self.transport.close()

    def _mark_unfinished(self, unfinished: bool) -> None:
        """Keep ``caps.unfinished`` in step with whether this connection holds part of a
        request head; one past the address's cap is refused."""
        if unfinished == self._unfinished:
            return
        if not unfinished:
            self._unfinished = False
            self.caps.end_head(self._key)
        elif self.caps.start_head(self._key):
            self._unfinished = True
        else:
            self._refuse("unfinished request heads")

    def _refuse(self, what: str) -> None:
        """Over a per-address cap: a 503 with ``Retry-After`` before anything is read (or
        anything more), then closed; logged at DEBUG (a flood would flood the log)."""
        logger.debug("%s over its cap on %s: refused", _peer(self.client), what)
        self._cancel_head_timer()
        self.transport.write(OVER_CAP_RESPONSE)
        self.transport.close()

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


def _problem(status: int, slug: str, detail: str) -> bytes:
    return msgspec.json.encode(
        Problem(
            type=TYPE_BASE + slug, title=HTTPStatus(status).phrase, status=status, detail=detail
        )
    )


def _over_cap_response() -> bytes:
    body = _problem(
        503, "unavailable", "too many connections or unfinished requests from your address"
    )
    head = (
        "HTTP/1.1 503 Service Unavailable\r\n"
        f"Content-Type: {PROBLEM_JSON}\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"Retry-After: {RETRY_AFTER_S}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body


OVER_CAP_RESPONSE = _over_cap_response()


def config(
    app: str | ASGIApp = APP,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    access_log: bool = True,
    head_timeout_s: float = HEAD_TIMEOUT_S,
    keep_alive_s: int = KEEP_ALIVE_S,
    max_connections: int = MAX_CONNECTIONS,
    connections_per_address: int | None = CONNECTIONS_PER_ADDRESS,
    heads_per_address: int | None = HEADS_PER_ADDRESS,
    trusted_proxies: tuple[str, ...] = (),
    max_head_bytes: int = MAX_HEAD_BYTES,
    write_deadline_s: float = WRITE_DEADLINE_S,
    write_floor_bytes: int = WRITE_FLOOR_BYTES,
) -> uvicorn.Config:
    """uvicorn's settings for the API (``app``: the factory's import path, or an app); a
    per-address cap of ``None`` is off (the benchmark's "before")."""
    caps = AddressCaps(connections_per_address, heads_per_address, exempt=trusted_proxies)
    protocol = type(
        "HeadDeadlineProtocol",
        (HeadDeadlineProtocol,),
        {
            "head_timeout_s": head_timeout_s,
            "caps": caps,
            "max_head_bytes": max_head_bytes,
            "write_deadline_s": write_deadline_s,
            "write_floor_bytes": write_floor_bytes,
        },
    )
    return uvicorn.Config(
        app,
        factory=app == APP,
        host=host,
        port=port,
        http=protocol,
        # no WebSockets in the API: an upgrade would hand the connection to another protocol
        # object and its per-address count would never be released
        ws="none",
        timeout_keep_alive=keep_alive_s,
        limit_concurrency=max_connections,
        h11_max_incomplete_event_size=max_head_bytes,
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
    try:
        web = load_settings(needs=()).web
    except ConfigError as error:
        parser.error(str(error))
    served = config(
        host=args.host,
        port=args.port,
        access_log=not args.no_access_log,
        connections_per_address=web.connections_per_address,
        heads_per_address=web.heads_per_address,
        trusted_proxies=web.trusted_proxies,
        write_deadline_s=web.write_deadline_s,
        write_floor_bytes=web.write_floor_bytes,
    )
    uvicorn.Server(served).run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
