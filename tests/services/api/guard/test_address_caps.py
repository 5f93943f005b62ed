"""One address cannot take the API down (issue 21, break 1): the slowloris that did it, against
the API as it is served (``services.api.serve``), over raw sockets on 127.0.0.1; other clients
connect from other loopback addresses (127.0.0.2, ...), which the server counts apart."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import uvicorn

from bench.slowloris import HALF_OPEN, READY
from services.api import serve
from services.api.guard.address_caps import AddressCaps, address_key
from tests.services.api.served_api import Served, serve_api

ROOT = Path(__file__).resolve().parents[4]
FLOOD = 600
GET_BOTS = b"GET /v1/bots HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"


def status_of(served: Served, source: str, request: bytes = GET_BOTS) -> int:
    """The status of one request on a fresh connection from ``source`` (0: closed unanswered)."""
    with served.connect(source) as sock:
        sock.sendall(request)
        answer = b""
        while b"\r\n" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    return int(answer.split(b" ", 2)[1]) if answer.startswith(b"HTTP/1.1 ") else 0


def read_until_closed(sock: socket.socket) -> bytes:
    chunks = []
    while True:
        try:
            chunk = sock.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


class Flood:
    """The slowloris (``bench.slowloris``) in a process of its own, from 127.0.0.1."""

    def __init__(self, port: int) -> None:
        argv = [sys.executable, "-m", "bench.slowloris", str(port), "--connections", str(FLOOD)]
        # reopening 500 a second: the server shares this interpreter with the test's client
        self.process = subprocess.Popen(
            [*argv, "--reopen-per-s", "500"],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # blocks until it holds FLOOD (or died)
        assert line.strip() == READY, line

    def stop(self) -> dict[str, int]:
        self.process.terminate()
        out, _ = self.process.communicate(timeout=30)
        figures: dict[str, int] = json.loads(out.strip().splitlines()[-1])
        return figures


@pytest.fixture
def flood_server(database_url: str) -> Iterator[tuple[Served, uvicorn.Server]]:
    servers: list[uvicorn.Server] = []
    # the production connection limit, and half-open heads held for the whole test
    with serve_api(
        database_url, head_s=60, max_connections=serve.MAX_CONNECTIONS, servers=servers
    ) as served:
        yield served, servers[0]


def caps_of(server: uvicorn.Server) -> AddressCaps:
    caps = server.config.http.caps  # type: ignore[union-attr]
    assert isinstance(caps, AddressCaps)
    return caps


def test_one_address_flooding_half_open_requests_leaves_others_answered(
    flood_server: tuple[Served, uvicorn.Server],
) -> None:
    served, server = flood_server
    caps = caps_of(server)
    flood = Flood(served.port)
    try:
        statuses = []
        most_open = most_unfinished = 0
        for n in range(20):
            statuses.append(status_of(served, f"127.0.0.{2 + n % 3}"))
            most_open = max(most_open, caps.open.get("127.0.0.1", 0))
            most_unfinished = max(most_unfinished, caps.unfinished.get("127.0.0.1", 0))
            time.sleep(0.05)
        held = caps.open.get("127.0.0.1", 0)
    finally:
        figures = flood.stop()
    assert statuses == [200] * 20, statuses
    # the flood was on and held its share all along, and no more than its share
    assert held >= 1 and most_open <= serve.CONNECTIONS_PER_ADDRESS
    assert most_unfinished <= serve.HEADS_PER_ADDRESS
    assert figures["opened"] >= FLOOD and figures["answered_503"] > 0, figures


def test_without_the_caps_the_same_flood_takes_the_server(database_url: str) -> None:
    """The attack is real: with the per-address caps off, other addresses get 503s."""
    with serve_api(
        database_url,
        head_s=60,
        max_connections=serve.MAX_CONNECTIONS,
        connections_per_address=None,
        heads_per_address=None,
    ) as served:
        flood = Flood(served.port)
        try:
            statuses = [status_of(served, "127.0.0.2") for _ in range(5)]
        finally:
            flood.stop()
    assert 503 in statuses, statuses


def test_past_the_connection_cap_a_503_with_retry_after_then_closed(
    flood_server: tuple[Served, uvicorn.Server],
) -> None:
    served, server = flood_server
    cap = serve.CONNECTIONS_PER_ADDRESS
    held = [served.connect("127.0.0.5") for _ in range(cap)]
    try:
        deadline = time.monotonic() + 20
        while caps_of(server).open.get("127.0.0.5", 0) < cap:
            assert time.monotonic() < deadline, "the held connections were not accepted"
            time.sleep(0.05)
        with served.connect("127.0.0.5") as sock:
            answer = read_until_closed(sock)  # closed without sending anything
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503 "), answer[:200]
        assert b"retry-after: 1" in head.lower() and b"connection: close" in head.lower()
        assert b'"status":503' in body
        assert status_of(served, "127.0.0.6") == 200  # another address
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + 20
    while caps_of(server).open.get("127.0.0.5", 0):
        assert time.monotonic() < deadline, "closed connections still counted"
        time.sleep(0.05)
    assert status_of(served, "127.0.0.5") == 200  # the cap frees as connections go


def test_past_the_unfinished_head_cap_the_next_partial_head_is_refused(
    flood_server: tuple[Served, uvicorn.Server],
) -> None:
    served, server = flood_server
    cap = serve.HEADS_PER_ADDRESS
    held = [served.connect("127.0.0.7") for _ in range(cap)]
    try:
        for sock in held:
            sock.sendall(HALF_OPEN)
        deadline = time.monotonic() + 20
        while caps_of(server).unfinished.get("127.0.0.7", 0) < cap:
            assert time.monotonic() < deadline, "the partial heads were not counted"
            time.sleep(0.05)
        with served.connect("127.0.0.7") as sock:
            sock.sendall(HALF_OPEN)
            answer = read_until_closed(sock)
        assert answer.startswith(b"HTTP/1.1 503 "), answer[:200]
        # a whole request from the same address is no unfinished head: answered
        assert status_of(served, "127.0.0.7") == 200
    finally:
        for sock in held:
            sock.close()


def test_the_counted_address() -> None:
    assert address_key("127.0.0.1") == "127.0.0.1"
    assert address_key("::ffff:10.0.0.9") == "10.0.0.9"
    assert address_key("2001:db8:1:2:3:4:5:6") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:2:ffff::1") == "2001:db8:1:2::/64"
    assert address_key(None) is None and address_key("/run/api.sock") is None
    caps = AddressCaps(2, 1, exempt=("10.0.0.0/8",))
    assert caps.key("10.1.2.3") is None  # a trusted proxy: not capped
    assert caps.admit("a") and caps.admit("a") and not caps.admit("a") and caps.admit("b")
    caps.release("a")
    assert caps.admit("a")
    assert caps.start_head("a") and not caps.start_head("a")
    caps.end_head("a")
    for _ in range(2):
        caps.release("a")
    caps.release("b")
    assert not caps.open and not caps.unfinished  # nothing kept for addresses that left


def test_counts_follow_heads_that_finish_upgrades_and_closes(
    flood_server: tuple[Served, uvicorn.Server],
) -> None:
    served, server = flood_server
    caps = caps_of(server)

    def eventually(what: str, check: object) -> None:
        deadline = time.monotonic() + 20
        while not check():  # type: ignore[operator]
            assert time.monotonic() < deadline, what
            time.sleep(0.05)

    with served.connect("127.0.0.8") as sock:
        sock.sendall(b"GET /health/live HTTP/1.1\r\n")
        eventually("a partial head counted", lambda: caps.unfinished.get("127.0.0.8") == 1)
        sock.sendall(b"Host: 127.0.0.1\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 ")
        assert "127.0.0.8" not in caps.unfinished and caps.open["127.0.0.8"] == 1
        # an upgrade is not taken (no WebSockets): the connection stays this protocol's
        sock.sendall(
            b"GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n"
            b"Upgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            b"Sec-WebSocket-Version: 13\r\n\r\n"
        )
        assert not sock.recv(65536).startswith(b"HTTP/1.1 101 ")
    eventually("the closed connection released", lambda: "127.0.0.8" not in caps.open)
    assert "127.0.0.8" not in caps.unfinished


def test_the_server_takes_the_caps_from_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[uvicorn.Config] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda self: seen.append(self.config))
    monkeypatch.setenv("TRUCO_CONNECTIONS_PER_ADDRESS", "5")
    monkeypatch.setenv("TRUCO_UNFINISHED_HEADS_PER_ADDRESS", "2")
    monkeypatch.setenv("TRUCO_TRUSTED_PROXIES", "10.0.0.7")
    assert serve.main(["--port", "8123"]) == 0
    caps = seen[0].http.caps  # type: ignore[union-attr]
    assert (caps.connections, caps.heads) == (5, 2)
    assert caps.key("10.0.0.7") is None and caps.key("10.0.0.8") == "10.0.0.8"
    assert seen[0].ws == "none" and seen[0].h11_max_incomplete_event_size == 16 * 1024
