"""One address reading the ladder in loops (issue 33, 4): what another address's
``GET /v1/bots/{id}`` waits meanwhile, before and after, in the same run on the same database.

What runs, all on 127.0.0.1: PostgreSQL (a database of this run's own, migrated, dropped at
the end) holding a 1v1 ladder of ``BENCH_LADDER_BOTS`` (30) bots and about
``BENCH_LADDER_MATCHES`` (1,000) ladder matches played for real in process (the matchmaker's
ticks, random bots, then a fit); Redis for the rate-limit counters; per side one API process
(``services.launch.app:app_from_env`` under uvicorn, its pool of 10 connections, budgets raised
so that nothing is refused: the pool is measured, not the limits). The flood comes from a
child process at nice 10 over its own source address (127.0.0.2): ``LOOPS`` (20) connections
each reading ``/v1/ladders/1v1`` again as soon as answered, as the issue's attack (which got 13
answers a second); the other requests from this process over 127.0.0.3, every 20 ms.
Phases of ``BENCH_LADDER_S`` (10) seconds:

* ``idle``: nobody reads the ladder (on the ``after`` API);
* ``before``: the flood signed in (a signed-in reader reads the table every time, as every
  reader did before issue 33) with the read lane off (``TRUCO_READS_*`` 1000): what was
  measured in the issue;
* ``after``: the flood without a key, on the API as it is: the table read once every 5 s, the
  read lane (6 reads at once, 3 per address);
* ``after_keyed``: the flood signed in on the API as it is: only the read lane stands between
  it and the pool.

Figures per phase: ladder answers a second, their p50, and the other address's p50/p99/max.
Text lines, then one JSON line.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import multiprocessing
import os
import secrets
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg

from bench.database import NoServer, server_url, with_database
from bench.platform_procs import Procs
from bench.serve import port_of, start_api
from bench.smoke import env_size, size
from services.base.config import LOCAL_REDIS_URL, LadderSettings
from services.db.migrate import migrate_url
from services.db.pool import create_pool
from services.flow import ladder as flow_ladder
from services.worker.results.fit import refit

ROOT = Path(__file__).resolve().parents[1]
BOTS = int(env_size("BENCH_LADDER_BOTS", "30", "6"))
MATCHES = int(env_size("BENCH_LADDER_MATCHES", "1000", "20"))
SECONDS = float(env_size("BENCH_LADDER_S", "10", "0.25"))
LOOPS = size(20, 4)
PROBE_EVERY_S = 0.02
FLOODER, OTHER = "127.0.0.2", "127.0.0.3"


def _ms(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(q * len(ordered)))], 1)


class Connection:
    """One keep-alive HTTP/1.1 connection from ``source`` sending prepared GETs."""

    def __init__(self, port: int, source: str, headers: str = "") -> None:
        self.port, self.source, self.headers = port, source, headers
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> tuple[int, bytes]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(
                "127.0.0.1", self.port, local_addr=(self.source, 0)
            )
        assert self.reader is not None
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n{self.headers}\r\n".encode())
        await self.writer.drain()
        head = await self.reader.readuntil(b"\r\n\r\n")
        status = int(head.split(b" ", 2)[1])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)

    async def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def _flood(port: int, key: str | None) -> tuple[list[float], int]:
    """``LOOPS`` connections reading the ladder back to back for ``SECONDS``."""
    headers = f"Authorization: Bearer {key}\r\n" if key else ""
    start = time.monotonic()
    stop = start + SECONDS
    took: list[float] = []
    refused = [0]

    async def loop(k: int) -> None:
        conn = Connection(port, FLOODER, headers)
        try:
            while time.monotonic() < stop:
                t = time.monotonic()
                status, _ = await conn.get("/v1/ladders/1v1")
                if status == 200:
                    took.append(time.monotonic() - t)
                else:
                    refused[0] += 1
        finally:
            await conn.close()

    await asyncio.gather(*(loop(k) for k in range(LOOPS)))
    return took, refused[0]


def _flood_process(conn: Any, port: int, key: str | None) -> None:
    os.nice(10)
    conn.send("ready")
    assert conn.recv() == "go"
    conn.send(asyncio.run(_flood(port, key)))


async def _probe(port: int, path: str, stop: asyncio.Event) -> list[float]:
    conn = Connection(port, OTHER)
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


async def _phase(port: int, probe: str, key: str | None, flood: bool) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    child = None
    if flood:
        ours, theirs = multiprocessing.get_context("spawn").Pipe()
        child = multiprocessing.get_context("spawn").Process(
            target=_flood_process, args=(theirs, port, key), daemon=True
        )
        child.start()
        assert await loop.run_in_executor(None, ours.recv) == "ready"
    prober = asyncio.create_task(_probe(port, probe, stop))
    try:
        if child is not None:
            ours.send("go")
            took, refused = await loop.run_in_executor(None, ours.recv)
        else:
            await asyncio.sleep(SECONDS)
            took, refused = [], 0
        stop.set()
        others = await prober
    finally:
        if child is not None:
            child.join(10)
            if child.is_alive():
                child.kill()
    return {
        "ladder_answers_per_s": round(len(took) / SECONDS, 1),
        "ladder_p50_ms": _ms(took, 0.5),
        "ladder_refused": refused,
        "other_requests": len(others),
        "other_p50_ms": _ms(others, 0.5),
        "other_p99_ms": _ms(others, 0.99),
        "other_max_ms": _ms(others, 1.0),
    }


async def _key(port: int) -> str:
    import httpx

    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as client:
        made = await client.post("/v1/accounts", json={"name": f"flood-{secrets.token_hex(3)}"})
        assert made.status_code == 201, made.text
        return str(made.json()["api_key"])


def _side(env: dict[str, str], logs: Path, name: str, kinds: list[str], bot: int) -> dict[str, Any]:
    with Procs(logs / name, ROOT) as procs:
        port = port_of(start_api(procs, env, health=False))
        key = asyncio.run(_key(port))
        probe = f"/v1/bots/{bot}"
        out = {}
        for kind in kinds:
            signed = key if kind in ("before", "after_keyed") else None
            out[kind] = asyncio.run(_phase(port, probe, signed, kind != "idle"))
        return out


async def _database(server: str, name: str) -> tuple[str, int, int]:
    """The run's database with the ladder: (URL, ladder matches, a bot for the probe)."""
    # the tests' helpers (tests/ is not type-checked: no static import)
    ladder_bots = importlib.import_module("tests.services.flow.test_ladder_flow").ladder_bots
    helpers = importlib.import_module("tests.services.helpers.flow_helpers")
    InProcessSender, in_process = helpers.InProcessSender, helpers.in_process

    admin = await asyncpg.connect(server, timeout=5)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    url = with_database(server, name)
    await migrate_url(url)
    pool = await create_pool(url, min_size=1, max_size=4)
    try:
        bots = await ladder_bots(pool, owners=BOTS)
        run = InProcessSender(in_process({}))
        settings = LadderSettings(hourly_cap=3600, pair_per_day=1000, in_flight=1000)
        now = datetime(2026, 11, 1, tzinfo=UTC)
        played = idle = 0
        while played < MATCHES and idle < 48:  # the matchmaker may pause placed bots a while
            created = await flow_ladder.tick(pool, settings, now)
            await run(pool, created)
            played += len(created)
            idle = 0 if created else idle + 1
            now += timedelta(minutes=2) if created else timedelta(hours=1)
            if played and not played % 200:
                await refit(pool, "1v1")
        await refit(pool, "1v1")
        count = await pool.fetchval("SELECT count(*) FROM matches WHERE ladder_pool = '1v1'")
        return url, int(count), bots[0]
    finally:
        await pool.close()


