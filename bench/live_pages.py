"""End to end, a bot's answer to the change on a spectator's page (issue 23): a real match
between two built-in bots (each thinking ``THINK_S`` a decision) whose runner writes the live
feed through the worker's own :class:`~services.live.publisher.LivePublisher` (its batching
included) to the real Redis; the platform served by uvicorn on 127.0.0.1 (one API process);
``SPECTATORS`` (then ``STREAMS``) spectators of the match: ``PAGES`` of them Chromium pages of ``/matches/{id}``
(``static/live.js`` following the stream and applying each message to the DOM), the others
SSE clients of ``/v1/matches/{id}/stream`` (raw sockets, in ``CLIENT_PROCESSES`` processes
of their own). Each size runs twice, side by side: the baseline (the feed as it was: 0.5 s
batches, read at the API's next 0.25 s poll) and the feed as it is (0.2 s batches, each write
published on the live channel, which wakes the API's poller at once).

Latency is from the runner's progress call for a decision (the bot's answer applied) to:
the page's listener running after ``live.js`` changed the DOM for that item (``dom``), and to
an SSE client reading the item's frame (``sse``); p50/p95/max over every item and spectator.
``api_cpu_us_per_message`` is the CPU of the API's process (uvicorn, and the match and the
browser's driver beside it; the SSE clients run in processes of their own) over the messages
delivered. Skips with the reason without PostgreSQL, Redis or Chromium.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import multiprocessing
import os
import re
import secrets
import statistics
import time
from typing import Any, Literal

import asyncpg
import msgspec
import redis

from arena.client.connection import InProcessBot
from arena.match.replay import EntrantRecord
from arena.match.runner import MatchSettings, run_match
from arena.sdk import strategy_decider
from bench.browser import CHROMIUM
from bench.database import server_url, with_database
from bench.serve import api_app, in_thread
from bench.smoke import size
from engine.rules import Rules
from services.base.config import (
    DatabaseSettings,
    RedisSettings,
    Secret,
    SecretSettings,
    Settings,
    StreamSettings,
)
from services.db import accounts as db_accounts
from services.db import bots as db_bots
from services.db.migrate import migrate_url
from services.live.publisher import LivePublisher

SPECTATORS = size(100, 3)
STREAMS = size(1000, 20)  # the second run: 1,000 open streams on the one API process
PAGES = size(3, 1)
THINK_S = size(0.15, 0.08)  # the smoke run: the match still outlasts the page's loading
POINTS: Literal[15, 30] = size(30, 15)  # the smoke run: a shorter match (15: the least)
SETTLE_S = size(1.0, 0.2)  # the pauses for the streams to settle (before, after the match)
CLIENT_PROCESSES = 2  # the SSE clients' processes (one a core)
BASELINE_FLUSH_S = 0.5
"""The baseline: the feed as it was before pushes (0.5 s batches, read at the API's poll)."""


class Thinking(InProcessBot):
    async def act(self, request: Any, bank: Any) -> Any:
        await asyncio.sleep(THINK_S)
        return await super().act(request, bank)


async def _match(url: str) -> int:
    """A running 1v1 match between two stored bots (never called: the bench plays it)."""
    async with asyncpg.create_pool(url, min_size=1, max_size=1) as pool:
        owner = await db_accounts.create_account(
            pool, f"bench-{secrets.token_hex(4)}", secrets.token_bytes(32)
        )
        bots = []
        for side in (0, 1):
            async with pool.acquire() as conn:
                bot = await db_bots.create_bot(
                    conn,
                    owner_id=owner.id,
                    name=f"bench-bot-{side}-{secrets.token_hex(3)}",
                    url="http://127.0.0.1:9",
                    encrypt_secret=lambda bot_id: b"\x00" * 32,
                    key_id="bench",
                )
            bots.append(bot.id)
        mid: int = await pool.fetchval(
            """INSERT INTO matches (mode, status, seed, games_per_match, rules, started_at)
               VALUES ('1v1', 'running', 7, 1, $1, now()) RETURNING id""",
            json.dumps({"points_to_win": POINTS}),
        )
        for side, bot_id in enumerate(bots):
            await pool.execute(
                "INSERT INTO match_entrants (match_id, slot, bot_id, side) VALUES ($1, $2, $3, $2)",
                mid,
                side,
                bot_id,
            )
        return mid


ID_LINE = re.compile(rb"(?:^|\n)id: (\d+)\n")


async def _sse(base: str, mid: int, got: list[tuple[int, float]], ready: asyncio.Event) -> None:
    """One spectator on a raw socket: the stream's bytes are searched for ``id:`` lines (the
    server writes whole frames per chunk), so the client's cost is a regex per chunk, not an
    HTTP library's line iteration: the figure is the server's, not the client's."""
    host, port = base.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(
        f"GET /v1/matches/{mid}/stream HTTP/1.1\r\nHost: {host}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    ready.set()
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"stream refused: {head[:40]!r}")
    try:
        while chunk := await reader.read(65536):
            at = time.time()
            got.extend((int(found), at) for found in ID_LINE.findall(chunk))
            if b"event: end" in chunk:
                return
    finally:
        writer.close()


def _spectate(base: str, mid: int, n: int, queue: Any) -> None:
    """``n`` SSE clients, in a process of their own (not sharing the API's CPU and GIL): says
    "ready" once all are connected, then sends every (id, arrival time) once they ended."""

    async def run() -> list[tuple[int, float]]:
        got: list[tuple[int, float]] = []
        readies = [asyncio.Event() for _ in range(n)]
        tasks = [asyncio.create_task(_sse(base, mid, got, r)) for r in readies]
        try:
            await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), 120)
        except TimeoutError:
            queue.put("timeout")
            raise
        queue.put("ready")
        await asyncio.wait_for(asyncio.gather(*tasks, return_exceptions=True), 600)
        return got

    queue.put(asyncio.run(run()))


