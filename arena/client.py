"""``BotClient``: how the arena calls one bot, safely, and never raising for the bot's sake.

Every call returns a value: a :class:`Reply` (status, raw body bytes, latency) or a
:class:`Fault` (kind, detail, latency). The deadline covers the WHOLE call (connect, send,
headers and body), so a bot that drips its answer a byte at a time is cut at the deadline,
not at some per-read timeout. Bodies past ``max_body`` bytes are cut off (``too_large``).
Redirects are not followed, no cookie is ever kept, and every request is signed.
"""

from __future__ import annotations

import asyncio
import errno
import http.cookiejar
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from types import TracebackType
from typing import Any, Literal, Self, TypeVar
from urllib.parse import urlsplit

import httpcore
import httpx
import msgspec

from arena import signing
from arena.egress import (
    BadBotUrl,
    EgressError,
    EgressPolicy,
    EgressRefused,
    PinnedTarget,
    Resolver,
    check_url,
)
from arena.fault_detail import public_detail
from arena.pinning import PinnedBackend, PinnedTransport

T = TypeVar("T")

FaultKind = Literal["timeout", "connect", "http_status", "bad_body", "too_large"]
FAULT_KINDS: tuple[FaultKind, ...] = ("timeout", "connect", "http_status", "bad_body", "too_large")
MAX_BODY_BYTES = 64 * 1024
_DETAIL_MAX = 300


def _package_version() -> str:
    try:
        return version("truco-arena")
    except PackageNotFoundError:
        return "dev"


USER_AGENT = f"TrucoArena/{_package_version()} (+bot protocol v1)"


class Fault(msgspec.Struct, frozen=True):
    """The bot misbehaved on this call. ``latency_ms`` is the time the call took; ``status``
    is the HTTP status of an ``http_status`` fault. ``detail`` never holds the bot's host or
    address (replays are public): connection failures are described by their cause only."""

    kind: FaultKind
    detail: str
    latency_ms: float
    status: int | None = None


class Reply(msgspec.Struct, frozen=True):
    """A complete answer: HTTP status (an accepted one), the raw body, the time it took."""

    status: int
    body: bytes
    latency_ms: float

    def decode(self, type_: type[T]) -> T | Fault:
        """The body as ``type_`` (msgspec JSON), or a ``bad_body`` fault saying what is wrong."""
        try:
            return msgspec.json.decode(self.body, type=type_)
        except msgspec.DecodeError as exc:  # ValidationError is a DecodeError
            return Fault("bad_body", _clip(str(exc)), self.latency_ms)


Result = Reply | Fault


@dataclass(frozen=True, slots=True)
class TimeBank:
    """What is left of a bot's per-game thinking time, in milliseconds (a value: never mutated).

    A call may last ``min(per-call timeout, remaining)``; afterwards the caller debits the
    call's measured latency: ``bank = bank.debit(result.latency_ms)``.
    """

    remaining_ms: float

    def limit_ms(self, per_call_ms: float) -> float:
        return max(0.0, min(per_call_ms, self.remaining_ms))

    def debit(self, latency_ms: float) -> TimeBank:
        return TimeBank(max(0.0, self.remaining_ms - latency_ms))

    @property
    def exhausted(self) -> bool:
        return self.remaining_ms <= 0.0


@dataclass(frozen=True, slots=True)
class ClientConfig:
    """How a :class:`BotClient` behaves; one config is shared by every bot of a worker."""

    timeout_ms: float = 2000.0
    max_body: int = MAX_BODY_BYTES
    policy: EgressPolicy = field(default_factory=EgressPolicy)
    max_connections: int = 4
    user_agent: str = USER_AGENT


class _RejectAllCookies(http.cookiejar.DefaultCookiePolicy):
    def set_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        return False

    def return_ok(self, cookie: http.cookiejar.Cookie, request: Any) -> bool:
        return False


def _clip(text: str) -> str:
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 3] + "..."


