"""The live streams' fan-out: latency from a worker's write to every spectator, one poller per
watched match (after) against one Redis poll per spectator (before: what N spectators polling
the replay cost Redis), against the real Redis.

In one process: a writer RPUSHes one item every ``EVERY_S`` (as the worker's batched feed
does) with its write time; ``SPECTATORS`` subscribers of one match follow the process's feed
(:func:`services.api.sse.feeds.follow` over :func:`~services.api.sse.feeds.poll_match`).
Latency is from the write to the subscriber having the frame (p50/p95/max over every
spectator and item); ``cpu_us_per_message`` the process CPU per item delivered to one
spectator; ``kib_per_stream`` the memory a subscriber adds (tracemalloc). The HTTP write to the
socket (uvicorn) is not in the figure. The baseline runs the same with one reader per
spectator (a poll each every 0.25 s, as N independent pollers would).
"""

from __future__ import annotations

import asyncio
import os
import secrets
import statistics
import time
import tracemalloc
from typing import Any

import msgspec
import redis.asyncio

from bench.smoke import size
from services.api.sse.feeds import Feed, Hub, follow, poll_match
from services.live.feed import live_key
from services.live.reader import LiveReader

SPECTATORS = size(1000, 10)
ITEMS = size(40, 5)  # the messages written, EVERY_S apart
EVERY_S = 0.05
MATCH_ID = 1


async def _never_decided() -> bytes | None:
    return None


async def _spectator(feed: Feed, latencies: list[float], want: int) -> None:
    seen = 0
    async for chunk in follow(feed, 0, heartbeat_s=60):
        now = time.time()
        for line in chunk.split(b"\n"):
            if line.startswith(b"data: ") and b'"t":' in line:
                latencies.append(now - msgspec.json.decode(line[6:])["t"])
                seen += 1
        if seen >= want:
            return


async def _run(url: str, spectators: int, shared: bool) -> dict[str, Any]:
    prefix = f"bench-stream-{secrets.token_hex(4)}:"
    writer = redis.asyncio.Redis.from_url(url)
    key = live_key(prefix, MATCH_ID)
    await writer.rpush(key, b'{"run":"r","header":true}')
    readers = [LiveReader(url, prefix) for _ in range(1 if shared else spectators)]
    latencies: list[float] = []
    hub = Hub()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    tasks: list[asyncio.Task[None]] = []
    feeds: list[Feed] = []
    entered: list[Any] = []
    for k in range(spectators):
        reader = readers[0 if shared else k]

        async def poller(feed: Feed, reader: LiveReader = reader) -> None:
            await poll_match(feed, reader, MATCH_ID, _never_decided)

        watch = hub.watch(("match", MATCH_ID if shared else k), poller)
        feed = await watch.__aenter__()
        entered.append(watch)
        feeds.append(feed)
        tasks.append(asyncio.create_task(_spectator(feed, latencies, ITEMS)))
    await asyncio.sleep(size(0.5, 0.1))  # the pollers started
    per_stream_kib = (tracemalloc.get_traced_memory()[0] - base) / 1024 / spectators
    tracemalloc.stop()
    cpu = time.process_time()
    for n in range(ITEMS):
        await writer.rpush(key, msgspec.json.encode({"run": "r", "n": n, "t": time.time()}))
        await asyncio.sleep(EVERY_S)
    await asyncio.wait_for(asyncio.gather(*tasks), 60)
    cpu = time.process_time() - cpu
    for watch in entered:
        await watch.__aexit__(None, None, None)
    await hub.aclose()
    await writer.delete(key)
    await writer.aclose()
    for reader in readers:
        await reader.aclose()
    ordered = sorted(latencies)
    return {
        "spectators": spectators,
        "messages": len(latencies),
        "pollers": 1 if shared else spectators,
        "p50_ms": round(1000 * statistics.median(ordered), 1),
        "p95_ms": round(1000 * ordered[int(0.95 * (len(ordered) - 1))], 1),
        "max_ms": round(1000 * ordered[-1], 1),
        "cpu_us_per_message": round(1e6 * cpu / max(1, len(latencies)), 1),
        "kib_per_stream": round(per_stream_kib, 2),
    }


def measure(spectators: int = SPECTATORS) -> dict[str, Any]:
    url = os.environ.get("REDIS_URL", "").strip() or "redis://127.0.0.1:6379/0"
    before = asyncio.run(_run(url, min(spectators, 200), shared=False))
    after = asyncio.run(_run(url, spectators, shared=True))
    return {"before": before, "after": after}


def main() -> None:
    summary = measure()
    for side in ("before", "after"):
        s = summary[side]
        print(
            f"  {side}: {s['spectators']} spectators, {s['pollers']} Redis pollers: latency "
            f"p50 {s['p50_ms']} ms, p95 {s['p95_ms']} ms, max {s['max_ms']} ms; "
            f"{s['cpu_us_per_message']} us CPU a message; {s['kib_per_stream']} KiB a stream"
        )
    print(msgspec.json.encode({"live_stream": summary}).decode())
