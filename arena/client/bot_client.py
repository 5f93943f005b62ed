"""``BotClient``: how the arena calls one bot, safely, and never raising for the bot's sake.

Every call returns a value: a :class:`Reply` (status, raw body bytes, latency) or a
:class:`Fault` (kind, detail, latency). The deadline covers the WHOLE call (connect, send,
headers and body), so a bot that drips its answer a byte at a time is cut at the deadline,
not at some per-read timeout. Bodies past ``max_body`` bytes are cut off (``too_large``).
Redirects are not followed, no cookie is ever kept, and every request is signed.

The HTTP/1.1 underneath is our own and small (:mod:`arena.client.http1`, llhttp parsing the answers,
:mod:`arena.client.streams` for the sockets): a bot call costs the platform little more CPU than a
bare keep-alive loop (docs/arena-client.md has the figures). No proxy from the environment,
no cookie jar and no redirect logic exist on the path at all.
"""

from __future__ import annotations

import asyncio
import errno
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from types import TracebackType
from typing import Any, Self, TypeVar, cast
from urllib.parse import quote, urlsplit

import httpcore
import msgspec

from arena.client import signing
from arena.client.deadline import Deadline
from arena.client.egress import (
    BadBotUrl,
    EgressError,
    EgressPolicy,
    EgressRefused,
    PinnedTarget,
    Resolver,
    check_url,
)
from arena.client.fault_detail import public_detail
from arena.client.http1 import MAX_HEAD_BYTES, ConnectionPool, HttpAnswer, TooLarge
from arena.client.pinning import PinnedBackend, shared_ssl_context
from arena.wire.faults import CallFaultKind

T = TypeVar("T")

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

    kind: CallFaultKind
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
        decoder = _DECODERS.get(type_)
        if decoder is None:
            decoder = _DECODERS[type_] = msgspec.json.Decoder(type_)
        try:
            return cast("T", decoder.decode(self.body))
        except msgspec.DecodeError as exc:  # ValidationError is a DecodeError
            return Fault("bad_body", _clip(str(exc)), self.latency_ms)


_DECODERS: dict[type, msgspec.json.Decoder[Any]] = {}  # one decoder per answer type, kept


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
    if isinstance(exc, httpcore.ConnectError):  # its text names the address: not shown
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


_ID, _STAMP, _SIGNATURE = signing.ID_HEADER, signing.TIMESTAMP_HEADER, signing.SIGNATURE_HEADER
_TRANSPORT_ERRORS = (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol)
_PATH_SAFE = "/%:@!$&'()*+,;=-._~"


