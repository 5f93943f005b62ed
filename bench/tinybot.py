"""A tiny, fast bot server for the benchmarks: ``python -m bench.tinybot N`` serves N bots.

``--delay-ms D`` holds every answer D ms (a timer, no CPU) like a bot thinking on the other
side of the internet; ``lag`` on standard input then prints how late those timers fired (the
server's own latency: near zero means it was never what held the calls back). A bot's base
URL may have any path below it (``/b/17``): one port serves as many bot URLs as wanted.

Each bot listens on its own port of 127.0.0.1 and answers ``/act`` with the first legal action
(``GET /`` with its info, ``/start`` and ``/end`` with ``{}``), keep-alive, on one asyncio
protocol per connection: a few tens of microseconds of CPU a request, so the bots are never
what a benchmark measures. It does not check signatures (the arena's cost is what is measured).

It prints one line with the bots' base URLs, then on every ``cpu`` line read from standard
input prints ``<CPU seconds of this process> <requests answered> <connections accepted>``, and exits at the end of its
input. With ``--spans`` it also notes, per match id, when the match's first ``/start`` came
and its last ``/end`` was answered; a ``spans`` line prints them as JSON (how long each match
lasted, seen from the bots). The benchmarks use those two numbers to show the bots' CPU per request next to the
arena's.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from typing import Any, ClassVar

import msgspec


class _Legal(msgspec.Struct):
    action: str
    card: str | None = None


class _Act(msgspec.Struct):
    legal_actions: list[_Legal]


class _Match(msgspec.Struct):
    match_id: str


_DECODE_ACT = msgspec.json.Decoder(_Act).decode
_DECODE_MATCH = msgspec.json.Decoder(_Match).decode
_ENCODE = msgspec.json.Encoder().encode
_INFO = b'{"apiversion": "1", "name": "tinybot"}'
_HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: %d\r\n\r\n"
_MAX_HEAD = 16 * 1024


class Served:
    requests = 0
    connections = 0
    delay_s = 0.0  # answers held this long (``--delay-ms``), with no CPU spent meanwhile
    late_ms: ClassVar[
        list[float]
    ] = []  # how late each held answer went out (this server's own lag)
    spans: ClassVar[dict[str, list[float]]] = {}
    """With ``--spans``: per match id, the wall-clock time (``time.time()``) of its first
    ``/start`` and when its last ``/end`` was answered: the match as its bots saw it."""
    record_spans = False


class _Bot(asyncio.Protocol):
    def __init__(self) -> None:
        self._buffer = b""
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport
        Served.connections += 1

    def data_received(self, data: bytes) -> None:
        buffer = self._buffer + data if self._buffer else data
        while True:
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > _MAX_HEAD:
                    self._close()
                    return
                break
            head = buffer[:end].lower()
            at = head.find(b"\r\ncontent-length:")
            length = 0
            if at >= 0:
                stop = head.find(b"\r\n", at + 2)
                length = int(head[at + 17 : stop if stop >= 0 else len(head)])
            total = end + 4 + length
            if len(buffer) < total:
                break
            self._answer(head[: head.find(b" ", 5)], buffer[end + 4 : total])
            buffer = buffer[total:]
        self._buffer = buffer

    def _answer(self, line: bytes, body: bytes) -> None:
        Served.requests += 1
        if Served.record_spans and (line.endswith(b"/start") or line.endswith(b"/end")):
            _span(body, line.endswith(b"/end"))
        if line.endswith(b"/act"):
            first = _DECODE_ACT(body).legal_actions[0]
            answer = _ENCODE(first)
        elif line.startswith(b"get "):
            answer = _INFO
        else:
            answer = b"{}"
        assert self._transport is not None
        if Served.delay_s:
            loop = asyncio.get_running_loop()
            due = loop.time() + Served.delay_s
            loop.call_at(due, self._send_late, _HEAD % len(answer) + answer, due)
        else:
            self._transport.write(_HEAD % len(answer) + answer)

    def _send_late(self, data: bytes, due: float) -> None:
        Served.late_ms.append((asyncio.get_running_loop().time() - due) * 1000.0)
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(data)

    def _close(self) -> None:
        if self._transport is not None:
            self._transport.close()


def _span(body: bytes, ended: bool) -> None:
    now = time.time()
    span = Served.spans.setdefault(_DECODE_MATCH(body).match_id, [now, now])
    if ended:
        span[1] = now + Served.delay_s


async def _serve(count: int) -> None:
    loop = asyncio.get_running_loop()
    servers = [await loop.create_server(_Bot, "127.0.0.1", 0) for _ in range(count)]
    urls = [f"http://127.0.0.1:{s.sockets[0].getsockname()[1]}" for s in servers]
    print(" ".join(urls), flush=True)
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        if line.strip() == b"cpu":
            print(f"{time.process_time():.6f} {Served.requests} {Served.connections}", flush=True)
        elif line.strip() == b"lag":
            print(" ".join(f"{q:.3f}" for q in lateness(Served.late_ms)), flush=True)
        elif line.strip() == b"spans":
            print(json.dumps(Served.spans), flush=True)
    for server in servers:
        server.close()


def lateness(late_ms: list[float]) -> tuple[float, float, float]:
    """(median, 99th percentile, most) of how late the held answers went out, in ms."""
    if not late_ms:
        return (0.0, 0.0, 0.0)
    ordered = sorted(late_ms)
    return (
        ordered[len(ordered) // 2],
        ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))],
        ordered[-1],
    )


def main(argv: list[str]) -> None:
    count = int(argv[0]) if argv else 2
    if len(argv) > 2 and argv[1] == "--delay-ms":
        Served.delay_s = float(argv[2]) / 1000.0
    Served.record_spans = "--spans" in argv
    asyncio.run(_serve(count))


if __name__ == "__main__":
    main(sys.argv[1:])


class TinyBots:
    """The bot server running in a process of its own: ``urls``, and ``cpu()`` to read its
    (CPU seconds, requests answered, connections accepted) so far."""

    def __init__(
        self, count: int = 2, *, delay_ms: float = 0.0, spans: bool = False, **popen: Any
    ) -> None:
        argv = [sys.executable, "-m", "bench.tinybot", str(count), "--delay-ms", str(delay_ms)]
        self._process = subprocess.Popen(
            argv + (["--spans"] if spans else []),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            **popen,
        )
        assert self._process.stdout is not None
        self.urls = self._process.stdout.readline().split()
        if len(self.urls) != count:
            self.close()
            raise RuntimeError(f"the bench bots did not start: {self.urls!r}")

    def cpu(self) -> tuple[float, int, int]:
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write("cpu\n")
        self._process.stdin.flush()
        seconds, requests, connections = self._process.stdout.readline().split()
        return float(seconds), int(requests), int(connections)

    def lag(self) -> tuple[float, float, float]:
        """How late this server sent its held answers: (median, p99, most) in ms."""
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write("lag\n")
        self._process.stdin.flush()
        p50, p99, most = self._process.stdout.readline().split()
        return float(p50), float(p99), float(most)

    def spans(self) -> dict[str, tuple[float, float]]:
        """With ``spans=True``: per match id, (its first ``/start``, its last ``/end``
        answered) in wall-clock seconds."""
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write("spans\n")
        self._process.stdin.flush()
        return {k: (v[0], v[1]) for k, v in json.loads(self._process.stdout.readline()).items()}

    @property
    def pid(self) -> int:
        return self._process.pid

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()

    def __enter__(self) -> TinyBots:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
