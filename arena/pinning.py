"""Connect only to the address the egress guard checked (no second DNS lookup).

httpx resolves nothing itself: httpcore hands the URL's host to its network backend's
``connect_tcp``. :class:`PinnedBackend` sits there and swaps the host for the pinned IP, so the
socket goes to the judged address while TLS (SNI, certificate check) and the ``Host`` header
still use the name from the URL. Any other host, and any Unix socket, is refused: this is the
single choke point every connection of a :class:`PinnedTransport` goes through.
"""

from __future__ import annotations

import functools
import ssl
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import contextmanager

import httpcore
import httpx

from arena.egress import EgressPolicy, EgressRefused, PinnedTarget, judge_address

SocketOption = (
    tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
)


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Network backend that reaches ``target.url.host`` only, and only at ``target.ip``."""

    def __init__(
        self,
        target: PinnedTarget,
        policy: EgressPolicy,
        inner: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self._target = target
        self._policy = policy
        self._host = httpx.URL(target.url.base).raw_host.decode("ascii")
        self._inner: httpcore.AsyncNetworkBackend = inner or httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        if host != self._host or port != self._target.url.port:
            raise httpcore.ConnectError(
                f"refused: {host}:{port} is not the checked bot address "
                f"{self._host}:{self._target.url.port}"
            )
        try:  # defence in depth: the pinned address is judged again at every connect
            ip = judge_address(self._target.ip, self._policy)
        except EgressRefused as exc:
            raise httpcore.ConnectError(str(exc)) from None
        return await self._inner.connect_tcp(
            str(ip),
            port,
            timeout=timeout,
            local_address=local_address,
            socket_options=socket_options,
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("refused: bots are reached over TCP only")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


# Most specific first: the first match wins.
_ERRORS: tuple[tuple[type[Exception], type[httpx.HTTPError]], ...] = (
    (httpcore.ConnectTimeout, httpx.ConnectTimeout),
    (httpcore.ReadTimeout, httpx.ReadTimeout),
    (httpcore.WriteTimeout, httpx.WriteTimeout),
    (httpcore.PoolTimeout, httpx.PoolTimeout),
    (httpcore.TimeoutException, httpx.TimeoutException),
    (httpcore.ConnectError, httpx.ConnectError),
    (httpcore.ReadError, httpx.ReadError),
    (httpcore.WriteError, httpx.WriteError),
    (httpcore.NetworkError, httpx.NetworkError),
    (httpcore.RemoteProtocolError, httpx.RemoteProtocolError),
    (httpcore.LocalProtocolError, httpx.LocalProtocolError),
    (httpcore.ProtocolError, httpx.ProtocolError),
    (httpcore.UnsupportedProtocol, httpx.UnsupportedProtocol),
)


@contextmanager
def _httpx_errors() -> Iterator[None]:
    """Re-raise httpcore's exceptions as the httpx ones callers of httpx expect."""
    try:
        yield
    except Exception as exc:
        for source, target in _ERRORS:
            if isinstance(exc, source):
                raise target(str(exc)) from exc
        raise


class _ResponseStream(httpx.AsyncByteStream):
    def __init__(self, stream: httpcore.Response) -> None:
        self._response = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        with _httpx_errors():
            async for chunk in self._response.aiter_stream():
                yield chunk

    async def aclose(self) -> None:
        with _httpx_errors():
            await self._response.aclose()


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """One verifying TLS context per process. Building one loads the CA bundle (about 20 ms of
    CPU); doing that per bot per match stalled the event loop when many matches started at
    once, and healthy bots lost by walkover."""
    return httpx.create_ssl_context()


class PinnedTransport(httpx.AsyncBaseTransport):
    """An httpx transport (HTTP/1.1, connection pool, no proxies) over a given network backend."""

    def __init__(
        self,
        backend: httpcore.AsyncNetworkBackend,
        *,
        ssl_context: ssl.SSLContext | None = None,
        max_connections: int = 8,
        keepalive_expiry: float = 30.0,
    ) -> None:
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context or shared_ssl_context(),
            max_connections=max_connections,
            max_keepalive_connections=max_connections,
            keepalive_expiry=keepalive_expiry,
            http1=True,
            http2=False,
            retries=0,
            network_backend=backend,
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if not isinstance(request.stream, httpx.AsyncByteStream):
            raise TypeError("PinnedTransport needs an async request body")
        core_request = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=request.stream,
            extensions=request.extensions,
        )
        with _httpx_errors():
            response = await self._pool.handle_async_request(core_request)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseStream(response),
            extensions=response.extensions,
        )

    async def aclose(self) -> None:
        await self._pool.aclose()
