"""Caps that fit together (issue 33, 10), against the API as served on 127.0.0.1 over raw
sockets. uvicorn's one cap of 512 counted connections and requests in flight together: slow
request bodies from 17 addresses (32 connections each) reached it and another address was
refused, and live streams filled it at about 510, so ``TRUCO_STREAMS_TOTAL`` (2,000) could never
be reached. Now a slow body is an unfinished request of its address (8 at most), and the cap on
requests in flight leaves streams and long polls out (they have their own caps).

Scaled down: a cap of 64 requests in flight (5 addresses x 32 slow bodies = 160 would reach it),
and of 16 requests against 40 streams."""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn

from services.api.guard.address_caps import AddressCaps
from services.api.guard.request_caps import ProcessCaps
from services.base.config import Settings, StreamSettings
from tests.services.api.served_api import HANG_GUARD_S, Served, serve_api

FLOODERS = [f"127.0.0.{n}" for n in range(2, 7)]
OTHER = "127.0.0.60"


def caps(server: uvicorn.Server) -> tuple[AddressCaps, ProcessCaps]:
    protocol = server.config.http
    return protocol.caps, protocol.process  # type: ignore[union-attr]


def answer_status(sock: socket.socket) -> int:
    """The status the server answered on ``sock`` (0: closed without one)."""
    data = b""
    while b"\r\n" not in data:
        try:
            chunk = sock.recv(4096)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        data += chunk
    return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0


def others_answered(served: Served, count: int = 20) -> list[int]:
    statuses = []
    for _ in range(count):
        with served.connect(OTHER) as sock:
            sock.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            statuses.append(answer_status(sock))
    return statuses


@pytest.fixture
def slow_body_api(database_url: str) -> Iterator[tuple[Served, uvicorn.Server]]:
    servers: list[uvicorn.Server] = []
    with serve_api(
        database_url, max_requests=64, max_connections=None, body_s=HANG_GUARD_S, servers=servers
    ) as served:
        yield served, servers[0]


SLOW_BODY = (
    b"POST /v1/play HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b'Content-Length: 1000\r\n\r\n{"games": 1, '
)


def test_slow_bodies_from_many_addresses_do_not_refuse_others(
    slow_body_api: tuple[Served, uvicorn.Server],
) -> None:
    served, server = slow_body_api
    address_caps, process = caps(server)
    held: list[socket.socket] = []
    refused = 0
    try:
        for address in FLOODERS:
            for _ in range(32):
                sock = served.connect(address)
                sock.sendall(SLOW_BODY)  # the head and 10 bytes of a 1000-byte body
                held.append(sock)
        deadline = time.monotonic() + HANG_GUARD_S
        while True:  # until every connection is either held as unfinished or refused
            readable, _, _ = select.select(held, [], [], 0.05)
            for sock in readable:
                assert answer_status(sock) == 503
                refused += 1
                held.remove(sock)
                sock.close()
            if len(held) == sum(address_caps.unfinished.values()):
                break
            assert time.monotonic() < deadline, (len(held), dict(address_caps.unfinished))
        assert all(address_caps.unfinished[a] <= 8 for a in FLOODERS)
        assert len(held) == 8 * len(FLOODERS) and refused == 24 * len(FLOODERS)
        # the refused never counted as requests in flight: the process's cap was never reached
        assert process.refused == 0 and process.in_flight <= 8 * len(FLOODERS) < 64
        assert others_answered(served) == [200] * 20
    finally:
        for sock in held:
            sock.close()


def _tournament(served: Served) -> int:
    base = f"http://127.0.0.1:{served.port}"
    with httpx.Client(base_url=base, timeout=HANG_GUARD_S) as client:
        account = client.post("/v1/accounts", json={"name": f"streams-{time.monotonic_ns()}"})
        assert account.status_code == 201, account.text
        key = {"Authorization": f"Bearer {account.json()['api_key']}"}
        made = client.post(
            "/v1/tournaments",
            json={"name": "watched", "format": "swiss", "mode": "1v1"},
            headers=key,
        )
        assert made.status_code == 201, made.text
        return int(made.json()["id"])


@pytest.fixture
def stream_api(database_url: str) -> Iterator[tuple[Served, uvicorn.Server]]:
    servers: list[uvicorn.Server] = []
    settings = Settings(streams=StreamSettings(per_address=8, total=40))
    with serve_api(
        database_url, max_requests=16, max_connections=None, settings=settings, servers=servers
    ) as served:
        yield served, servers[0]


def test_streams_past_the_request_cap_leave_requests_answered(
    stream_api: tuple[Served, uvicorn.Server],
) -> None:
    served, server = stream_api
    _, process = caps(server)
    tid = _tournament(served)
    request = f"GET /v1/tournaments/{tid}/stream HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    streams: list[socket.socket] = []
    try:
        for address in FLOODERS:
            for _ in range(8):  # the per-address cap of streams: 40 in all, the streams' total
                sock = served.connect(address)
                sock.sendall(request)
                streams.append(sock)
                # open, one after another, past a cap of 16 requests in flight
                assert answer_status(sock) == 200
        assert process.held == 40 and process.in_flight == 0
        assert others_answered(served) == [200] * 20
        # the streams' own cap still holds: the 41st is a 429 problem
        with served.connect(OTHER) as sock:
            sock.sendall(request)
            assert answer_status(sock) == 429
    finally:
        for sock in streams:
            with contextlib.suppress(OSError):
                sock.close()
    deadline = time.monotonic() + HANG_GUARD_S
    while process.held:  # closed streams leave the count
        assert time.monotonic() < deadline, process.held
        time.sleep(0.05)
