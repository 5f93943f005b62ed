"""Sockets for the bot client, straight on asyncio (no anyio layer in between).

:class:`AsyncioBackend` implements httpcore's small network-backend interface
(``connect_tcp`` returning a stream with ``read``/``write``/``start_tls``/``aclose``), so
anything written for that interface (the pinning in :mod:`arena.client.pinning`, the doubles in the
tests) stacks on it unchanged. Underneath is one :class:`asyncio.BufferedProtocol` per
connection: the transport receives into one kept buffer per thread, the bytes that came are
copied out and wait in a list until read, a read with nothing buffered awaits one future.
That is the whole cost of a read; anyio's task groups, memory streams and cancel scopes are
not on the path.

Errors are httpcore's: ``ConnectError`` / ``ReadError`` / ``WriteError`` and the matching
timeouts (only when a ``timeout`` is passed; the bot client passes none and bounds the whole
call with one deadline instead).
"""

from __future__ import annotations

import asyncio
import select
import socket
import ssl
import threading
from collections.abc import Iterable
from typing import Any

import httpcore

SocketOption = (
    tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
)


_RECV_BYTES = 64 * 1024
_scratch = threading.local()


def _recv_buffer() -> memoryview:
    """This thread's receive buffer. The transport fills it (``recv_into``) and hands it back
    at once (``buffer_updated``) within one callback of the thread's loop, so every connection
    of the thread can share it."""
    try:
        view: memoryview = _scratch.view
    except AttributeError:
        view = _scratch.view = memoryview(bytearray(_RECV_BYTES))
    return view


class _Buffered(asyncio.BufferedProtocol):
    """Collects what the peer sends; wakes the one reader waiting for it.

    A buffered protocol: the transport receives into a buffer that is kept, and only the bytes
    that came are copied out. (With a plain protocol, asyncio allocates 256 KiB for every
    receive, which the C library maps, shrinks and unmaps again: system calls and page faults
    on every answer.)
    """

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.eof = False
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.drained: asyncio.Future[None] | None = None
        self.paused = False

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def get_buffer(self, sizehint: int) -> memoryview:
        return _recv_buffer()

    def buffer_updated(self, nbytes: int) -> None:
        self.chunks.append(_recv_buffer()[:nbytes].tobytes())
        self._wake()

    def eof_received(self) -> bool:
        self.eof = True
        self._wake()
        return False  # close the transport: we never write after the peer's end

    def connection_lost(self, exc: Exception | None) -> None:
        self.eof = True
        self.error = exc
        self._wake()
        self.resume_writing()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        drained = self.drained
        if drained is not None:
            self.drained = None
            if not drained.done():
                drained.set_result(None)


class AsyncioStream(httpcore.AsyncNetworkStream):
    """One TCP (or TLS) connection: ``read`` returns what has arrived, b"" at the end."""

    def __init__(self, transport: asyncio.Transport, protocol: _Buffered) -> None:
        self._transport = transport
        self._protocol = protocol
        self._poll: select.poll | None = None  # made on first use, the socket's fd registered

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        protocol = self._protocol
        if not protocol.chunks and not protocol.eof:
            protocol.waiter = asyncio.get_running_loop().create_future()
            if timeout is None:
                await protocol.waiter
            else:
                try:
                    async with asyncio.timeout(timeout):
                        await protocol.waiter
                except TimeoutError:
                    raise httpcore.ReadTimeout(f"no data within {timeout} s") from None
        if protocol.chunks:
            return self._take(max_bytes)
        if protocol.error is not None:
            raise httpcore.ReadError(str(protocol.error) or type(protocol.error).__name__)
        return b""

    def _take(self, max_bytes: int) -> bytes:
        chunks = self._protocol.chunks
        data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        if len(data) <= max_bytes:
            chunks.clear()
            return data
        chunks[:] = [data[max_bytes:]]
        return data[:max_bytes]

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if self._transport.is_closing():
            raise httpcore.WriteError("the connection is closed")
        self._transport.write(buffer)
        protocol = self._protocol
        if protocol.paused:  # a peer that does not read: wait for the kernel buffer to drain
            protocol.drained = asyncio.get_running_loop().create_future()
            try:
                async with asyncio.timeout(timeout):
                    await protocol.drained
            except TimeoutError:
                raise httpcore.WriteTimeout(f"could not send within {timeout} s") from None
            if protocol.error is not None:
                raise httpcore.WriteError(str(protocol.error) or "the connection was lost")

    async def aclose(self) -> None:
        self._transport.abort()  # unread data is dropped with the connection, at once

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport = await loop.start_tls(
                    self._transport,
                    self._protocol,
                    ssl_context,
                    server_hostname=server_hostname,
                    ssl_handshake_timeout=timeout,
                )
        except TimeoutError:
            self._transport.abort()
            raise httpcore.ConnectTimeout(f"TLS handshake not done within {timeout} s") from None
        except (OSError, ssl.SSLError, ConnectionError) as exc:
            self._transport.abort()  # the SSL error stays the cause: faults name its reason
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        if transport is None:
            raise httpcore.ConnectError("the TLS handshake did not complete")
        return AsyncioStream(transport, self._protocol)

    def readable(self) -> bool:
        """Something has arrived (bytes, the peer's FIN, an error) that nobody has read,
        whether or not the loop has handed it over yet."""
        protocol = self._protocol
        if protocol.chunks or protocol.eof:
            return True
        if self._poll is None:
            sock = self._transport.get_extra_info("socket")
            fd = -1 if sock is None else sock.fileno()
            if fd < 0:
                return True  # no socket any more: as good as closed
            self._poll = select.poll()
            self._poll.register(fd, select.POLLIN)
        return bool(self._poll.poll(0))

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # an idle connection with news is closed or out of step
            return self.readable()
        if info == "ssl_object":
            return self._transport.get_extra_info("ssl_object")
        if info in ("client_addr", "server_addr"):
            name = "sockname" if info == "client_addr" else "peername"
            return self._transport.get_extra_info(name)
        return None


class TcpOnlyBackend(httpcore.AsyncNetworkBackend):
    """A network backend for bots: they are reached over TCP only, never a unix socket."""

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("refused: bots are reached over TCP only")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class AsyncioBackend(TcpOnlyBackend):
    """Opens TCP connections with the running loop's ``create_connection`` (TCP_NODELAY on)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = None if local_address is None else (local_address, 0)
        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await loop.create_connection(
                    _Buffered, host, port, local_addr=local
                )
        except TimeoutError:
            raise httpcore.ConnectTimeout(f"no connection within {timeout} s") from None
        except OSError as exc:  # the OSError stays the cause: faults name its errno in words
            raise httpcore.ConnectError(str(exc) or type(exc).__name__) from exc
        sock = transport.get_extra_info("socket")
        if sock is not None:
            for option in socket_options or ():
                sock.setsockopt(*option)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return AsyncioStream(transport, protocol)
