"""Fixtures for the arena's network edge: a scriptable HTTP bot on 127.0.0.1, and network
doubles that fail the test if anything tries to reach the network through them."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import NoReturn

import httpcore
import pytest

from tests.loopback import LoopbackBackend


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# --- doubles that must never be reached -------------------------------------------------------


class ForbiddenBackend(LoopbackBackend):
    """A network backend that fails the test if a connection is ever attempted."""

    allowed = ()

    def refuse(self, what: str) -> NoReturn:
        pytest.fail(f"{what} was attempted")


class RecordingBackend(ForbiddenBackend):
    """Records where a connection would go, then fails it like a refused port (no packet)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[object] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.calls.append((host, port))
        raise httpcore.ConnectError(f"recording backend: not connecting to {host}:{port}")


async def forbidden_resolver(host: str, port: int) -> list[str]:
    pytest.fail(f"a DNS lookup of {host}:{port} was attempted")


@pytest.fixture
def arena_forbidden_backend() -> ForbiddenBackend:
    return ForbiddenBackend()


@pytest.fixture
def arena_recording_backend() -> RecordingBackend:
    return RecordingBackend()


# --- a scriptable HTTP/1.1 bot on 127.0.0.1 ---------------------------------------------------


@dataclass
class SeenRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


Handler = Callable[[SeenRequest, asyncio.StreamWriter], Awaitable[bool]]
"""Writes the answer; returns False to close the connection afterwards."""


def respond(
    status: int = 200,
    body: bytes = b'{"action": "quiero"}',
    headers: dict[str, str] | None = None,
    delay: float = 0.0,
) -> Handler:
    async def handler(request: SeenRequest, writer: asyncio.StreamWriter) -> bool:
        if delay:
            await asyncio.sleep(delay)
        head = {"content-type": "application/json", "content-length": str(len(body))}
        head.update(headers or {})
        writer.write(_head(status, head) + body)
        await writer.drain()
        return True

    return handler


def _head(status: int, headers: dict[str, str]) -> bytes:
    lines = [f"HTTP/1.1 {status} X"] + [f"{k}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def close_without_answer(request: SeenRequest, writer: asyncio.StreamWriter) -> bool:
    return False


def huge_body(total: int, *, declare_length: bool) -> Handler:
    async def handler(request: SeenRequest, writer: asyncio.StreamWriter) -> bool:
        head = {"content-type": "application/json"}
        if declare_length:
            head["content-length"] = str(total)
        else:
            head["transfer-encoding"] = "chunked"
        writer.write(_head(200, head))
        chunk = b"[" + b"0," * 32767 + b"0"  # 64 KiB of JSON-ish bytes
        sent = 0
        while sent < total:
            piece = chunk[: total - sent]
            writer.write(piece if declare_length else b"%x\r\n%s\r\n" % (len(piece), piece))
            await writer.drain()
            sent += len(piece)
        if not declare_length:
            writer.write(b"0\r\n\r\n")
        await writer.drain()
        return False

    return handler


def drip(total: int = 100, interval: float = 1.0) -> Handler:
    async def handler(request: SeenRequest, writer: asyncio.StreamWriter) -> bool:
        writer.write(_head(200, {"content-length": str(total)}))
        await writer.drain()
        for _ in range(total):
            writer.write(b" ")
            await writer.drain()
            await asyncio.sleep(interval)
        return False

    return handler


@dataclass
class ArenaTestBot:
    """An HTTP/1.1 server on 127.0.0.1 answering each path with a chosen handler."""

    host: str = "127.0.0.1"
    routes: dict[str, Handler] = field(default_factory=dict)
    requests: list[SeenRequest] = field(default_factory=list)
    connections: int = 0
    port: int = 0
    _tasks: set[asyncio.Task[None]] = field(default_factory=set)
    _server: asyncio.Server | None = None

    @property
    def base(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, self.host, 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self._server is not None:
            await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.connections += 1
        try:
            while True:
                request = await _read_request(reader)
                self.requests.append(request)
                handler = self.routes.get(request.path, respond())
                if not await handler(request, writer):
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


async def _read_request(reader: asyncio.StreamReader) -> SeenRequest:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", "0"))
    body = await reader.readexactly(length) if length else b""
    return SeenRequest(method, path, headers, body)


@pytest.fixture
async def arena_bot(anyio_backend: str) -> AsyncIterator[ArenaTestBot]:
    bot = ArenaTestBot()
    await bot.start()
    try:
        yield bot
    finally:
        await bot.stop()
