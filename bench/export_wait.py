"""The export wait under held slots (issue 33, 7): 16 readers from 8 addresses reading 1.1 KB/s
(above the write floor, never cut) held every export slot, and another address got 503s for as
long as they read (136 s measured; 100 minutes to 19 hours at that rate).

What runs, all on 127.0.0.1: PostgreSQL (a database of this run's own, dropped at the end) with
one finished round robin (``BENCH_EXPORT_BOTS``, 16 bots, ten games a match: a few MB of
export), and per side the API as served (``python -m services.api.serve``; 127.0.0.1 a trusted
proxy, so each reader's ``X-Forwarded-For`` is its address; ``TRUCO_EXPORTS_TOTAL`` 16, per
address 2). ``before``: a download keeps its slot to its end (``TRUCO_EXPORT_SLOT_S`` 3600, as
before issue 33); ``after``: the default (30 s, then overtime). The 16 slow readers start, then
another address asks for the export every second until it is served, at most
``BENCH_EXPORT_WAIT_S`` (90) seconds: its wait and its 503s. Text lines, then one JSON line.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import socket
import threading
import time
from pathlib import Path
from typing import Any

import asyncpg

from bench.database import NoServer, server_url, with_database
from bench.export_readers_kit import api_process, make_large_event, read_response, request
from bench.smoke import env_size, size
from services.db.migrate import migrate_url

BOTS = int(env_size("BENCH_EXPORT_BOTS", "16", "4"))
GAMES = size(10, 1)  # a match's games
WINDOW_S = float(env_size("BENCH_EXPORT_WAIT_S", "90", "10"))
READERS, ADDRESSES = 16, 8
READ_BYTES_PER_S = 1100


class SlowReader(threading.Thread):
    """A download read at 1.1 KB/s from ``address`` (forwarded by the trusted proxy)."""

    def __init__(self, port: int, path: str, address: str) -> None:
        super().__init__(daemon=True)
        # a small receive buffer set before connecting (the window is agreed then), so what
        # the client acknowledges follows what it reads: 1.1 KB/s passes the write floor
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.settimeout(60)
        self.sock.connect(("127.0.0.1", port))
        self.sock.sendall(request(path, headers={"X-Forwarded-For": address}))
        self.head = self.sock.recv(4096)
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(1.0):
            with contextlib.suppress(OSError):
                if not self.sock.recv(READ_BYTES_PER_S):
                    return

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


def _ask(port: int, path: str, address: str) -> int:
    with socket.create_connection(("127.0.0.1", port), timeout=120) as sock:
        sock.sendall(request(path, headers={"X-Forwarded-For": address, "Connection": "close"}))
        head, _ = read_response(sock)
    return int(head.split(b" ", 2)[1])


def _side(url: str, tid: int, data: Path, slot_s: str) -> dict[str, Any]:
    path = f"/v1/tournaments/{tid}/export"
    with api_process(
        url,
        data,
        TRUCO_EXPORTS_TOTAL="16",
        TRUCO_EXPORTS_PER_ADDRESS="2",
        TRUCO_EXPORT_SLOT_S=slot_s,
        TRUCO_TRUSTED_PROXIES="127.0.0.1",
    ) as api:
        assert _ask(api.port, path, "198.51.100.200") == 200  # the files are made
        readers = [
            SlowReader(api.port, path, f"198.51.100.{k % ADDRESSES + 1}") for k in range(READERS)
        ]
        try:
            held = sum(r.head.startswith(b"HTTP/1.1 200") for r in readers)
            for reader in readers:
                reader.start()
            began = time.monotonic()
            refused = 0
            served_after = None
            while time.monotonic() - began < WINDOW_S:
                status = _ask(api.port, path, "203.0.113.50")
                if status == 200:
                    served_after = round(time.monotonic() - began, 1)
                    break
                refused += 1
                time.sleep(1.0)
        finally:
            for reader in readers:
                reader.close()
    return {
        "slot_s": float(slot_s),
        "readers_held": held,
        "refused": refused,
        "wait_s": served_after,
    }


async def _database(server: str, name: str) -> str:
    admin = await asyncpg.connect(server, timeout=5)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    url = with_database(server, name)
    await migrate_url(url)
    return url


async def _drop(server: str, name: str) -> None:
    admin = await asyncpg.connect(server, timeout=5)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


def measure(data: Path) -> dict[str, Any]:
    server = server_url()
    name = f"bench_export_wait_{os.getpid()}_{secrets.token_hex(3)}"
    try:
        url = asyncio.run(_database(server, name))
    except (OSError, asyncpg.PostgresError) as exc:
        raise NoServer(str(exc)) from exc
    try:
        tid = make_large_event(url, bots=BOTS, games=GAMES)
        return {
            "bench": "export_wait",
            "readers": READERS,
            "addresses": ADDRESSES,
            "read_bytes_per_s": READ_BYTES_PER_S,
            "window_s": WINDOW_S,
            "before": _side(url, tid, data / "before", "3600"),
            "after": _side(url, tid, data / "after", "30"),
        }
    finally:
        asyncio.run(_drop(server, name))


def main() -> None:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bench-export-wait-") as folder:
        try:
            result = measure(Path(folder))
        except NoServer as exc:
            print(f"export_wait: skipped (no PostgreSQL: {exc})")
            return
    for side in ("before", "after"):
        f = result[side]
        wait = (
            f"served after {f['wait_s']} s"
            if f["wait_s"] is not None
            else (f"not served in {result['window_s']:.0f} s")
        )
        print(
            f"  {side:6} (slot {f['slot_s']:.0f} s): {f['readers_held']} slow readers held; "
            f"another address {wait}, {f['refused']} refusals (503) meanwhile"
        )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
