"""A real HTTP bot server on 127.0.0.1 that misbehaves on ``/act`` in one chosen way.

Each :class:`BadBot` serves one ``mode`` (see :data:`MODES`). It always answers ``GET /`` with a
valid info document and ``POST /start`` / ``POST /end`` with 200, so a match starts and the
misbehaviour shows up on the first ``/act`` call. It is a raw asyncio socket server running its
own event loop in a background thread (like a bot on another machine): it can sleep, drip a
byte at a time, stream megabytes and hang up without a word, which a framework would not let it.

Usage::

    with BadBot("drip") as bot:
        connect(bot.url, ...)
    bot.stats.act_calls, bot.stats.sent_bytes, ...
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, Self

from engine.cards import DECK

Mode = Literal[
    "good",
    "slow",
    "bank",
    "error500",
    "close",
    "invalid_json",
    "wrong_shape",
    "illegal",
    "not_held",
    "huge",
    "huge_declared",
    "drip",
    "redirect",
    "no_act",
]

MODES: tuple[Mode, ...] = (
    "slow",  # sleeps past the per-call timeout on every /act
    "bank",  # answers legally, each time just under the timeout, until the time bank runs out
    "error500",  # 500 on /act
    "close",  # reads /act, then closes the connection without a byte
    "invalid_json",  # 200 with a body that is not JSON
    "wrong_shape",  # 200 with valid JSON that is not an ActResponse
    "illegal",  # 200 with an action word that is not in legal_actions
    "not_held",  # 200 playing a card the seat does not hold
    "huge",  # 200, chunked, 10 MB streamed as fast as the socket takes it
    "huge_declared",  # 200 with Content-Length: 10 MB, then streamed
    "drip",  # 200 with a valid answer's headers, then its body one byte a second
    "redirect",  # 302 to another URL (on the same server, so a follow would be seen)
    "no_act",  # answers / and /start, but 404 on /act
)

TEN_MB = 10 * 1024 * 1024
_WORDS = (
    "truco",
    "retruco",
    "vale_cuatro",
    "quiero",
    "no_quiero",
    "envido",
    "real_envido",
    "falta_envido",
    "mazo",
)


@dataclass
class Stats:
    """What the server saw and did (written by the server thread, read after the match)."""

    requests: list[tuple[str, str]] = field(default_factory=list)  # (method, path)
    connections: int = 0
    act_calls: int = 0
    sent_bytes: list[int] = field(default_factory=list)  # body bytes written per huge/drip call
    write_errors: int = 0

    def paths(self) -> list[str]:
        return [path for _, path in self.requests]


class _Request:
    def __init__(self, method: str, path: str, headers: dict[str, str], body: bytes) -> None:
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)


def _head(status: int, reason: str, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} {reason}", *(f"{k}: {v}" for k, v in headers.items())]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def _response(status: int, body: bytes, reason: str = "X", **extra: str) -> bytes:
    headers = {"content-type": "application/json", "content-length": str(len(body))}
    headers.update({k.replace("_", "-"): v for k, v in extra.items()})
    return _head(status, reason, headers) + body


def legal_answer(request: Any) -> dict[str, Any]:
    """The first legal action of an ActRequest body: a correct answer."""
    first = request["legal_actions"][0]
    return {k: v for k, v in first.items() if v is not None}


def illegal_answer(request: Any) -> dict[str, Any]:
    """A real action word that is not among the legal actions now."""
    legal = {a["action"] for a in request["legal_actions"]}
    return {"action": next(w for w in _WORDS if w not in legal)}


def not_held_answer(request: Any) -> dict[str, Any]:
    """Play a card the seat does not hold (and that is not on the table either)."""
    obs = request["observation"]
    played = {card for rnd in obs["rounds"] for _, card in rnd}
    held = set(obs["cards"])
    card = next(c for c in DECK if c not in held and c not in played)
    return {"action": "play", "card": card}


class BadBot:
    """An HTTP/1.1 bot on 127.0.0.1 (ephemeral port) misbehaving on ``/act`` as ``mode`` says.

    ``timeout_ms`` is the arena's per-call timeout the bot is playing against: ``slow`` sleeps
    ``slow_factor`` times it, ``bank`` sleeps ``bank_fraction`` of it before a legal answer,
    ``drip`` sends a byte every ``drip_interval_s`` (three deadlines unless given).
    ``huge`` sends ``huge_bytes`` in 64 KiB pieces, at ``huge_rate`` bytes a second if given.
    ``stats`` records what the server saw (requests, connections) and did (bytes written).
    """

    def __init__(
        self,
        mode: Mode,
        *,
        timeout_ms: int = 300,
        slow_factor: float = 5.0,
        bank_fraction: float = 0.5,
        huge_bytes: int = TEN_MB,
        huge_rate: float | None = None,
        drip_interval_s: float | None = None,
        name: str | None = None,
    ) -> None:
        if mode not in (*MODES, "good"):
            raise ValueError(f"unknown mode {mode!r}")
        self.mode = mode
        self.name = name or f"bad-{mode}"
        self.timeout_s = timeout_ms / 1000.0
        self.slow_s = self.timeout_s * slow_factor
        self.bank_sleep_s = self.timeout_s * bank_fraction
        self.huge_bytes = huge_bytes
        self.huge_rate = huge_rate  # bytes a second; None: as fast as the socket takes them
        # a byte, then silence past the deadline: a second byte never races the cut
        self.drip_interval_s = 3 * self.timeout_s if drip_interval_s is None else drip_interval_s
        self.stats = Stats()
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    # --- lifecycle (called from the test's thread) ---------------------------------------------

    def start(self) -> int:
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(
            target=loop.run_forever, name=f"badbot-{self.mode}", daemon=True
        )
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._open(), loop).result(timeout=5)
        return self.port

    def stop(self) -> None:
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        asyncio.run_coroutine_threadsafe(self._close(), loop).result(timeout=10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=5)
        loop.close()
        self._loop = self._thread = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # --- the server (runs in the bot's own loop) -----------------------------------------------

    async def _open(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def _close(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.stats.connections += 1
        try:
            while True:
                request = await _read_request(reader)
                self.stats.requests.append((request.method, request.path))
                if not await self._answer(request, reader, writer):
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        except asyncio.CancelledError:  # stop(): end quietly (the loop is about to stop)
            pass
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _answer(
        self, request: _Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        """Write the answer; False closes the connection afterwards."""
        if request.method == "GET" and request.path == "/":
            info = {"apiversion": "1", "name": self.name, "author": "tests", "version": "1"}
            writer.write(_response(200, json.dumps(info).encode(), "OK"))
        elif request.method == "POST" and request.path in ("/start", "/end"):
            writer.write(_response(200, b'{"ok":true}', "OK"))
        elif request.method == "POST" and request.path == "/act":
            self.stats.act_calls += 1
            return await self._act(request, reader, writer)
        else:
            writer.write(_response(404, b'{"error":"no such endpoint"}', "Not Found"))
        await writer.drain()
        return True

    async def _act(
        self, request: _Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        mode = self.mode
        body: dict[str, Any] | bytes
        if mode == "close":
            return False
        if mode == "slow":
            await asyncio.sleep(self.slow_s)
            body = legal_answer(request.json())
        elif mode == "bank":
            await asyncio.sleep(self.bank_sleep_s)
            body = legal_answer(request.json())
        elif mode == "error500":
            writer.write(_response(500, b'{"error":"internal error"}', "Internal Server Error"))
            await writer.drain()
            return True
        elif mode == "invalid_json":
            body = b'{"action": "play", "card": '
        elif mode == "wrong_shape":
            body = b'{"move": "play", "card": 7, "why": ["valid", "json"]}'
        elif mode == "illegal":
            body = illegal_answer(request.json())
        elif mode == "not_held":
            body = not_held_answer(request.json())
        elif mode in ("huge", "huge_declared"):
            return await self._huge(writer, declared=mode == "huge_declared")
        elif mode == "drip":
            return await self._drip(request, reader, writer)
        elif mode == "redirect":
            writer.write(_response(302, b"", "Found", location=f"{self.url}/elsewhere"))
            await writer.drain()
            return True
        elif mode == "no_act":
            writer.write(_response(404, b'{"error":"no endpoint /act"}', "Not Found"))
            await writer.drain()
            return True
        else:  # "good"
            body = legal_answer(request.json())
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        writer.write(_response(200, raw, "OK"))
        await writer.drain()
        return True

    async def _huge(self, writer: asyncio.StreamWriter, *, declared: bool) -> bool:
        head = {"content-type": "application/json"}
        if declared:
            head["content-length"] = str(self.huge_bytes)
        else:
            head["transfer-encoding"] = "chunked"
        writer.write(_head(200, "OK", head))
        piece = b'{"action": "mazo", "say": "' + b"x" * (64 * 1024 - 27)
        sent = 0
        try:
            while sent < self.huge_bytes:
                chunk = piece[: self.huge_bytes - sent]
                writer.write(chunk if declared else b"%x\r\n%s\r\n" % (len(chunk), chunk))
                await writer.drain()
                sent += len(chunk)
                if writer.transport.is_closing():
                    break
                if self.huge_rate:
                    await asyncio.sleep(len(chunk) / self.huge_rate)
            if not declared:
                writer.write(b"0\r\n\r\n")
                await writer.drain()
        except ConnectionError:
            self.stats.write_errors += 1
        self.stats.sent_bytes.append(sent)
        return False

    async def _drip(
        self, request: _Request, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> bool:
        raw = json.dumps(legal_answer(request.json())).encode()
        head = {"content-type": "application/json", "content-length": str(len(raw))}
        writer.write(_head(200, "OK", head))
        sent = 0
        try:
            await writer.drain()
            for byte in raw:
                writer.write(bytes([byte]))
                await writer.drain()
                sent += 1
                try:  # wait one interval, or less if the caller hangs up (EOF)
                    if await asyncio.wait_for(reader.read(1), self.drip_interval_s) == b"":
                        break
                except TimeoutError:
                    pass
        except ConnectionError:
            self.stats.write_errors += 1
        self.stats.sent_bytes.append(sent)
        return False


async def _read_request(reader: asyncio.StreamReader) -> _Request:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0") or "0")
    body = await reader.readexactly(length) if length else b""
    return _Request(method, path, headers, body)
