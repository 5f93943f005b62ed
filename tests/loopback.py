"""The tests' network guard: an httpcore backend that connects to loopback only.

Every TCP connect is recorded in ``calls``; one to another host, or to a unix socket, goes to
:meth:`LoopbackBackend.refuse`, which fails it like an unreachable host. Subclasses choose
what may be reached (``allowed``) and how a refusal shows (an assertion, ``pytest.fail``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NoReturn

import httpcore
from httpcore._backends.base import SOCKET_OPTION

LOOPBACK = ("127.0.0.1", "::1")


class LoopbackBackend(httpcore.AsyncNetworkBackend):
    """Connects to ``allowed`` hosts (loopback) only; anything else is refused at once."""

    allowed: tuple[str, ...] = LOOPBACK

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []
        self._inner = httpcore.AnyIOBackend()

    def refuse(self, what: str) -> NoReturn:
        """Fail the attempt ``what`` (e.g. ``a connection to 10.0.0.1:80``)."""
        raise httpcore.ConnectError(f"tests do not leave this machine ({what})")

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.calls.append((host, port))
        if host not in self.allowed:
            self.refuse(f"a connection to {host}:{port}")
        return await self._inner.connect_tcp(
            host, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        self.refuse(f"a unix socket connection to {path}")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)