LISTEN = """() => new Promise(resolve => {
  const wait = () => {
    const s = window.__trucoStream;
    if (!s || s.readyState !== 1) return setTimeout(wait, 50);
    window.__seen = [];
    s.addEventListener('message', e => window.__seen.push([+e.lastEventId, Date.now() / 1000]));
    resolve(true);
  };
  wait();
})"""


async def _run(spectators: int, pages: int, baseline: bool) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    admin = server_url()
    name = f"bench_live_pages_{secrets.token_hex(4)}"
    conn = await asyncpg.connect(admin)
    await conn.execute(f'CREATE DATABASE "{name}"')
    await conn.close()
    url = with_database(admin, name)
    redis_url = os.environ.get("REDIS_URL", "").strip() or "redis://127.0.0.1:6379/0"
    prefix = f"bench-pages-{secrets.token_hex(4)}:"
    served = contextlib.ExitStack()  # the API, stopped before the database is dropped
    try:
        await migrate_url(url)
        mid = await _match(url)
        settings = Settings(
            database=DatabaseSettings(url=url),
            secrets=SecretSettings(key=Secret("b" * 48)),
            redis=RedisSettings(url=redis_url, prefix=prefix),
            streams=StreamSettings(per_address=spectators + 10, total=spectators + 10),
        )
        writer = redis.Redis.from_url(redis_url)
        publisher = (
            LivePublisher(writer, prefix, mid, flush_after_s=BASELINE_FLUSH_S, notify=False)
            if baseline
            else LivePublisher(writer, prefix, mid)
        )
        publisher.begin()
        base = served.enter_context(in_thread(api_app(settings)))
        rss_before = _rss_kib()
        ctx = multiprocessing.get_context("spawn")
        queue = ctx.Queue()
        clients = spectators - pages
        shares = [
            clients // CLIENT_PROCESSES + (k < clients % CLIENT_PROCESSES)
            for k in range(CLIENT_PROCESSES)
        ]
        spectating = [
            ctx.Process(target=_spectate, args=(base, mid, n, queue), daemon=True)
            for n in shares
            if n
        ]
        for process in spectating:
            process.start()
        answered: list[float] = []  # by item index - 1 (the header is item 0)

        def progress(index: int, state: Any, decision: Any, events: Any) -> None:
            answered.append(time.time())
            publisher.progress(index, state, decision, events)

        bots = [
            (EntrantRecord(n, f"builtin:{n}"), Thinking(n, strategy_decider(n, k)))
            for k, n in enumerate(("heuristic", "random"))
        ]
        for _ in spectating:
            ready = await asyncio.to_thread(queue.get, True, 300)
            if ready != "ready":
                raise RuntimeError(f"the SSE clients did not connect: {ready}")
        await asyncio.sleep(SETTLE_S)
        kib_per_stream = (_rss_kib() - rss_before) / max(1, spectators - pages)
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
            )
            cpu = time.process_time()
            match = asyncio.create_task(
                run_match(
                    f"m{mid}",
                    7,
                    MatchSettings(rules=Rules(points_to_win=POINTS), games_per_match=1),
                    bots,
                    progress,
                )
            )
            while len(answered) < 2:  # the page is built from the first items, then follows
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.6 * SETTLE_S)
            tabs = []
            for _ in range(pages):
                tab = await browser.new_page()
                await tab.goto(f"{base}/matches/{mid}")
                await tab.evaluate(LISTEN)
                tabs.append((tab, time.time()))
            await match
            publisher.close()
            await asyncio.sleep(1.5 * SETTLE_S)
            cpu = time.process_time() - cpu
            dom: list[float] = []
            for tab, listening in tabs:
                for index, at in await tab.evaluate("window.__seen || []"):
                    if 1 <= index <= len(answered) and answered[index - 1] >= listening:
                        dom.append(at - answered[index - 1])
            await browser.close()
        async with asyncpg.create_pool(url, min_size=1, max_size=1) as pool:
            await pool.execute("UPDATE matches SET status = 'done' WHERE id = $1", mid)
        sse_got = []
        for _ in spectating:
            sse_got += await asyncio.to_thread(queue.get, True, 120)
        for process in spectating:
            process.join(30)
        sse = [at - answered[i - 1] for i, at in sse_got if 1 <= i <= len(answered)]
        writer.delete(f"{prefix}live:{mid}")
        writer.close()
        return {
            "baseline": baseline,
            "spectators": spectators,
            "pages": pages,
            "decisions": len(answered),
            "think_ms": round(THINK_S * 1000),
            "dom": _stats(dom),
            "sse": _stats(sse),
            "api_cpu_us_per_message": round(1e6 * cpu / max(1, len(dom) + len(sse)), 1),
            "api_kib_per_stream": round(kib_per_stream, 1),
        }
    finally:
        served.close()
        conn = await asyncpg.connect(admin)
        await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await conn.close()


