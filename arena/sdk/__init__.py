"""The bot author's kit: write a Truco bot as one function and serve it over protocol v1.

A complete bot::

    import os
    from arena.sdk import ActRequest, serve
    from engine import Action

    def decide(req: ActRequest) -> Action:
        return req.legal_actions[0]          # any of req.legal_actions

    serve(decide, name="mybot", port=8080)   # the secret: $TRUCO_BOT_SECRET

``decide`` gets the whole :class:`ActRequest` (``req.observation`` is what the seat may know,
``req.legal_actions`` what it may do) and returns an ``engine.Action`` or an ``ActResponse``.
``serve`` takes the secret from ``secret=``, else the file ``secret_file=`` (mode 0600), else
``$TRUCO_BOT_SECRET`` (see :mod:`arena.sdk.secret`). With a secret (the ``whsec_...`` you chose
and gave at registration, or the one registration returned) every request must carry a valid
Standard Webhooks signature no older than 5 minutes (any one of the signatures in the header
may match: during a rotation the arena sends two), or it is answered 401 before ``decide``
runs. Bodies that are not valid protocol JSON get 400; an exception in ``decide`` (or a hook)
gets 500 with its text, which the arena counts as a fault, and the server keeps running. Every
refused request is logged at WARNING on the ``arena.sdk`` logger with its reason (never the
secret).

For tests and programs: ``BotServer(decide, name=...)`` with ``start()`` (a background thread;
returns the bound port, ``port=0`` picks a free one), ``url`` and ``stop()``; it is also a
context manager. Only the standard library's ``http.server`` is used.
"""

from __future__ import annotations

import contextlib
import json
import logging
import random
import signal
import socket
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self

import msgspec

from arena.bots import get_strategy
from arena.client import signing
from arena.client.connection import Choice
from arena.sdk.secret import load_secret
from arena.wire import structs as wire
from arena.wire.protocol import (
    API_VERSION,
    ActRequest,
    ActResponse,
    BotInfo,
    EndRequest,
    StartRequest,
    legal_answer,
)
from arena.wire.structs import action_from_wire, action_to_wire, observation_from_wire
from engine import Action

__all__ = [
    "ActRequest",
    "ActResponse",
    "BotServer",
    "Choice",
    "Decide",
    "EndRequest",
    "StartRequest",
    "serve",
    "strategy_decider",
]

log = logging.getLogger("arena.sdk")

Decide = Callable[[ActRequest], Choice]
OnStart = Callable[[StartRequest], None]
OnEnd = Callable[[EndRequest], None]
MAX_REQUEST_BYTES = 1024 * 1024

_ENCODER = msgspec.json.Encoder()
_DECODERS: dict[str, msgspec.json.Decoder[Any]] = {
    "/start": msgspec.json.Decoder(StartRequest),
    "/act": msgspec.json.Decoder(ActRequest),
    "/end": msgspec.json.Decoder(EndRequest),
}