async def _drop(server: str, name: str) -> None:
    admin = await asyncpg.connect(server, timeout=5)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


def measure() -> dict[str, Any]:
    server = server_url()
    name = f"bench_ladder_reads_{os.getpid()}_{secrets.token_hex(3)}"
    logs = Path(tempfile.mkdtemp(prefix="bench-ladder-reads-"))
    try:
        try:
            url, matches, bot = asyncio.run(_database(server, name))
        except (OSError, asyncpg.PostgresError) as exc:
            raise NoServer(str(exc)) from exc
        env = {
            "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "TRUCO_ENV": "local",
            "DATABASE_URL": url,
            "REDIS_URL": os.environ.get("REDIS_URL", LOCAL_REDIS_URL),
            "TRUCO_REDIS_PREFIX": f"bench-ladder-reads-{secrets.token_hex(4)}:",
            "TRUCO_SECRET_KEY": secrets.token_urlsafe(48),
            "TRUCO_DATA_DIR": str(logs / "data"),
            "TRUCO_RATE_LIMIT_PER_MINUTE": "10000000",
            "TRUCO_ADDRESS_RATE_LIMIT_PER_MINUTE": "10000000",
            "TRUCO_PAGE_RATE_LIMIT_PER_MINUTE": "10000000",
            "PYTHONUNBUFFERED": "1",
        }
        lane_off = {"TRUCO_READS_AT_ONCE": "1000", "TRUCO_READS_PER_ADDRESS": "1000"}
        phases = _side({**env, **lane_off}, logs, "before", ["before"], bot)
        phases.update(_side(env, logs, "after", ["idle", "after", "after_keyed"], bot))
    finally:
        asyncio.run(_drop(server, name))
        shutil.rmtree(logs, ignore_errors=True)
    order = ("idle", "before", "after", "after_keyed")
    return {
        "bench": "ladder_reads",
        "ladder_matches": matches,
        "bots": BOTS,
        "seconds": SECONDS,
        "loops": LOOPS,
        "phases": {kind: phases[kind] for kind in order},
    }


def main() -> None:
    try:
        result = measure()
    except NoServer as exc:
        print(f"ladder_reads: skipped (no PostgreSQL: {exc})")
        return
    print(
        f"  a ladder of {result['bots']} bots and {result['ladder_matches']} ladder matches; "
        f"{result['loops']} loops from one address reading it back to back"
    )
    for kind, f in result["phases"].items():
        print(
            f"    {kind:12} ladder {f['ladder_answers_per_s']:5.1f}/s (p50 {f['ladder_p50_ms']} ms)"
            f"   other address: p50 {f['other_p50_ms']} ms, p99 {f['other_p99_ms']} ms, "
            f"max {f['other_max_ms']} ms ({f['other_requests']} requests)"
        )
    print(json.dumps(result))


if __name__ == "__main__":
    main()
