"""BotClient against real HTTP servers on 127.0.0.1, one per misbehaviour."""

from __future__ import annotations

import asyncio
import re
import socket
import time

import msgspec
import pytest

from arena.client.bot_client import (
    MAX_BODY_BYTES,
    BotClient,
    ClientConfig,
    Fault,
    Reply,
    TimeBank,
)
from arena.client.egress import EgressPolicy
from arena.client.signing import generate_secret, verify
from arena.wire.faults import CALL_FAULT_KINDS
from tests.arena.conftest import (
    ArenaTestBot,
    SeenRequest,
    close_without_answer,
    drip,
    forbidden_resolver,
    huge_body,
    respond,
)

pytestmark = pytest.mark.anyio

LOCAL = EgressPolicy(allow_loopback=True)
SECRET = generate_secret()


class Answer(msgspec.Struct):
    action: str
    card: str | None = None


def make_client(bot: ArenaTestBot, timeout_ms: float = 10_000.0, path: str = "") -> BotClient:
    """A client of ``bot``; the 10 s default is no test's subject (a loaded machine may take
    hundreds of ms for a loopback call), the tests of deadlines give their own."""
    return BotClient(
        bot.base + path,
        SECRET,
        config=ClientConfig(timeout_ms=timeout_ms, policy=LOCAL),
        resolver=forbidden_resolver,
    )


def fault(result: object, kind: str) -> Fault:
    assert isinstance(result, Fault), result
    assert result.kind == kind, result
    assert result.kind in CALL_FAULT_KINDS
    return result


