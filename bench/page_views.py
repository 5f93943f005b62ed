"""A finished event's page hammered (issue 21, break 3): page views a second one API process
serves, and what the API's other requests wait meanwhile; without the rendered-page cache
(``before``: ``TRUCO_PAGE_CACHE_BYTES=0``, every view renders the page) and with it
(``after``), in the same run, on the same database.

What runs, all on 127.0.0.1: PostgreSQL (a database of this run's own, migrated, dropped at
the end) holding a finished 40-bot round robin (780 matches, played for real in process:
``tests/services/web/seed_event.py``; the smoke run's: 4 bots, 6 matches); Redis for the
rate-limit counters (``REDIS_URL``, else the local one; keys under a prefix of this run's own);
per side one API process
(``services.launch.app:app_from_env`` under uvicorn, budgets raised so that nothing is
refused: the rendering is measured, not the limits). The page views come from a child process
at nice 10 (in production they come over the network, not from the API's machine) over
keep-alive HTTP/1.1 connections with prepared requests (cheap, so the API gets the CPU); the
other requests from this process.
Each phase lasts ``BENCH_PAGE_S`` (10) seconds while one more connection GETs
``/v1/bots/{id}`` every 20 ms (the other requests): ``idle`` (no page views), ``flat_out``
(``BENCH_PAGE_CLIENTS``, 8, connections GET ``/tournaments/{id}`` as fast as answered),
``paced`` (200 views a second offered, over 32 connections) and ``busting`` (as ``flat_out``,
each view with a query of its own, ``?nocache=N``: a page no cache holds, as an attacker would
ask; with the cache only the template is rendered, the event's view model being kept).

Figures per side and phase: page views answered a second, the API process's CPU per view
(from /proc: on a loaded machine the views/s follow the CPU the API gets, the CPU per view
does not), and the other requests' p50/p99. Text lines, then one JSON line.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import multiprocessing
import os
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import asyncpg

from bench.database import server_url, with_database
from bench.platform_procs import Procs, cpu_s
from bench.serve import port_of, start_api
from bench.smoke import env_size, size
from services.base.config import LOCAL_REDIS_URL
from services.db.migrate import migrate_url

ROOT = Path(__file__).resolve().parents[1]
DB_PREFIX = "bench_pages_"
SECONDS = float(env_size("BENCH_PAGE_S", "10", "0.25"))
EVENT_BOTS = size(40, 4)  # the smoke run: a 6-match round robin, not the 780-match event
CLIENTS = int(env_size("BENCH_PAGE_CLIENTS", "8", "2"))
PACED_CLIENTS = size(32, 4)
PROBE_EVERY_S = 0.02
TARGET_VIEWS_S = 200
TARGET_P99_MS = 100


def _ms(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


class Connection:
    """One keep-alive HTTP/1.1 connection sending prepared GETs: a load generator that costs
    this process little CPU, so the API process gets the machine (httpx costs more per request
    than the cached page does)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> tuple[int, int]:
        """(status, body bytes)."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        await self.reader.readexactly(length)
        return status, length

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()


async def _views(
    host: str, port: int, page: str, seconds: float, clients: int, rate: float | None
) -> tuple[list[float], int, float]:
    """``clients`` connections viewing ``page`` for ``seconds``: as fast as answered (``rate``
    None) or paced to ``rate`` views a second in all. (view latencies, refused, seconds)."""
    start = time.monotonic()
    stop = start + seconds
    views: list[float] = []
    refused = [0]

    async def viewer(k: int) -> None:
        conn = Connection(host, port)
        try:
            n = sent = 0
            while True:
                if rate is not None:  # this connection's share of the schedule
                    due = start + (k + n * clients) / rate
                    n += 1
                    if due >= stop:
                        return
                    await asyncio.sleep(max(0.0, due - time.monotonic()))
                if time.monotonic() >= stop:  # behind schedule: what is not sent is dropped
                    return
                t = time.monotonic()
                sent += 1
                status, _ = await conn.get(page.replace("{k}", f"{k}-{sent}"))
                if status == 200:
                    views.append(time.monotonic() - t)
                else:
                    refused[0] += 1
        finally:
            await conn.close()

    await asyncio.gather(*(viewer(k) for k in range(clients)), asyncio.sleep(seconds))
    return views, refused[0], time.monotonic() - start


def _viewer_process(conn: Any, port: int, page: str, clients: int, rate: float | None) -> None:
    """The page views of a phase, in a child process at nice 10."""
    os.nice(10)
    conn.send("ready")
    assert conn.recv() == "go"
    conn.send(asyncio.run(_views("127.0.0.1", port, page, SECONDS, clients, rate)))


async def _probe(host: str, port: int, path: str, stop: asyncio.Event) -> list[float]:
    """The other requests: ``path`` every PROBE_EVERY_S until ``stop``; their latencies."""
    conn = Connection(host, port)
    took: list[float] = []
    try:
        while not stop.is_set():
            t = time.monotonic()
            status, _ = await conn.get(path)
            assert status == 200, (path, status)
            took.append(time.monotonic() - t)
            await asyncio.sleep(max(0.0, PROBE_EVERY_S - (time.monotonic() - t)))
    finally:
        await conn.close()
    return took


async def _phase(
    port: int, pid: int, page: str, probe: str, rate: float | None, clients: int
) -> dict[str, Any]:
    """One phase: the page views from a child process (niced: in production the load comes
    over the network, not from the API's machine), the other requests from this one."""
    loop = asyncio.get_running_loop()
    ours, theirs = multiprocessing.get_context("spawn").Pipe()
    child = multiprocessing.get_context("spawn").Process(
        target=_viewer_process, args=(theirs, port, page, clients, rate), daemon=True
    )
    child.start()
    try:
        assert await loop.run_in_executor(None, ours.recv) == "ready"
        stop = asyncio.Event()
        prober = asyncio.create_task(_probe("127.0.0.1", port, probe, stop))
        cpu = cpu_s(pid)
        ours.send("go")
        views, refused, took = await loop.run_in_executor(None, ours.recv)
        cpu = cpu_s(pid) - cpu
        stop.set()
        others = await prober
    finally:
        child.join(10)
        if child.is_alive():
            child.kill()
    return {
        "offered_per_s": rate,
        "views": len(views),
        "views_per_s": round(len(views) / took, 1),
        "view_p50_ms": _ms(views, 0.5),
        "view_p99_ms": _ms(views, 0.99),
        "refused": refused,
        "api_cpu_ms_per_view": round(1000 * cpu / max(1, len(views)), 2),
        "other_requests": len(others),
        "other_p50_ms": _ms(others, 0.5),
        "other_p99_ms": _ms(others, 0.99),
    }


async def _hammer(port: int, pid: int, page: str, probe: str) -> dict[str, Any]:
    warm = Connection("127.0.0.1", port)
    try:  # the first view renders (and, with the cache, keeps) the page
        status, size = await warm.get(page)
        assert status == 200, status
        quiet = [await warm.get(probe) for _ in range(20)]
        assert all(s == 200 for s, _ in quiet)
    finally:
        await warm.close()
    idle = await _phase(port, pid, page, probe, None, 0)  # no page views: the baseline
    return {
        "page_bytes": size,
        "idle_other_p50_ms": idle["other_p50_ms"],
        "idle_other_p99_ms": idle["other_p99_ms"],
        "flat_out": await _phase(port, pid, page, probe, None, CLIENTS),
        "paced": await _phase(port, pid, page, probe, float(TARGET_VIEWS_S), PACED_CLIENTS),
        # every view a page no cache holds: a query no page reads, new each time
        "busting": await _phase(port, pid, page + "?nocache={k}", probe, None, CLIENTS),
    }


def _side(
    env: dict[str, str], cache_bytes: int, tid: int, bot: int, logs: Path, name: str
) -> dict[str, Any]:
    with Procs(logs / name, ROOT) as procs:
        env = {**env, "TRUCO_PAGE_CACHE_BYTES": str(cache_bytes)}
        port = port_of(start_api(procs, env, health=False))
        pid = procs.running["api"].pid
        return asyncio.run(_hammer(port, pid, f"/tournaments/{tid}", f"/v1/bots/{bot}"))


async def _database(server: str, name: str) -> tuple[str, int, int]:
    """The run's database with the finished round robin: (URL, its id, one of its bots)."""
    # the tests' seed, the very event they weigh (tests/ is not type-checked: no static import)
    seed_event = importlib.import_module("tests.services.web.seed_event").seed_event

    admin = await asyncpg.connect(server, timeout=5)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    url = with_database(server, name)
    await migrate_url(url)
    tid = await seed_event(url, EVENT_BOTS)
    conn = await asyncpg.connect(url)
    try:
        bot = await conn.fetchval(
            "SELECT bot_id FROM tournament_entries WHERE tournament_id = $1 LIMIT 1", tid
        )
    finally:
        await conn.close()
    return url, tid, int(bot)


async def _drop(server: str, name: str) -> None:
    admin = await asyncpg.connect(server, timeout=5)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


def measure() -> dict[str, Any]:
    server = server_url()
    name = f"{DB_PREFIX}{os.getpid()}_{secrets.token_hex(3)}"
    logs = Path(tempfile.mkdtemp(prefix="bench-pages-"))
    try:
        url, tid, bot = asyncio.run(_database(server, name))
        env = {
            "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "TRUCO_ENV": "local",
            "DATABASE_URL": url,
            "REDIS_URL": os.environ.get("REDIS_URL", LOCAL_REDIS_URL),
            "TRUCO_REDIS_PREFIX": f"bench-pages-{secrets.token_hex(4)}:",
            "TRUCO_SECRET_KEY": secrets.token_urlsafe(48),
            "TRUCO_DATA_DIR": str(logs / "data"),
            "TRUCO_RATE_LIMIT_PER_MINUTE": "10000000",
            "TRUCO_PAGE_RATE_LIMIT_PER_MINUTE": "10000000",
            "TRUCO_ADDRESS_RATE_LIMIT_PER_MINUTE": "10000000",  # the probes: 50 a second
            "PYTHONUNBUFFERED": "1",
        }
        before = _side(env, 0, tid, bot, logs, "before")
        after = _side(env, 32 * 1024 * 1024, tid, bot, logs, "after")
    finally:
        asyncio.run(_drop(server, name))
        shutil.rmtree(logs, ignore_errors=True)
    return {
        "event_matches": EVENT_BOTS * (EVENT_BOTS - 1) // 2,
        "seconds": SECONDS,
        "clients": CLIENTS,
        "before": before,
        "after": after,
        "target": {"views_per_s": TARGET_VIEWS_S, "other_p99_ms": TARGET_P99_MS},
    }


def main() -> None:
    summary = measure()
    for side in ("before", "after"):
        s = summary[side]
        flat, paced = s["flat_out"], s["paced"]
        print(
            f"  {side} ({'no cache' if side == 'before' else 'page cache'}), a finished "
            f"{summary['event_matches']}-match event's page ({s['page_bytes']} bytes); "
            f"other requests idle: p50 "
            f"{s['idle_other_p50_ms']} ms, p99 {s['idle_other_p99_ms']} ms"
        )
        print(
            f"    flat out ({summary['clients']} connections): {flat['views_per_s']} views/s, "
            f"{flat['api_cpu_ms_per_view']} ms of API CPU a view; other requests p50 "
            f"{flat['other_p50_ms']} ms, p99 {flat['other_p99_ms']} ms"
        )
        print(
            f"    paced at {TARGET_VIEWS_S} views/s offered: {paced['views_per_s']} views/s "
            f"answered (view p99 {paced['view_p99_ms']} ms); other requests p50 "
            f"{paced['other_p50_ms']} ms, p99 {paced['other_p99_ms']} ms"
        )
        bust = s["busting"]
        print(
            f"    every view a new query: {bust['views_per_s']} views/s, "
            f"{bust['api_cpu_ms_per_view']} ms of API CPU a view; other requests p50 "
            f"{bust['other_p50_ms']} ms, p99 {bust['other_p99_ms']} ms"
        )
    print(json.dumps({"page_views": summary}))