class BotClient:
    """Calls one bot (one base URL, one secret). Use one per bot per match and ``aclose`` it.

    ``previous_secrets``: secrets rotated out but still in their grace period; every request
    carries their signatures too, after the current one's.

    The base URL goes through the egress guard once (:meth:`pin`, or lazily on the first call)
    and every connection goes to that checked address. ``network_backend`` replaces the socket
    layer under the pinning (an httpcore ``AsyncNetworkBackend``; tests pass one that fails if
    called); the default is :class:`arena.client.streams.AsyncioBackend`.
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
    ) -> None:
        self._signer = signing.Signer(secret, previous_secrets)  # fails fast if malformed
        self._base_url = base_url
        self.config = config or ClientConfig()
        if any(c in self.config.user_agent for c in "\r\n"):
            raise ValueError("the user agent must be one line")
        self._resolver = resolver
        self._network_backend = network_backend
        self._target: PinnedTarget | None = None
        self._refusal: EgressError | None = None
        self._pool: ConnectionPool | None = None
        self._closed = False
        self._fixed = b""  # the request headers that never change, ready to send
        # by (method, endpoint): the request line and those headers
        self._starts: dict[tuple[str, str], bytes] = {}
        self._max_raw = MAX_HEAD_BYTES + 2 * self.config.max_body
        self._deadline = Deadline()

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
        url = target.url
        self._pool = ConnectionPool(
            PinnedBackend(target, self.config.policy, self._network_backend),
            url.host,
            url.port,
            ssl_context=shared_ssl_context() if url.scheme == "https" else None,
            max_connections=self.config.max_connections,
        )
        self._fixed = (
            f"host: {url.authority}\r\n"
            f"user-agent: {self.config.user_agent}\r\n"
            "accept: application/json\r\n"
            "accept-encoding: identity\r\n"
        ).encode("ascii")
        self._target = target
        return target

    async def aclose(self) -> None:
        self._closed = True
        self._deadline.close()
        if self._pool is not None:
            await self._pool.aclose()

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
        seconds = limit_ms / 1000.0
        deadline = self._deadline
        error: BaseException | None = None
        result: Result
        try:
            if deadline.busy:  # a second call at the same time: it gets a timer of its own
                async with asyncio.timeout(seconds):
                    result = await self._exchange(method, endpoint, body, exact_200, start)
            else:
                deadline.begin(seconds)
                try:
                    result = await self._exchange(method, endpoint, body, exact_200, start)
                except asyncio.CancelledError:
                    if deadline.cut():
                        raise TimeoutError from None
                    raise
                finally:
                    deadline.end()
        except TimeoutError:
            result = Fault("timeout", f"no complete answer within {limit_ms:.0f} ms", _ms(start))
        except EgressError as exc:
            result = Fault("connect", _egress_detail(exc), _ms(start))
        except TooLarge as exc:
            result = Fault("too_large", str(exc), _ms(start))
        except httpcore.TimeoutException as exc:
            detail = f"{type(exc).__name__}: no complete answer within {limit_ms:.0f} ms"
            result = Fault("timeout", detail, _ms(start))
        except _TRANSPORT_ERRORS as exc:
            error = exc
            result = Fault("connect", _connect_detail(exc), _ms(start))
        if isinstance(result, Fault):  # replays are public: no host name, TLS by reason only
            detail = public_detail(result.detail, urlsplit(self._base_url).hostname, error)
            result = Fault(result.kind, _clip(detail), result.latency_ms, result.status)
        return result

    async def _exchange(
        self, method: str, endpoint: str, body: bytes | None, exact_200: bool, start: float
    ) -> Result:
        if self._pool is None:
            await self.pin()
        pool = self._pool
        assert pool is not None
        if self._closed:
            raise httpcore.ConnectError("the client is closed")
        request = self._request(method, endpoint, body)
        connection = pool.take_idle() or await pool.open()
        try:
            answer = await connection.exchange(request, self._max_raw)
            fault = self._judge_head(answer, exact_200, start)
            if fault is not None:
                connection.settle(answer)
                return fault
            if answer.complete:  # the usual case: the whole answer came with its head
                content = connection.body(answer, self.config.max_body)
            else:
                content = await connection.read_body(answer, self.config.max_body, self._max_raw)
            return Reply(answer.status, content, _ms(start))
        finally:
            if not pool.give_back(connection):
                await pool.discard(connection)

    def _request(self, method: str, endpoint: str, body: bytes | None) -> bytes:
        """The whole request, signed: request line, headers, body."""
        start = self._starts.get((method, endpoint))
        if start is None:
            assert self._target is not None
            path = quote(self._target.url.path + endpoint, safe=_PATH_SAFE)
            line = f"{method} {path} HTTP/1.1\r\n".encode()
            start = self._starts[(method, endpoint)] = line + self._fixed
        content = b"" if body is None else body
        msg_id = signing.new_message_id()
        stamp = int(time.time())
        signature = self._signer.signature(msg_id, stamp, content)
        signed = f"{_ID}: {msg_id}\r\n{_STAMP}: {stamp}\r\n{_SIGNATURE}: {signature}\r\n"
        if body is not None:
            signed += f"content-type: application/json\r\ncontent-length: {len(body)}\r\n"
        return b"".join((start, signed.encode("ascii"), b"\r\n", content))

    def _judge_head(self, answer: HttpAnswer, exact_200: bool, start: float) -> Fault | None:
        """A fault the status line and headers already show, or None to read the body."""
        status = answer.status
        accepted = status == 200 if exact_200 else 200 <= status < 300
        if not accepted:
            detail = f"HTTP {status}, expected {'200' if exact_200 else '2xx'}"
            if status == 401:
                detail += ": the bot rejected the signature (is it using the right secret?)"
            elif 300 <= status < 400:
                detail = f"HTTP {status} redirect: redirects are not followed"
            return Fault("http_status", _clip(detail), _ms(start), status)
        headers = answer.headers
        if b"content-encoding" in headers:
            encoding = answer.header(b"content-encoding").strip().lower()
            if encoding not in ("", "identity"):
                detail = f"compressed answer ({encoding}); send it uncompressed"
                return Fault("bad_body", _clip(detail), _ms(start))
        if not answer.complete and b"content-length" in headers:
            limit = self.config.max_body
            declared = answer.header(b"content-length").strip()
            if declared.isascii() and declared.isdigit() and int(declared) > limit:
                detail = f"answer declares {declared} bytes; the limit is {limit}"
                return Fault("too_large", _clip(detail), _ms(start))
        return None
