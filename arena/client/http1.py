"""HTTP/1.1 exchanges for the bot client: requests written by hand, answers parsed by llhttp.

The answer is parsed by ``httptools`` (the llhttp parser Node.js uses, as a C extension);
we only collect what it hands back. One :class:`Http1Connection` carries one request at a
time over an httpcore-style network stream; :class:`ConnectionPool` keeps a bot's idle
connections for reuse (keep-alive) and opens new ones through the backend it is given, which
for the bot client is the pinning backend: every socket goes to the checked address.

Limits that hold whatever the peer sends: the status line and headers may take at most
``MAX_HEAD_BYTES``; the body is read only as far as the caller's limit; the raw bytes of one
answer (framing included) are bounded too. A connection is reused only after a complete,
keep-alive answer with nothing after it; anything else closes it.
"""

from __future__ import annotations

import ssl
import time

import httpcore
import httptools

MAX_HEAD_BYTES = 64 * 1024
_READ_SIZE = 64 * 1024


class TooLarge(Exception):
    """The answer (its headers or its body) is over a limit; the connection is dropped."""


class HttpAnswer:
    """One answer as llhttp hands it over (its callbacks), reset for each request.

    ``headers``: lower-case names to raw values; ``tail``: the body's pieces. 1xx interim
    answers are skipped; ``messages`` counts the answers begun, so even the first byte of an
    answer after the one asked for is seen (and the connection is not reused).
    """

    __slots__ = (
        "complete",
        "head_done",
        "headers",
        "keep_alive",
        "messages",
        "parser",
        "raw",
        "size",
        "status",
        "switched",
        "tail",
    )

    def __init__(self) -> None:
        self.parser: httptools.HttpResponseParser | None = None
        self.reset()

    def reset(self) -> None:
        self.status = 0
        self.headers: dict[bytes, bytes] = {}
        self.tail: list[bytes] = []
        self.size = 0  # body bytes so far
        self.raw = 0  # bytes received for this answer, framing included
        self.head_done = False
        self.complete = False
        self.keep_alive = False  # as llhttp judged it when the answer completed
        self.switched = False  # 101: the peer left HTTP
        self.messages = 0

    def header(self, name: bytes) -> str:
        return self.headers.get(name, b"").decode("latin-1")

    # --- llhttp's callbacks (anything after the answer asked for only counts in messages) ---

    def on_message_begin(self) -> None:
        self.messages += 1

    def on_header(self, name: bytes, value: bytes) -> None:
        if not self.complete:
            self.headers[name.lower()] = value

    def on_headers_complete(self) -> None:
        if self.complete:
            return
        assert self.parser is not None
        status = self.parser.get_status_code()
        if 100 <= status < 200 and status != 101:
            self.headers = {}  # an interim answer: the real one follows
            self.messages -= 1
            return
        self.status = status
        self.head_done = True

    def on_body(self, body: bytes) -> None:
        if not self.complete:
            self.tail.append(body)
            self.size += len(body)

    def on_message_complete(self) -> None:
        if self.head_done and not self.complete:
            assert self.parser is not None
            self.keep_alive = self.parser.should_keep_alive()  # False once it has reset
            self.complete = True


