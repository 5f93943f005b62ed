"""Connect only to the address the egress guard checked (no second DNS lookup).

The bot client's connection pool (:mod:`arena.client.http1`) resolves nothing itself: it hands the
URL's host to its network backend's ``connect_tcp``. :class:`PinnedBackend` sits there and
swaps the host for the pinned IP, so the socket goes to the judged address while TLS (SNI,
certificate check) and the ``Host`` header still use the name from the URL. Any other host,
and any Unix socket, is refused: this is the single choke point every connection of a
:class:`~arena.client.bot_client.BotClient` goes through.
"""

from __future__ import annotations

import functools
import ssl
from collections.abc import Iterable

import httpcore
import httpx

from arena.client.egress import EgressPolicy, EgressRefused, PinnedTarget, judge_address
from arena.client.streams import AsyncioBackend, SocketOption, TcpOnlyBackend


class PinnedBackend(TcpOnlyBackend):
    """Network backend that reaches ``target.url.host`` only, and only at ``target.ip``."""

    def __init__(
        self,
        target: PinnedTarget,
        policy: EgressPolicy,
        inner: httpcore.AsyncNetworkBackend | None = None,
    ) -> None:
        self._target = target
        self._policy = policy
        self._host = target.url.host
        self._inner: httpcore.AsyncNetworkBackend = inner or AsyncioBackend()

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

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


@functools.cache
def shared_ssl_context() -> ssl.SSLContext:
    """One verifying TLS context per process. Building one loads the CA bundle (about 20 ms of
    CPU); doing that per bot per match stalled the event loop when many matches started at
    once, and healthy bots lost by walkover. The bot client speaks HTTP/1.1 only, and says so
    in the handshake (ALPN)."""
    context = httpx.create_ssl_context()
    context.set_alpn_protocols(["http/1.1"])
    return context