class BotServer:
    """An HTTP bot around ``decide``; see the module docstring."""

    def __init__(
        self,
        decide: Decide,
        *,
        name: str,
        author: str | None = None,
        version: str | None = None,
        secret: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        on_start: OnStart | None = None,
        on_end: OnEnd | None = None,
        tolerance_s: int = signing.DEFAULT_TOLERANCE_S,
    ) -> None:
        if secret:
            signing.secret_key(secret)  # a malformed secret fails now, not on the first call
        self.decide = decide
        self.info = BotInfo(apiversion=API_VERSION, name=name, author=author, version=version)
        self.secret = secret or None
        self.on_start = on_start
        self.on_end = on_end
        self.tolerance_s = tolerance_s
        fields = msgspec.structs.asdict(self.info)
        self.info_body = _ENCODER.encode({k: v for k, v in fields.items() if v is not None})
        server_class = _Server6 if ":" in host else _Server
        self._httpd = server_class((host, port), _make_handler(self))
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        return str(self._httpd.server_address[0])

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> int:
        """Serve in a background (daemon) thread; returns the bound port."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._httpd.serve_forever,
                kwargs={"poll_interval": 0.05},
                name=f"bot-{self.info.name}",
                daemon=True,
            )
            self._thread.start()
        return self.port

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted (Ctrl-C or SIGTERM: ``KeyboardInterrupt``) or
        :meth:`stop` from another.

        On the main thread both signals are made to interrupt, whatever the process inherited:
        a process started in the background by a shell without job control (a script's ``&``,
        some CI runners) inherits SIGINT ignored, and Python then leaves it ignored, so Ctrl-C
        sent to such a bot did nothing; SIGTERM is what ``kill`` and container runtimes send.
        """
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.default_int_handler)
            signal.signal(signal.SIGTERM, _interrupt)
        try:
            self._httpd.serve_forever()
        finally:
            self._httpd.server_close()

    def stop(self) -> None:
        """Stop serving and close the listening socket."""
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

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

    # --- request handling (called from the handler threads) ------------------------------------

    def handle_post(
        self, path: str, headers: dict[str, str], body: bytes, peer: str = "?"
    ) -> tuple[int, bytes]:
        """Answer one POST: (status, JSON body)."""
        decoder = _DECODERS.get(path)
        if decoder is None:
            message = f"no endpoint {path}; use /start, /act or /end"
            return self.refuse(HTTPStatus.NOT_FOUND, f"POST {path}", message, peer)
        if self.secret is not None:
            try:
                signing.verify(self.secret, headers, body, tolerance=self.tolerance_s)
            except signing.SignatureError as exc:
                kind = type(exc).__name__  # MissingSignature, StaleTimestamp, BadSignature
                return self.refuse(HTTPStatus.UNAUTHORIZED, f"POST {path}", f"{kind}: {exc}", peer)
        try:
            request = decoder.decode(body)
        except msgspec.DecodeError as exc:
            message = f"bad {path} body: {exc}"
            return self.refuse(HTTPStatus.BAD_REQUEST, f"POST {path}", message, peer)
        try:
            if isinstance(request, ActRequest):
                return HTTPStatus.OK, _ENCODER.encode(self._act(request))
            if isinstance(request, StartRequest) and self.on_start is not None:
                self.on_start(request)
            elif isinstance(request, EndRequest) and self.on_end is not None:
                self.on_end(request)
        except Exception as exc:  # the author's code failed: a 500, never a dead server
            log.exception("bot %s failed on %s", self.info.name, path)
            return _error(HTTPStatus.INTERNAL_SERVER_ERROR, f"{type(exc).__name__}: {exc}")
        return HTTPStatus.OK, b'{"ok":true}'

    def refuse(self, status: int, request: str, message: str, peer: str) -> tuple[int, bytes]:
        """Refuse a request: log why at WARNING (the secret is never in the message), and
        answer ``{"error": message}`` with ``status``."""
        log.warning(
            "bot %s refused %s from %s: %d %s", self.info.name, request, peer, status, message
        )
        return _error(status, message)

    def _act(self, request: ActRequest) -> ActResponse:
        answer = self.decide(request)
        if isinstance(answer, Action | wire.Action):
            answer = ActResponse(
                action=answer.action, card=answer.card, say=answer.say, sena=answer.sena
            )
        if not isinstance(answer, ActResponse):
            raise TypeError(f"decide must return an Action or ActResponse, not {answer!r}")
        if legal_answer(answer, request.legal_actions) is None:
            log.warning("bot %s answers %s, which is not legal now", self.info.name, answer)
        return answer


def _interrupt(signum: int, frame: object) -> None:
    """SIGTERM stops a bot as Ctrl-C does."""
    raise KeyboardInterrupt


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # a client that hangs up mid-connection is routine; anything else is logged
        log.debug("connection from %s ended with an error", client_address, exc_info=True)


