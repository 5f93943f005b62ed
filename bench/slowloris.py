"""The slowloris of issue 21, break 1, from ONE address: ``python -m bench.slowloris PORT``.

Holds ``--connections`` (600) half-open requests to ``127.0.0.1:PORT`` (``GET /v1/bots
HTTP/1.1\\r\\nHost: x\\r\\n``, never finished) and opens a new one whenever the server closes
one (at most ``--reopen-per-s`` new connections a second, 2000: a determined client, not a
SYN flood), from ``--source`` (127.0.0.1). Runs until SIGTERM/SIGINT (or ``--seconds``), then
prints one JSON line: connections opened, closed by the server, how many of those were
answered 503, and the most held open at once.

A process of its own (the test and the benchmark start it with ``sys.executable -m``), so that
the flood does not share an interpreter with the server or the measured clients.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import selectors
import signal
import socket
import sys
import time
from types import FrameType

HALF_OPEN = b"GET /v1/bots HTTP/1.1\r\nHost: x\r\n"
READY = "slowloris: holding"


class Slowloris:
    def __init__(self, port: int, connections: int, source: str, reopen_per_s: float) -> None:
        self.port = port
        self.connections = connections
        self.source = source
        self.reopen_per_s = reopen_per_s
        self.selector = selectors.DefaultSelector()
        self.open = 0
        self.opened = 0
        self.closed = 0
        self.answered_503 = 0
        self.most_open = 0
        self.connect_errors = 0
        self.stop = False

    def _open_one(self) -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind((self.source, 0))
            sock.settimeout(5)
            sock.connect(("127.0.0.1", self.port))
            sock.sendall(HALF_OPEN)
        except OSError:
            sock.close()
            self.connect_errors += 1
            return
        sock.setblocking(False)
        self.selector.register(sock, selectors.EVENT_READ)
        self.open += 1
        self.opened += 1
        self.most_open = max(self.most_open, self.open)

    def _drain(self, timeout: float) -> None:
        for key, _ in self.selector.select(timeout):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data.startswith(b"HTTP/1.1 503 "):
                self.answered_503 += 1
            elif data:
                continue  # the rest of an answer; the close comes next
            self.selector.unregister(sock)
            sock.close()
            self.open -= 1
            self.closed += 1

    def run(self, seconds: float | None) -> None:
        began = time.monotonic()
        budget = 0.0
        last = began
        announced = False
        while not self.stop and (seconds is None or time.monotonic() - began < seconds):
            now = time.monotonic()
            budget = min(budget + (now - last) * self.reopen_per_s, self.connections)
            last = now
            while not self.stop and self.open < self.connections and (budget >= 1 or not announced):
                self._open_one()
                budget -= 1
            if not announced and self.opened >= self.connections:
                print(READY, flush=True)
                announced = True
            self._drain(0.01)

    def close(self) -> None:
        for key in list(self.selector.get_map().values()):
            with contextlib.suppress(OSError):
                key.fileobj.close()  # type: ignore[union-attr]
        self.selector.close()

    def figures(self) -> dict[str, int]:
        return {
            "opened": self.opened,
            "closed_by_server": self.closed,
            "answered_503": self.answered_503,
            "most_open": self.most_open,
            "connect_errors": self.connect_errors,
        }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.slowloris", description=__doc__)
    parser.add_argument("port", type=int)
    parser.add_argument("--connections", type=int, default=600)
    parser.add_argument("--source", default="127.0.0.1")
    parser.add_argument(
        "--reopen-per-s", type=float, default=float(os.environ.get("BENCH_REOPEN_PER_S", "2000"))
    )
    parser.add_argument("--seconds", type=float, default=None)
    args = parser.parse_args(argv)
    attack = Slowloris(args.port, args.connections, args.source, args.reopen_per_s)

    def stop(signum: int, frame: FrameType | None) -> None:
        attack.stop = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        attack.run(args.seconds)
    finally:
        attack.close()
    print(json.dumps(attack.figures()), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
