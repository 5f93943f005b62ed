"""The bot client's own HTTP/1.1 (arena/client/http1.py, arena/client/streams.py, arena/client/deadline.py) against
real servers on 127.0.0.1 that answer in the odd ways HTTP allows, or does not."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable

import pytest

from arena.client.bot_client import BotClient, ClientConfig, Fault, Reply, TimeBank
from arena.client.deadline import Deadline
from arena.client.egress import EgressPolicy
from arena.client.http1 import MAX_HEAD_BYTES
from arena.client.signing import generate_secret
from tests.arena.conftest import (
    ArenaTestBot,
    Handler,
    SeenRequest,
    drip,
    forbidden_resolver,
    respond,
)

pytestmark = pytest.mark.anyio

LOCAL = EgressPolicy(allow_loopback=True)
OK = b'{"action": "quiero"}'
BANK = TimeBank(60_000)


def client_for(bot: ArenaTestBot, timeout_ms: float = 400.0) -> BotClient:
    return BotClient(
        bot.base,
        generate_secret(),
        config=ClientConfig(timeout_ms=timeout_ms, policy=LOCAL),
        resolver=forbidden_resolver,
    )


def raw(data: bytes, keep: bool = True) -> Handler:
    """Answer with exactly these bytes; ``keep`` False closes the connection afterwards."""

    async def handler(request: SeenRequest, writer: asyncio.StreamWriter) -> bool:
        writer.write(data)
        await writer.drain()
        return keep

    return handler


def answer(body: bytes = OK, extra: str = "") -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n%s\r\n%s" % (len(body), extra.encode(), body)


async def test_an_interim_100_answer_is_skipped(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = raw(b"HTTP/1.1 100 Continue\r\n\r\n" + answer())
    async with client_for(arena_bot) as client:
        result = await client.act({}, TimeBank(5000))
    assert isinstance(result, Reply) and result.status == 200 and result.body == OK


async def test_a_body_without_length_ends_where_the_bot_closes(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = raw(
        b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n\r\n" + OK, keep=False
    )
    async with client_for(arena_bot) as client:
        first = await client.act({}, TimeBank(5000))
        second = await client.act({}, TimeBank(5000))
    assert isinstance(first, Reply) and first.body == OK
    assert isinstance(second, Reply) and second.body == OK
    assert arena_bot.connections == 2  # such an answer cannot leave the connection usable


async def test_a_chunked_answer_is_joined_and_the_connection_kept(arena_bot: ArenaTestBot) -> None:
    chunked = b'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\n{"act\r\n'
    chunked += b'f\r\nion": "quiero"}\r\n0\r\n\r\n'
    arena_bot.routes["/act"] = raw(chunked)
    async with client_for(arena_bot) as client:
        results = [await client.act({}, TimeBank(5000)) for _ in range(3)]
    assert all(isinstance(r, Reply) and r.body == OK for r in results)
    assert arena_bot.connections == 1


@pytest.mark.parametrize(
    "after",
    [b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}", b"HTTP/1.1 2", b"garbage\r\n\r\n"],
    ids=["a second answer", "half a status line", "garbage"],
)
async def test_bytes_after_the_answer_keep_the_answer_but_drop_the_connection(
    arena_bot: ArenaTestBot, after: bytes
) -> None:
    arena_bot.routes["/act"] = raw(answer() + after)
    async with client_for(arena_bot) as client:
        first = await client.act({}, TimeBank(5000))
        arena_bot.routes["/act"] = raw(answer(b'{"action": "mazo"}'))
        second = await client.act({}, TimeBank(5000))
    assert isinstance(first, Reply) and first.body == OK
    assert isinstance(second, Reply) and second.body == b'{"action": "mazo"}'
    assert arena_bot.connections == 2


async def test_connection_close_is_honoured(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = raw(answer(extra="connection: close\r\n"))
    async with client_for(arena_bot) as client:
        for _ in range(2):
            assert isinstance(await client.act({}, TimeBank(5000)), Reply)
    assert arena_bot.connections == 2


async def test_endless_headers_are_cut_at_the_head_limit(arena_bot: ArenaTestBot) -> None:
    async def endless(request: SeenRequest, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\n")
        line = b"x-filler: " + b"a" * 1000 + b"\r\n"
        for _ in range(10_000):  # 10 MB of headers if nobody stops reading
            writer.write(line)
            await writer.drain()
        return False

    arena_bot.routes["/act"] = endless
    async with client_for(arena_bot, timeout_ms=30_000) as client:
        result = await client.act({}, TimeBank(60_000))
    # too_large, not timeout: cut at the head limit, not at the 30 s deadline
    assert isinstance(result, Fault) and result.kind == "too_large"
    assert str(MAX_HEAD_BYTES) in result.detail


async def test_a_malformed_status_line_is_a_connect_fault(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = raw(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
    async with client_for(arena_bot) as client:
        result = await client.act({}, TimeBank(5000))
    assert isinstance(result, Fault) and result.kind == "connect"
    assert result.detail.startswith("RemoteProtocolError: malformed answer")


async def test_a_connection_the_bot_closed_while_idle_is_not_reused(
    arena_bot: ArenaTestBot,
) -> None:
    arena_bot.routes["/act"] = raw(answer(), keep=False)  # says keep-alive, then hangs up
    async with client_for(arena_bot) as client:
        results = [await client.act({}, TimeBank(5000)) for _ in range(5)]
    assert all(isinstance(r, Reply) for r in results), results
    assert arena_bot.connections == 5


async def test_a_slow_call_after_many_fast_ones_is_cut_at_its_own_deadline(
    arena_bot: ArenaTestBot,
) -> None:
    """The deadline timer armed by the first call is re-armed, not trusted, by later ones."""
    async with client_for(arena_bot, timeout_ms=300) as client:
        began = time.perf_counter()
        while time.perf_counter() - began < 0.2:  # fast calls for 200 ms of a 300 ms timer
            fast = await client.act({}, TimeBank(10_000))
            # a loaded machine may hold a fast call past its deadline: then it is cut at its own
            assert isinstance(fast, Reply) or (fast.kind == "timeout" and fast.latency_ms >= 295)
        arena_bot.routes["/act"] = drip(total=100, interval=0.1)
        result = await client.act({}, TimeBank(10_000))
    # a timeout (the whole drip would have been an answer), of this call's own 300 ms: not at
    # the first call's due time (100 ms into this one); how late after it is the machine's speed
    assert isinstance(result, Fault) and result.kind == "timeout"
    assert result.latency_ms >= 295 and "within 300 ms" in result.detail, result


async def test_a_low_time_bank_brings_the_timer_forward(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = drip(total=100, interval=0.1)
    async with client_for(arena_bot, timeout_ms=2000) as client:
        arena_bot.routes["/"] = raw(answer())
        assert isinstance(await client.info(), Reply)  # arms the timer 2 s ahead
        result = await client.act({}, TimeBank(150))
    assert isinstance(result, Fault) and result.kind == "timeout"
    assert result.latency_ms >= 145 and "within 150 ms" in result.detail, result  # not 2 s


async def test_concurrent_calls_on_one_client_each_keep_their_deadline(
    arena_bot: ArenaTestBot,
) -> None:
    arena_bot.routes["/act"] = drip(total=100, interval=0.1)
    arena_bot.routes["/"] = raw(answer())
    async with client_for(arena_bot, timeout_ms=300) as client:
        slow = asyncio.create_task(client.act({}, TimeBank(10_000)))
        await asyncio.sleep(0.05)
        fast = await client.info()
        cut = await slow
    assert isinstance(fast, Reply)
    assert isinstance(cut, Fault) and cut.kind == "timeout"  # the drip would have answered
    assert cut.latency_ms >= 295 and "within 300 ms" in cut.detail  # its own deadline


async def test_cancelling_a_call_from_outside_is_not_a_timeout(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = drip(total=100, interval=0.1)
    async with client_for(arena_bot, timeout_ms=2000) as client:
        task = asyncio.create_task(client.act({}, TimeBank(10_000)))
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        arena_bot.routes["/act"] = raw(answer())
        assert isinstance(await client.act({}, TimeBank(10_000)), Reply)  # still usable


async def test_one_timer_serves_a_run_of_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    loop = asyncio.get_running_loop()
    armed: list[float] = []
    real_call_at = loop.call_at

    def counting_call_at(when: float, callback: object, *args: object) -> asyncio.TimerHandle:
        armed.append(when)
        return real_call_at(when, callback, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(loop, "call_at", counting_call_at)
    deadline = Deadline()
    for _ in range(100):
        deadline.begin(5.0)
        await asyncio.sleep(0)
        deadline.end()
    deadline.close()
    assert len(armed) == 1


def echo(request: SeenRequest, writer: asyncio.StreamWriter) -> Awaitable[bool]:
    """Answer with the request's own body (the client's bytes must come back unmixed)."""
    return respond(body=request.body)(request, writer)


async def test_an_answer_larger_than_the_receive_buffer_arrives_whole(
    arena_bot: ArenaTestBot,
) -> None:
    body = random.Random(7).randbytes(300_000)  # several receives into the 64 KiB buffer
    arena_bot.routes["/act"] = respond(body=body)
    client = BotClient(
        arena_bot.base,
        generate_secret(),
        config=ClientConfig(timeout_ms=5000.0, policy=LOCAL, max_body=len(body)),
        resolver=forbidden_resolver,
    )
    async with client:
        result = await client.act({}, TimeBank(5000))
    assert isinstance(result, Reply) and result.body == body


async def test_connections_sharing_the_receive_buffer_keep_their_own_bytes(
    arena_bot: ArenaTestBot,
) -> None:
    arena_bot.routes["/act"] = echo
    clients = [client_for(arena_bot, timeout_ms=5000.0) for _ in range(4)]

    async def calls(index: int, client: BotClient) -> list[bytes]:
        bodies = []
        for n in range(20):
            result = await client.act({"client": index, "call": n, "pad": "x" * 3000 * index}, BANK)
            assert isinstance(result, Reply), result
            bodies.append(result.body)
        return bodies

    try:
        answers = await asyncio.gather(*(calls(i, c) for i, c in enumerate(clients)))
    finally:
        for client in clients:
            await client.aclose()
    for index, bodies in enumerate(answers):
        expected = [
            b'{"client":%d,"call":%d,"pad":"%s"}' % (index, n, b"x" * 3000 * index)
            for n in range(20)
        ]
        assert bodies == expected