def _rss_kib() -> int:
    """This process's resident memory (the API's: uvicorn runs in a thread of it)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _stats(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "p50_ms": round(1000 * statistics.median(ordered), 1),
        "p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 1),
        "max_ms": round(1000 * ordered[-1], 1),
    }


def measure(
    spectators: int = SPECTATORS, pages: int = PAGES, baseline: bool = False
) -> dict[str, Any]:
    return asyncio.run(_run(spectators, pages, baseline))


def main() -> None:
    try:
        import playwright  # noqa: F401
    except ImportError:
        print("  skipped: Playwright is not installed")
        return
    if not os.access(CHROMIUM, os.X_OK):
        print(f"  skipped: no Chromium at {CHROMIUM}")
        return
    # the smoke run: one count (the second runs the same code with more streams)
    for spectators in size((SPECTATORS, STREAMS), (SPECTATORS,)):
        for baseline in (True, False):
            _report(measure(spectators, baseline=baseline))


def _report(s: dict[str, Any]) -> None:
    print(
        f"live_pages, {s['spectators']} spectators, "
        + ("baseline (0.5 s batches, polled)" if s["baseline"] else "pushed (0.2 s batches)")
    )
    for side in ("dom", "sse"):
        f = s[side]
        print(
            f"  {side}: {f['n']} deliveries to {s['pages'] if side == 'dom' else s['spectators'] - s['pages']}"
            f" spectators: bot answer -> {'DOM change' if side == 'dom' else 'SSE frame'} "
            f"p50 {f.get('p50_ms')} ms, p95 {f.get('p95_ms')} ms, max {f.get('max_ms')} ms"
        )
    print(
        f"  {s['decisions']} decisions ({s['think_ms']} ms thinking each); "
        f"{s['api_cpu_us_per_message']} us API process CPU a message delivered; "
        f"{s['api_kib_per_stream']} KiB API memory an open stream"
    )
    print(msgspec.json.encode({"live_pages": s}).decode(), flush=True)
