"""Baselines for the arena benchmarks.

``bare_post_loop``: POSTs through the same guarded BotClient a match uses; ``bench/arena.py``
compares a match's decisions per second against it, so the difference is the runner's own
overhead (engine, observation, replay).

``bare_stream_loop``: the least a bot call can cost, a keep-alive loop on asyncio streams that
encodes the body, signs it the same way (Standard Webhooks, HMAC-SHA256), writes the request,
reads the answer by its Content-Length and decodes it, and nothing else: no guard, no
deadline, no limits. ``bench/arena_cost.py`` holds a match's CPU per decision against it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import msgspec

from arena.client.bot_client import BotClient, ClientConfig, Fault, Reply, TimeBank
from arena.client.egress import EgressPolicy, parse_bot_url
from arena.client.signing import (
    ID_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    Signer,
    generate_secret,
    new_message_id,
)
from arena.wire.protocol import ActResponse

SMALL_BODY = {
    "apiversion": "1",
    "match_id": "bench",
    "game_id": "bench-0",
    "seat": 0,
    "legal_actions": [{"action": "play", "card": "7O"}],
}
_ENDLESS = TimeBank(float("inf"))


async def bare_post_loop(
    urls: Sequence[str],
    n: int,
    *,
    body: object = SMALL_BODY,
    secret: str | None = None,
    config: ClientConfig | None = None,
) -> float:
    """Seconds taken by ``n`` sequential ``POST {url}/act`` calls of ``body``, one client per
    bot base URL in ``urls``, taking the URLs in turn (as a match alternates between bots).

    One untimed warm-up call per client opens its (reused) connection first. The default config
    allows loopback only. Raises if any call faults: a baseline with faults is no baseline.
    """
    config = config or ClientConfig(policy=EgressPolicy(allow_loopback=True))
    key = secret or generate_secret()
    clients = [BotClient(url, key, config=config) for url in urls]
    try:
        for client in clients:
            await client.pin()
            _check(await client.act(body, _ENDLESS))
        start = time.perf_counter()
        for i in range(n):
            client = clients[i % len(clients)]
            _check(await client.act(body, _ENDLESS))
        return time.perf_counter() - start
    finally:
        for client in clients:
            await client.aclose()


async def bare_stream_loop(urls: Sequence[str], n: int, *, body: object, secret: str) -> float:
    """CPU seconds of this process for ``n`` sequential ``POST {url}/act`` calls on bare
    asyncio streams, taking the bots in ``urls`` in turn (one warm-up call each first)."""
    signer = Signer(secret)
    encode = msgspec.json.Encoder().encode
    decode = msgspec.json.Decoder(ActResponse).decode
    streams = []
    for url in urls:
        bot = parse_bot_url(url)
        reader, writer = await asyncio.open_connection(bot.host, bot.port)
        line = f"POST {bot.path}/act HTTP/1.1\r\nhost: {bot.authority}\r\n".encode()
        streams.append((reader, writer, line))

    async def call(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, line: bytes) -> None:
        content = encode(body)
        msg_id, stamp = new_message_id(), int(time.time())
        signature = signer.signature(msg_id, stamp, content)
        head = (
            f"{ID_HEADER}: {msg_id}\r\n{TIMESTAMP_HEADER}: {stamp}\r\n"
            f"{SIGNATURE_HEADER}: {signature}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(content)}\r\n\r\n"
        )
        writer.write(line + head.encode() + content)
        await writer.drain()
        answer = (await reader.readuntil(b"\r\n\r\n")).lower()
        at = answer.index(b"content-length:") + 15
        decode(await reader.readexactly(int(answer[at : answer.index(b"\r\n", at)])))

    try:
        for stream in streams:
            await call(*stream)
        start = time.process_time()
        for i in range(n):
            await call(*streams[i % len(streams)])
        return time.process_time() - start
    finally:
        for _, writer, _ in streams:
            writer.close()


def _check(result: Reply | Fault) -> None:
    if isinstance(result, Fault):
        raise RuntimeError(f"bench bot faulted: {result.kind}: {result.detail}")


async def _answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    body = b'{"action": "play", "card": "7O"}'
    response = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n%s"
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            await reader.readexactly(length)
            writer.write(response % (len(body), body))
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def _standalone(n: int) -> float:
    handlers: set[asyncio.Task[None]] = set()

    async def tracked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        handlers.add(task)
        await _answer(reader, writer)

    server = await asyncio.start_server(tracked, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        seconds = await bare_post_loop([f"http://127.0.0.1:{port}"], n)
        await asyncio.wait(handlers, timeout=1.0)  # the client closed: each sees EOF and ends
    return seconds


def main(n: int = 2000) -> None:
    """Run the bare loop against a minimal in-process HTTP bot on 127.0.0.1."""
    seconds = asyncio.run(_standalone(n))
    print(f"bare POST loop: {n} calls in {seconds:.3f} s = {n / seconds:,.0f} calls/s")


if __name__ == "__main__":
    main()