_ERRNO_WORDS = {
    errno.ECONNREFUSED: "connection refused",
    errno.ECONNRESET: "connection reset by the bot",
    errno.ECONNABORTED: "connection aborted",
    errno.EHOSTUNREACH: "no route to the bot's host",
    errno.ENETUNREACH: "the bot's network is unreachable",
    errno.ETIMEDOUT: "connecting timed out",
    errno.EPIPE: "the bot closed the connection",
}


def _connect_detail(exc: BaseException) -> str:
    """A connection failure in words, without the host or address it was going to."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in _ERRNO_WORDS:
            return _ERRNO_WORDS[current.errno]
        current = current.__cause__ or current.__context__
    if isinstance(exc, httpx.ConnectError):  # its text names the address: not shown
        return "could not connect to the bot"
    text = str(exc) or "the connection failed or was closed before a full answer"
    return _clip(f"{type(exc).__name__}: {text}")


def _egress_detail(exc: EgressError) -> str:
    """Why the guard would not call the bot, without its host or address."""
    if isinstance(exc, EgressRefused):
        return f"refused: a non-public address ({exc.category.replace('_', ' ')})"
    if isinstance(exc, BadBotUrl):
        return "the bot URL is not valid"
    return "the bot's host name did not resolve"


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000.0, 3)


_ENCODER = msgspec.json.Encoder()


class BotClient:
    """Calls one bot (one base URL, one secret). Use one per bot per match and ``aclose`` it.

    ``previous_secrets``: secrets rotated out but still in their grace period; every request
    carries their signatures too, after the current one's.

    The base URL goes through the egress guard once (:meth:`pin`, or lazily on the first call)
    and every connection goes to that checked address. ``network_backend`` replaces the socket
    layer under the pinning (tests pass one that fails if called); ``transport`` replaces the
    whole HTTP transport (mock bots) — the guard still runs first.
    """

    def __init__(
        self,
        base_url: str,
        secret: str,
        *,
        previous_secrets: Sequence[str] = (),
        config: ClientConfig | None = None,
        resolver: Resolver | None = None,
        network_backend: httpcore.AsyncNetworkBackend | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        for key in (secret, *previous_secrets):
            signing.secret_key(key)  # fail fast on a malformed secret
        self._base_url = base_url
        self._secret = secret
        self._previous = tuple(previous_secrets)
        self.config = config or ClientConfig()
        self._resolver = resolver
        self._network_backend = network_backend
        self._transport = transport
        self._target: PinnedTarget | None = None
        self._refusal: EgressError | None = None
        self._http: httpx.AsyncClient | None = None

    # --- lifecycle -----------------------------------------------------------------------------

    async def pin(self) -> PinnedTarget:
        """Check the base URL once and pin its address; raises :class:`EgressError` if refused.

        Call it when a match starts (a refusal or an unresolvable name means a walkover) or at
        registration to show the author why the URL is not accepted.
        """
        if self._target is not None:
            return self._target
        if self._refusal is not None:
            raise self._refusal
        try:
            target = await check_url(self._base_url, self.config.policy, self._resolver)
        except (EgressRefused, BadBotUrl) as exc:
            self._refusal = exc  # a refusal is final; a failed lookup may be retried
            raise
        self._target = target
        transport = self._transport or PinnedTransport(
            PinnedBackend(target, self.config.policy, self._network_backend),
            max_connections=self.config.max_connections,
        )
        self._http = httpx.AsyncClient(
            transport=transport,
            follow_redirects=False,
            trust_env=False,  # no proxy from the environment may carry the call elsewhere
            cookies=http.cookiejar.CookieJar(policy=_RejectAllCookies()),
            headers={
                "user-agent": self.config.user_agent,
                "accept": "application/json",
                "accept-encoding": "identity",
            },
        )
        return target

    async def aclose(self) -> None:
        if self._http is not None:
            await self._http.aclose()
            self._http = None

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # --- protocol calls ------------------------------------------------------------------------

    def call_limit_ms(self, bank: TimeBank) -> float:
        """The limit of the next ``act`` call (what to put in ``ActRequest.timeout_ms``)."""
        return bank.limit_ms(self.config.timeout_ms)

    async def info(self) -> Result:
        """``GET {base}/``: 200 with the bot's info document."""
        return await self._call("GET", "/", None, self.config.timeout_ms, exact_200=True)

    async def start(self, body: object) -> Result:
        """``POST {base}/start``: any 2xx; the body is not looked at."""
        return await self._call("POST", "/start", _ENCODER.encode(body), self.config.timeout_ms)

    async def act(self, body: object, bank: TimeBank) -> Result:
        """``POST {base}/act`` within ``min(timeout, bank)``; debit ``latency_ms`` afterwards."""
        limit = self.call_limit_ms(bank)
        if limit <= 0.0:
            return Fault("timeout", "time bank exhausted: no time left for this call", 0.0)
        return await self._call("POST", "/act", _ENCODER.encode(body), limit, exact_200=True)

    async def end(self, body: object) -> Result:
        """``POST {base}/end``: any 2xx; the body is not looked at."""
        return await self._call("POST", "/end", _ENCODER.encode(body), self.config.timeout_ms)

    # --- the one code path ---------------------------------------------------------------------

    async def _call(
        self,
        method: str,
        endpoint: str,
        body: bytes | None,
        limit_ms: float,
        *,
        exact_200: bool = False,
    ) -> Result:
        start = time.perf_counter()
        error: BaseException | None = None
        try:
            async with asyncio.timeout(limit_ms / 1000.0):
                result = await self._exchange(method, endpoint, body, limit_ms, exact_200, start)
        except TimeoutError:
            result = Fault("timeout", f"no complete answer within {limit_ms:.0f} ms", _ms(start))
        except EgressError as exc:
            result = Fault("connect", _egress_detail(exc), _ms(start))
        except httpx.TimeoutException as exc:
            detail = f"{type(exc).__name__}: no complete answer within {limit_ms:.0f} ms"
            result = Fault("timeout", detail, _ms(start))
        except httpx.HTTPError as exc:
            error = exc
            result = Fault("connect", _connect_detail(exc), _ms(start))
        if isinstance(result, Fault):  # replays are public: no host name, TLS by reason only
            detail = public_detail(result.detail, urlsplit(self._base_url).hostname, error)
            result = Fault(result.kind, _clip(detail), result.latency_ms, result.status)
        return result

    async def _exchange(
        self,
        method: str,
        endpoint: str,
        body: bytes | None,
        limit_ms: float,
        exact_200: bool,
        start: float,
    ) -> Result:
        target = await self.pin()
        assert self._http is not None
        content = body if body is not None else b""
        headers = signing.sign(
            self._secret,
            signing.new_message_id(),
            int(time.time()),
            content,
            also=self._previous,
        )
        if body is not None:
            headers["content-type"] = "application/json"
        async with self._http.stream(
            method,
            target.url.join(endpoint),
            content=body,
            headers=headers,
            timeout=httpx.Timeout(limit_ms / 1000.0),
        ) as response:
            return await self._read(response, exact_200, start)

    async def _read(self, response: httpx.Response, exact_200: bool, start: float) -> Result:
        status = response.status_code
        accepted = status == 200 if exact_200 else 200 <= status < 300
        if not accepted:
            detail = f"HTTP {status}, expected {'200' if exact_200 else '2xx'}"
            if status == 401:
                detail += ": the bot rejected the signature (is it using the right secret?)"
            elif 300 <= status < 400:
                detail = f"HTTP {status} redirect: redirects are not followed"
            return Fault("http_status", _clip(detail), _ms(start), status)
        encoding = response.headers.get("content-encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            detail = f"compressed answer ({encoding}); send it uncompressed"
            return Fault("bad_body", detail, _ms(start))
        limit = self.config.max_body
        declared = response.headers.get("content-length", "")
        if declared.isascii() and declared.isdigit() and int(declared) > limit:
            detail = f"answer declares {declared} bytes; the limit is {limit}"
            return Fault("too_large", detail, _ms(start))
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_raw():
            size += len(chunk)
            if size > limit:
                detail = f"answer is longer than {limit} bytes; cut off"
                return Fault("too_large", detail, _ms(start))
            chunks.append(chunk)
        return Reply(status, b"".join(chunks), _ms(start))