class Http1Connection:
    """One keep-alive connection to a bot. ``exchange`` sends a request and reads the answer
    at least up to its headers; ``read_body`` the rest. Not reusable after any error, cut-off
    or cancellation (``reusable`` is set only once an answer has been read whole)."""

    __slots__ = ("_answer", "_expiry", "_idle_since", "_parser", "reusable", "stream")

    def __init__(self, stream: httpcore.AsyncNetworkStream, keepalive_expiry: float) -> None:
        self.stream = stream
        self.reusable = False
        self._expiry = keepalive_expiry
        self._idle_since = time.monotonic()
        self._answer = HttpAnswer()
        self._parser = httptools.HttpResponseParser(self._answer)
        self._answer.parser = self._parser

    def fit_for_reuse(self) -> bool:
        """An idle connection may carry the next request: recent, and nothing has arrived
        on it since (a peer that closed it, or sent bytes nobody asked for)."""
        fresh = time.monotonic() - self._idle_since < self._expiry
        return fresh and not self.stream.get_extra_info("is_readable")

    async def exchange(self, request: bytes, max_raw: int) -> HttpAnswer:
        """Send ``request`` (head and body, already serialised) and read up to the answer's
        headers (usually the whole answer arrives at once). Raises httpcore errors for the
        transport, :class:`TooLarge` for headers over ``MAX_HEAD_BYTES``."""
        self.reusable = False
        answer = self._answer
        answer.reset()
        stream = self.stream
        await stream.write(request)
        while not answer.head_done:
            data = await stream.read(_READ_SIZE)
            if not data:
                raise httpcore.RemoteProtocolError(
                    "Server disconnected without sending a response."
                    if answer.raw == 0
                    else "Server disconnected before the answer's headers were complete."
                )
            self._parse(data, max_raw)
            if not answer.head_done and answer.raw > MAX_HEAD_BYTES:
                raise TooLarge(f"answer headers are longer than {MAX_HEAD_BYTES} bytes; cut off")
        return answer

    async def read_body(self, answer: HttpAnswer, limit: int, max_raw: int) -> bytes:
        """The body, once complete; :class:`TooLarge` as soon as it passes ``limit`` bytes."""
        while not answer.complete and answer.size <= limit:
            data = await self.stream.read(_READ_SIZE)
            if not data:
                if _ends_at_close(answer):
                    break
                raise httpcore.RemoteProtocolError(
                    "Server disconnected before the answer was complete."
                )
            self._parse(data, max_raw)
        return self.body(answer, limit)

    def body(self, answer: HttpAnswer, limit: int) -> bytes:
        """The body of an answer read to its end (or its close)."""
        if answer.size > limit:
            raise TooLarge(f"answer is longer than {limit} bytes; cut off")
        self.settle(answer)
        tail = answer.tail
        return tail[0] if len(tail) == 1 else b"".join(tail)

    def settle(self, answer: HttpAnswer) -> None:
        """Done with this answer: the connection stays reusable only if the whole answer has
        arrived (the caller never waits for a body it does not want), alone, keep-alive."""
        self.reusable = (
            answer.complete and answer.keep_alive and answer.messages == 1 and not answer.switched
        )
        self._idle_since = time.monotonic()

    def _parse(self, data: bytes, max_raw: int) -> None:
        answer = self._answer
        answer.raw += len(data)
        if answer.raw > max_raw:
            raise TooLarge(f"answer is longer than {max_raw} bytes with its framing; cut off")
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            answer.switched = True  # 101 or CONNECT-style upgrade: no HTTP after this
        except httptools.HttpParserError as exc:
            if not answer.complete:
                raise httpcore.RemoteProtocolError(f"malformed answer: {exc}") from None
            answer.messages += 1  # bytes after a complete answer: do not reuse

    async def aclose(self) -> None:
        self.reusable = False
        await self.stream.aclose()


def _ends_at_close(answer: HttpAnswer) -> bool:
    """An answer with neither Content-Length nor chunked framing ends where the peer closes
    (RFC 9112 section 6.3, item 8)."""
    headers = answer.headers
    chunked = b"chunked" in headers.get(b"transfer-encoding", b"").lower()
    return not chunked and b"content-length" not in headers and answer.status >= 200


class ConnectionPool:
    """At most ``max_connections`` connections to one bot origin, reused while healthy.

    ``host`` is the name from the URL: the backend is asked for it (the pinning backend
    swaps in the checked address) and TLS uses it for SNI and the certificate check.
    """

    def __init__(
        self,
        backend: httpcore.AsyncNetworkBackend,
        host: str,
        port: int,
        *,
        ssl_context: ssl.SSLContext | None,
        max_connections: int,
        keepalive_expiry: float = 30.0,
    ) -> None:
        self._backend = backend
        self._host = host
        self._port = port
        self._ssl_context = ssl_context
        self._expiry = keepalive_expiry
        self._idle: list[Http1Connection] = []
        self._stale: list[Http1Connection] = []
        self._open = 0
        self._max = max_connections
        self._closed = False

    @property
    def open_connections(self) -> int:
        return self._open

    def take_idle(self) -> Http1Connection | None:
        """An idle connection fit for the next request, or None (open one with :meth:`open`).
        Unfit ones (expired, closed by the peer) are set aside to be closed by :meth:`open`."""
        idle = self._idle
        while idle:
            connection = idle.pop()
            if connection.fit_for_reuse():
                return connection
            self._stale.append(connection)
        return None

    async def open(self) -> Http1Connection:
        """A new connection, through the backend (and TLS for https). Every allowed
        connection being busy does not block: calls to one bot are sequential in a match,
        and ``max_connections`` bounds what is kept idle."""
        if self._closed:
            raise httpcore.ConnectError("the client is closed")
        while self._stale:
            await self.discard(self._stale.pop())
        stream = await self._backend.connect_tcp(self._host, self._port)
        self._open += 1
        if self._ssl_context is not None:
            try:
                stream = await stream.start_tls(self._ssl_context, server_hostname=self._host)
            except BaseException:
                self._open -= 1
                await stream.aclose()
                raise
        return Http1Connection(stream, self._expiry)

    def give_back(self, connection: Http1Connection) -> bool:
        """Keep a reusable connection for the next request (if the pool has room); False
        means the caller must :meth:`discard` it."""
        if connection.reusable and not self._closed and len(self._idle) < self._max:
            self._idle.append(connection)
            return True
        return False

    async def discard(self, connection: Http1Connection) -> None:
        self._open -= 1
        await connection.aclose()

    async def aclose(self) -> None:
        self._closed = True
        doomed = self._idle + self._stale
        self._idle, self._stale = [], []
        for connection in doomed:
            await self.discard(connection)