async def test_normal_answer_is_signed_and_decoded(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = respond(body=b'{"action": "play", "card": "7O"}')
    body = {"apiversion": "1", "match_id": "m1", "seat": 0, "legal_actions": [{"action": "x"}]}
    async with make_client(arena_bot) as client:
        result = await client.act(body, TimeBank(10_000))
    assert isinstance(result, Reply)
    assert result.status == 200
    assert result.body == b'{"action": "play", "card": "7O"}'
    assert result.latency_ms > 0  # measured (past the deadline it would be a timeout fault)
    assert result.decode(Answer) == Answer("play", "7O")
    [seen] = arena_bot.requests
    assert (seen.method, seen.path) == ("POST", "/act")
    assert msgspec.json.decode(seen.body) == body
    assert seen.headers["content-type"] == "application/json"
    assert seen.headers["accept-encoding"] == "identity"
    assert re.fullmatch(r"TrucoArena/\S+ \(\+bot protocol v1\)", seen.headers["user-agent"])
    verify(SECRET, seen.headers, seen.body, now=time.time())  # raises if not genuine
    assert abs(int(seen.headers["webhook-timestamp"]) - time.time()) < 5


async def test_every_endpoint_is_signed_with_a_fresh_id(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/"] = respond(body=b'{"apiversion": "1", "name": "b"}')
    arena_bot.routes["/start"] = respond(status=204, body=b"")
    arena_bot.routes["/end"] = respond(status=202, body=b"ok")
    async with make_client(arena_bot) as client:
        results = [
            await client.info(),
            await client.start({"game_id": 1}),
            await client.act({"game_id": 1}, TimeBank(5000)),
            await client.end({"game_id": 1}),
        ]
    assert [r.status for r in results if isinstance(r, Reply)] == [200, 204, 200, 202]
    assert arena_bot.paths() == ["/", "/start", "/act", "/end"]
    assert arena_bot.requests[0].method == "GET" and arena_bot.requests[0].body == b""
    for seen in arena_bot.requests:
        verify(SECRET, seen.headers, seen.body, now=time.time())
    assert len({seen.headers["webhook-id"] for seen in arena_bot.requests}) == 4
    with pytest.raises(Exception, match="no signature matches"):
        verify(generate_secret(), arena_bot.requests[0].headers, b"", now=time.time())


async def test_base_path_is_kept_and_connections_are_reused(arena_bot: ArenaTestBot) -> None:
    async with make_client(arena_bot, path="/bots/mine/") as client:
        for _ in range(3):
            assert isinstance(await client.act({}, TimeBank(5000)), Reply)
    assert arena_bot.paths() == ["/bots/mine/act"] * 3
    assert arena_bot.connections == 1


async def test_act_wants_exactly_200(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = respond(status=201)
    async with make_client(arena_bot) as client:
        result = fault(await client.act({}, TimeBank(5000)), "http_status")
    assert "HTTP 201" in result.detail


async def test_slow_past_the_timeout(arena_bot: ArenaTestBot) -> None:
    """A bot answering in a minute is cut at the call's 300 ms: a timeout fault, not its answer,
    and not before the deadline (how soon after it is the machine's speed)."""
    arena_bot.routes["/act"] = respond(delay=60.0)
    async with make_client(arena_bot, timeout_ms=300) as client:
        result = fault(await client.act({}, TimeBank(10_000)), "timeout")
    assert result.latency_ms >= 290  # the event loop may run a timer up to 10 ms early
    assert "within 300 ms" in result.detail


async def test_server_error(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = respond(status=500, body=b"Internal Server Error")
    async with make_client(arena_bot) as client:
        result = fault(await client.act({}, TimeBank(5000)), "http_status")
    assert "HTTP 500" in result.detail


async def test_connection_closed_without_answer(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = close_without_answer
    async with make_client(arena_bot) as client:
        fault(await client.act({}, TimeBank(5000)), "connect")
        # the client stays usable: the next call opens a new connection
        arena_bot.routes["/act"] = respond()
        assert isinstance(await client.act({}, TimeBank(5000)), Reply)


async def test_nothing_listening() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = BotClient(
        f"http://127.0.0.1:{port}",
        SECRET,
        config=ClientConfig(timeout_ms=400, policy=LOCAL),
        resolver=forbidden_resolver,
    )
    async with client:
        result = fault(await client.info(), "connect")
    assert result.detail == "connection refused"
    assert "127.0.0.1" not in result.detail and str(port) not in result.detail


async def test_invalid_json_is_bytes_and_decode_makes_it_bad_body(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = respond(body=b'{"action": "quiero"')
    async with make_client(arena_bot) as client:
        result = await client.act({}, TimeBank(5000))
        assert isinstance(result, Reply)
        assert result.body == b'{"action": "quiero"'
        fault(result.decode(Answer), "bad_body")
        arena_bot.routes["/act"] = respond(body=b'{"action": 7}')  # valid JSON, wrong shape
        wrong = await client.act({}, TimeBank(5000))
    assert isinstance(wrong, Reply)
    bad = fault(wrong.decode(Answer), "bad_body")
    assert "action" in bad.detail
    assert bad.latency_ms == wrong.latency_ms


@pytest.mark.parametrize("declare_length", [True, False])
async def test_ten_megabytes_are_cut_at_64_kib(
    arena_bot: ArenaTestBot, declare_length: bool
) -> None:
    arena_bot.routes["/act"] = huge_body(10 * 1024 * 1024, declare_length=declare_length)
    async with make_client(arena_bot, timeout_ms=30_000) as client:
        # too_large, not timeout: cut at the size limit, not at the 30 s deadline
        result = fault(await client.act({}, TimeBank(60_000)), "too_large")
        assert "65536" in result.detail
        # the connection with the unread rest was dropped; the next call is clean
        arena_bot.routes["/act"] = respond()
        assert isinstance(await client.act({}, TimeBank(5000)), Reply)


async def test_declared_oversize_is_refused_before_reading(arena_bot: ArenaTestBot) -> None:
    """A Content-Length over the limit is a fault at once, without waiting for the body."""

    async def promise_ten_mb(request: SeenRequest, writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 10485760\r\n\r\n")
        await writer.drain()
        await asyncio.sleep(60)
        return False

    arena_bot.routes["/act"] = promise_ten_mb
    async with make_client(arena_bot, timeout_ms=1000) as client:
        # too_large, not the 1 s timeout: refused on the head, not after waiting for the body
        result = fault(await client.act({}, TimeBank(10_000)), "too_large")
    assert "declares 10485760 bytes" in result.detail


async def test_exactly_64_kib_is_accepted(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = huge_body(MAX_BODY_BYTES, declare_length=False)
    arena_bot.routes["/start"] = huge_body(MAX_BODY_BYTES + 1, declare_length=False)
    async with make_client(arena_bot) as client:
        result = await client.act({}, TimeBank(5000))
        assert isinstance(result, Reply) and len(result.body) == MAX_BODY_BYTES
        fault(await client.start({}), "too_large")


async def test_drip_is_cut_at_the_deadline(arena_bot: ArenaTestBot) -> None:
    """A byte every 0.1 s keeps the connection busy, never the call alive: cut at the call's
    450 ms (a timeout fault; the whole drip would have been an answer of 100 bytes)."""
    arena_bot.routes["/act"] = drip(total=100, interval=0.1)
    async with make_client(arena_bot, timeout_ms=450) as client:
        result = fault(await client.act({}, TimeBank(10_000)), "timeout")
    assert result.latency_ms >= 440 and "within 450 ms" in result.detail


async def test_one_byte_a_second_drip(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = drip(total=10, interval=1.0)
    async with make_client(arena_bot, timeout_ms=300) as client:
        result = fault(await client.act({}, TimeBank(10_000)), "timeout")  # not the drip's answer
    assert "within 300 ms" in result.detail


@pytest.mark.parametrize("status", [301, 302, 307, 308])
async def test_redirects_are_not_followed(arena_bot: ArenaTestBot, status: int) -> None:
    where = f"{arena_bot.base}/elsewhere"
    arena_bot.routes["/act"] = respond(status=status, body=b"", headers={"location": where})
    async with make_client(arena_bot) as client:
        result = fault(await client.act({}, TimeBank(5000)), "http_status")
    assert f"HTTP {status} redirect" in result.detail
    assert "elsewhere" not in result.detail and result.status == status  # no URL shown
    assert arena_bot.paths() == ["/act"]


async def test_time_bank_cuts_the_call_and_runs_out(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = respond(delay=2.0)
    bank = TimeBank(250)
    async with make_client(arena_bot, timeout_ms=2000) as client:
        assert client.call_limit_ms(bank) == 250
        result = fault(await client.act({}, bank), "timeout")
        assert result.latency_ms >= 240 and "within 250 ms" in result.detail  # the bank's, not 2 s
        bank = bank.debit(result.latency_ms)
        assert bank.exhausted and client.call_limit_ms(bank) == 0
        again = fault(await client.act({}, bank), "timeout")
    assert again.latency_ms == 0 and "bank exhausted" in again.detail
    assert arena_bot.paths() == ["/act"]  # no request is sent once the bank is empty


async def test_slow_within_the_timeout_until_the_bank_runs_out(arena_bot: ArenaTestBot) -> None:
    """300 ms answers within a 1 s timeout and a 1.5 s bank: answered while the bank lasts,
    then cut at what is left of it, then refused without a request once it is spent. Which
    call is the first cut depends on the machine's speed, so the shape is checked, not the
    count (on a loaded machine an answer takes longer and spends more of the bank)."""
    arena_bot.routes["/act"] = respond(delay=0.3)
    bank = TimeBank(1500)
    kinds = []
    sent = 0
    async with make_client(arena_bot, timeout_ms=1000) as client:
        while not bank.exhausted and len(kinds) < 20:
            sent += 1
            result = await client.act({}, bank)
            kinds.append("ok" if isinstance(result, Reply) else result.kind)
            bank = bank.debit(result.latency_ms)
        refused = await client.act({}, bank)
    assert bank.exhausted and kinds[0] == "ok" and "timeout" in kinds
    first_cut = kinds.index("timeout")
    assert set(kinds[first_cut:]) == {"timeout"}  # once cut, never answered again
    assert not isinstance(refused, Reply) and refused.kind == "timeout"
    assert len(arena_bot.requests) == sent  # the call on a spent bank sent nothing


def test_time_bank_is_a_value() -> None:
    bank = TimeBank(1000)
    assert bank.limit_ms(300) == 300 and bank.limit_ms(5000) == 1000
    assert bank.debit(400) == TimeBank(600)
    assert bank == TimeBank(1000)  # unchanged
    assert bank.debit(5000) == TimeBank(0) and TimeBank(0).exhausted


async def test_no_cookie_is_kept(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/start"] = respond(
        headers={"set-cookie": "session=abc; Path=/"}, status=200, body=b"{}"
    )
    async with make_client(arena_bot) as client:
        await client.start({})
        await client.act({}, TimeBank(5000))
    assert arena_bot.paths() == ["/start", "/act"]
    assert "cookie" not in arena_bot.requests[1].headers


async def test_compressed_answers_are_bad_body(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/act"] = respond(headers={"content-encoding": "gzip"})
    async with make_client(arena_bot) as client:
        result = fault(await client.act({}, TimeBank(5000)), "bad_body")
    assert "gzip" in result.detail


async def test_proxy_settings_in_the_environment_are_ignored(
    arena_bot: ArenaTestBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    proxy = ArenaTestBot()
    await proxy.start()
    try:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
            monkeypatch.setenv(name, proxy.base)
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        async with make_client(arena_bot) as client:
            assert isinstance(await client.act({}, TimeBank(5000)), Reply)
    finally:
        await proxy.stop()
    assert proxy.requests == []
    assert arena_bot.paths() == ["/act"]


async def test_ipv6_loopback_bot() -> None:
    bot = ArenaTestBot(host="::1")
    try:
        await bot.start()
    except OSError:
        pytest.skip("no IPv6 loopback here")
    try:
        async with make_client(bot) as client:
            result = await client.info()
    finally:
        await bot.stop()
    assert isinstance(result, Reply)
    assert bot.requests[0].headers["host"].startswith("[::1]")


async def test_concurrent_clients_do_not_slow_each_other(arena_bot: ArenaTestBot) -> None:
    """A bot stuck in a drip costs only its own deadline."""
    arena_bot.routes["/slow/act"] = drip(total=100, interval=1.0)
    # the slow call's deadline, 2 s, leaves the five fast calls room on a loaded machine
    slow_client = make_client(arena_bot, timeout_ms=2000, path="/slow")
    async with slow_client as slow, make_client(arena_bot) as fast:
        slow_task = asyncio.create_task(slow.act({}, TimeBank(10_000)))
        await asyncio.sleep(0)  # the slow call is on its way
        fast_results = [await fast.act({}, TimeBank(5000)) for _ in range(5)]
        # all five answered while the slow call still waits for its drip (not a wall-clock
        # bound on the five: what shows they were not held up is that they came first)
        assert not slow_task.done()
        fault(await slow_task, "timeout")
    assert all(isinstance(r, Reply) for r in fast_results)


async def test_a_401_is_a_fault_with_its_status(arena_bot: ArenaTestBot) -> None:
    arena_bot.routes["/start"] = respond(status=401, body=b'{"error": "bad signature"}')
    async with make_client(arena_bot) as client:
        result = fault(await client.start({}), "http_status")
    assert result.status == 401
    assert result.detail.startswith("HTTP 401, expected 2xx: the bot rejected the signature")


async def test_a_walkover_cause_never_carries_a_long_text_of_the_bot(
    arena_bot: ArenaTestBot,
) -> None:
    from arena.client.connection import HttpBot

    version = "<b>" + "9" * 5000
    arena_bot.routes["/"] = respond(body=b'{"apiversion": "%s", "name": "x"}' % version.encode())
    bot = HttpBot("x", make_client(arena_bot))
    try:
        result = await bot.open()
    finally:
        await bot.close()
    assert result is not None and result.kind == "bad_body"
    assert result.detail == "apiversion '<b>99999999999999999'..., expected '1'"
