"""Which HTTP client should call the bots? The candidates side by side, in one run.

Each candidate makes the same ``/act`` call the arena makes, to the two bots of
:mod:`bench.tinybot` in turn: a real ``ActRequest`` body, encoded and signed per call, the
connection reached through the pinning backend (or, for aiohttp, a resolver that returns the
checked address), no redirects, no cookies, a deadline on the whole call, at most 64 KiB read,
the answer decoded. What is measured is this process's CPU per call (``time.process_time``),
the candidates taking turns so a busy machine weighs on all of them alike:

- ``bare``: :func:`bench.arena_client.bare_stream_loop`, none of the guards (the reference);
- ``lean``: the arena's :class:`~arena.client.bot_client.BotClient` (own HTTP/1.1 on asyncio, llhttp);
- ``httpx``: httpx over httpcore on anyio, as the arena called bots before;
- ``httpcore``: httpx's layer dropped, httpcore's pool on the asyncio sockets of
  :mod:`arena.client.streams` (httpx tuned as far as it goes);
- ``aiohttp``: aiohttp's client with its C parser (skipped if aiohttp is not installed).
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import httpcore
import httpx
import msgspec

from arena.client import signing
from arena.client.bot_client import BotClient, ClientConfig, TimeBank
from arena.client.egress import EgressPolicy, PinnedTarget, check_url
from arena.client.pinning import PinnedBackend
from arena.client.streams import AsyncioBackend
from arena.wire.protocol import ActResponse
from bench.arena import act_body
from bench.arena_client import bare_stream_loop
from bench.tinybot import TinyBots

CALLS = 1500
REPEATS = 5
POLICY = EgressPolicy(allow_loopback=True)
LIMIT = 64 * 1024
_ENCODE = msgspec.json.Encoder().encode
_DECODE = msgspec.json.Decoder(ActResponse).decode
BODY = act_body()

Call = Callable[[], Awaitable[None]]
Loop = Callable[[list[str], int, str], Coroutine[Any, Any, float]]


def _signed(signer: signing.Signer, content: bytes) -> dict[str, str]:
    msg_id, stamp = signing.new_message_id(), int(time.time())
    return {
        signing.ID_HEADER: msg_id,
        signing.TIMESTAMP_HEADER: str(stamp),
        signing.SIGNATURE_HEADER: signer.signature(msg_id, stamp, content),
        "content-type": "application/json",
    }


async def _timed(calls: list[Call], n: int) -> float:
    for call in calls:  # warm-up: one call per bot opens its connection
        await call()
    start = time.process_time()
    for i in range(n):
        await calls[i % len(calls)]()
    return time.process_time() - start


async def _targets(urls: list[str]) -> list[PinnedTarget]:
    return [await check_url(url, POLICY) for url in urls]


async def lean(urls: list[str], n: int, secret: str) -> float:
    config = ClientConfig(timeout_ms=5000.0, policy=POLICY)
    clients = [BotClient(url, secret, config=config) for url in urls]
    bank = TimeBank(float("inf"))

    def call(client: BotClient) -> Call:
        async def once() -> None:
            result = await client.act(BODY, bank)
            _DECODE(getattr(result, "body"))  # noqa: B009 - a Fault has no body: fail loudly

        return once

    try:
        return await _timed([call(c) for c in clients], n)
    finally:
        for client in clients:
            await client.aclose()


def _httpx_loop(inner: Callable[[], httpcore.AsyncNetworkBackend]) -> Loop:
    async def run(urls: list[str], n: int, secret: str) -> float:
        signer = signing.Signer(secret)
        clients = []
        for target in await _targets(urls):
            transport = httpx.AsyncHTTPTransport(retries=0)
            transport._pool = httpcore.AsyncConnectionPool(  # the pinning backend underneath
                network_backend=PinnedBackend(target, POLICY, inner()), retries=0
            )
            client = httpx.AsyncClient(transport=transport, trust_env=False)
            clients.append((client, target.url.join("/act")))

        def call(client: httpx.AsyncClient, url: str) -> Call:
            async def once() -> None:
                content = _ENCODE(BODY)
                async with (
                    asyncio.timeout(5.0),
                    client.stream(
                        "POST", url, content=content, headers=_signed(signer, content)
                    ) as response,
                ):
                    body = b""
                    async for chunk in response.aiter_raw():
                        body += chunk
                        if len(body) > LIMIT:
                            raise RuntimeError("too large")
                    _DECODE(body)

            return once

        try:
            return await _timed([call(c, u) for c, u in clients], n)
        finally:
            for client, _ in clients:
                await client.aclose()

    return run


async def tuned_httpcore(urls: list[str], n: int, secret: str) -> float:
    signer = signing.Signer(secret)
    pools = []
    for target in await _targets(urls):
        backend = PinnedBackend(target, POLICY, AsyncioBackend())
        pool = httpcore.AsyncConnectionPool(network_backend=backend, retries=0)
        pools.append((pool, target.url.join("/act").encode()))

    def call(pool: httpcore.AsyncConnectionPool, url: bytes) -> Call:
        async def once() -> None:
            content = _ENCODE(BODY)
            headers = list(_signed(signer, content).items())
            async with (
                asyncio.timeout(5.0),
                pool.stream("POST", url, headers=headers, content=content) as response,
            ):
                body = b""
                async for chunk in response.aiter_stream():
                    body += chunk
                    if len(body) > LIMIT:
                        raise RuntimeError("too large")
                _DECODE(body)

        return once

    try:
        return await _timed([call(p, u) for p, u in pools], n)
    finally:
        for pool, _ in pools:
            await pool.aclose()


async def aiohttp_client(urls: list[str], n: int, secret: str) -> float:
    import aiohttp
    from aiohttp.abc import AbstractResolver, ResolveResult

    signer = signing.Signer(secret)
    targets = await _targets(urls)
    pinned = {t.url.host: str(t.ip) for t in targets}

    class Pinned(AbstractResolver):
        async def resolve(self, host: str, port: int = 0, family: int = 0) -> list[ResolveResult]:
            ip = pinned[host]  # only the checked names, only at their checked address
            return [
                {"hostname": host, "host": ip, "port": port, "family": 2, "proto": 0, "flags": 0}
            ]

        async def close(self) -> None:
            return None

    connector = aiohttp.TCPConnector(resolver=Pinned(), use_dns_cache=False, limit_per_host=4)
    session = aiohttp.ClientSession(
        connector=connector,
        cookie_jar=aiohttp.DummyCookieJar(),
        auto_decompress=False,
        trust_env=False,
    )

    def call(url: str) -> Call:
        async def once() -> None:
            content = _ENCODE(BODY)
            async with (
                asyncio.timeout(5.0),
                session.post(
                    url, data=content, headers=_signed(signer, content), allow_redirects=False
                ) as response,
            ):
                body = await response.content.read(LIMIT + 1)
                _DECODE(body)

        return once

    try:
        return await _timed([call(t.url.join("/act")) for t in targets], n)
    finally:
        await session.close()


async def bare(urls: list[str], n: int, secret: str) -> float:
    return await bare_stream_loop(urls, n, body=BODY, secret=secret)


def candidates() -> dict[str, Loop]:
    found: dict[str, Loop] = {
        "bare": bare,
        "lean": lean,
        "httpx": _httpx_loop(httpcore.AnyIOBackend),
        "httpcore": tuned_httpcore,
    }
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        print("  aiohttp is not installed: skipped")
    else:
        found["aiohttp"] = aiohttp_client
    return found


def measure(calls: int = CALLS, repeats: int = REPEATS) -> dict[str, dict[str, float]]:
    """Median CPU microseconds per call of each candidate, and its spread over ``repeats``."""
    loops = candidates()
    samples: dict[str, list[float]] = {name: [] for name in loops}
    secret = signing.generate_secret()
    with TinyBots(2) as bots:
        for _ in range(repeats):
            for name, loop in loops.items():
                before = bots.cpu()
                seconds = asyncio.run(loop(bots.urls, calls, secret))
                opened = bots.cpu()[2] - before[2]
                if opened != len(bots.urls):  # one kept-alive connection per bot, or no figure
                    raise RuntimeError(f"{name} opened {opened} connections for {calls} calls")
                samples[name].append(1e6 * seconds / calls)
    return {
        name: {
            "us_per_call": round(statistics.median(values), 1),
            "min": round(min(values), 1),
            "max": round(max(values), 1),
        }
        for name, values in samples.items()
    }


def main() -> None:
    figures = measure()
    bare_us = figures["bare"]["us_per_call"]
    for name, row in figures.items():
        print(
            f"  {name:9} {row['us_per_call']:7.1f} us of CPU a call "
            f"({row['min']}-{row['max']}), {row['us_per_call'] / bare_us:.2f} x bare"
        )
    print(msgspec.json.encode({"client_candidates": figures}).decode())


if __name__ == "__main__":
    main()