class _Server6(_Server):
    address_family = socket.AF_INET6


def _error(status: int, message: str) -> tuple[int, bytes]:
    return status, json.dumps({"error": message}).encode()


def _make_handler(bot: BotServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the arena reuses its connection
        server_version = "TrucoBotSDK/1"
        disable_nagle_algorithm = True
        timeout = 120  # an idle keep-alive connection is closed after this many seconds

        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            if path != "/":
                message = f"no endpoint {path}; use /"
                self._send(*bot.refuse(HTTPStatus.NOT_FOUND, f"GET {path}", message, self._peer()))
                return
            self._send(HTTPStatus.OK, bot.info_body)

        def do_POST(self) -> None:
            path = self.path.split("?")[0]
            length_text = self.headers.get("content-length", "")
            if not length_text.isdigit():
                self.close_connection = True
                message = "a Content-Length is required"
                status = HTTPStatus.LENGTH_REQUIRED
                self._send(*bot.refuse(status, f"POST {path}", message, self._peer()))
                return
            length = int(length_text)
            if length > MAX_REQUEST_BYTES:
                self.close_connection = True
                message = f"the body is {length} bytes; the limit is {MAX_REQUEST_BYTES}"
                status = HTTPStatus.REQUEST_ENTITY_TOO_LARGE
                self._send(*bot.refuse(status, f"POST {path}", message, self._peer()))
                return
            body = self.rfile.read(length)
            headers = {name.lower(): value for name, value in self.headers.items()}
            self._send(*bot.handle_post(path, headers, body, self._peer()))

        def _peer(self) -> str:
            return str(self.client_address[0])

        def _send(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            log.debug("%s " + format, self.address_string(), *args)

    return Handler


def serve(
    decide: Decide,
    *,
    name: str,
    port: int = 8080,
    host: str = "127.0.0.1",
    secret: str | None = None,
    secret_file: str | None = None,
    author: str | None = None,
    version: str | None = None,
    on_start: OnStart | None = None,
    on_end: OnEnd | None = None,
) -> None:
    """Serve ``decide`` until Ctrl-C. Use ``host="0.0.0.0"`` to be reachable from the arena.

    The secret is ``secret``, else the contents of ``secret_file``, else ``$TRUCO_BOT_SECRET``;
    a bad one raises :class:`arena.sdk.secret.SecretSourceError` before anything listens.
    """
    bot = BotServer(
        decide,
        name=name,
        author=author,
        version=version,
        secret=load_secret(secret, secret_file),
        host=host,
        port=port,
        on_start=on_start,
        on_end=on_end,
    )
    checking = "checking signatures" if bot.secret else "not checking signatures: no secret"
    print(f"bot {name!r} listening on {bot.url} ({checking}); Ctrl-C to stop", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        bot.serve_forever()


def strategy_decider(strategy_name: str, seed: int | None = None) -> Decide:
    """A ``decide`` function playing the built-in strategy ``strategy_name`` (see arena.bots).

    Its PRNG is seeded per match, game and seat from ``seed`` (random when None) and the
    request's ids. Raises :class:`arena.bots.UnknownStrategy` for an unknown name.
    """
    strategy = get_strategy(strategy_name)
    base = seed if seed is not None else random.randrange(2**32)
    rngs: dict[tuple[str, str, int], random.Random] = {}
    lock = threading.Lock()

    def decide(req: ActRequest) -> wire.Action:
        key = (req.match_id, req.game_id, req.seat)
        with lock:
            rng = rngs.get(key)
            if rng is None:
                if len(rngs) > 1000:
                    rngs.clear()
                rng = rngs[key] = random.Random(f"{base}/{req.match_id}/{req.game_id}/{req.seat}")
        legal = [action_from_wire(option) for option in req.legal_actions]
        return action_to_wire(strategy.decide(observation_from_wire(req.observation), legal, rng))

    return decide
