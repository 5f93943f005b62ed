"""The life cycle every embedded server shares: find, reuse or adopt, start, stop."""

from __future__ import annotations

import abc
import atexit
import logging
import os
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Literal, Self

import msgspec

from services.launch.embedded._process import (
    EmbeddedServerError,
    choose_port,
    file_lock,
    pid_alive,
    stop_pid,
    wait_for,
)

logger = logging.getLogger(__name__)

StartMode = Literal["started", "reused", "adopted"]


class ServerState(msgspec.Struct, omit_defaults=True):
    """What we remember about a server between runs (``<root>/server.json``)."""

    port: int | None = None
    pid: int | None = None
    owner_pid: int | None = None


class EmbeddedServer(abc.ABC):
    """One server process whose files live under ``root``.

    ``start()`` returns the URL. If a server is already running on these files it is reused
    (its owner stays in charge of stopping it) or, when the process that started it is gone,
    adopted (we stop it when we stop). Otherwise a new process is started as our child; we
    own it and ``stop()`` (or interpreter exit) stops it. Data is kept between runs.
    """

    kind: ClassVar[str]
    default_port: ClassVar[int]
    stop_signal: ClassVar[int]

    def __init__(
        self,
        root: Path,
        *,
        port: int | None = None,
        startup_timeout: float = 60.0,
        stop_timeout: float = 30.0,
    ) -> None:
        self.root = root.expanduser().resolve()
        self.requested_port = port
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self.mode: StartMode | None = None
        self.startup_seconds: float | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._pid: int | None = None
        self._port: int | None = None

    # -- what subclasses provide -------------------------------------------------------------

    @abc.abstractmethod
    def _find_running(self, state: ServerState) -> tuple[int, int] | None:
        """(pid, port) of a healthy server already running on our files, if any."""

    @abc.abstractmethod
    def _launch(self, port: int) -> subprocess.Popen[bytes]:
        """Prepare the files if needed and start the server process on ``port``."""

    @abc.abstractmethod
    def _ready(self, port: int) -> bool:
        """True once the server answers on ``port``."""

    @abc.abstractmethod
    def _url(self, port: int) -> str:
        """The client URL for a server on ``port``."""

    def _after_start(self, port: int) -> None:  # noqa: B027 - optional hook
        """Runs once the server answers (still under the start lock)."""

    @property
    def log_path(self) -> Path:
        return self.root / f"{self.kind}.log"

    # -- public surface ---------------------------------------------------------------------

    @property
    def owned(self) -> bool:
        """True when this handle is responsible for stopping the server."""
        return self.mode in ("started", "adopted")

    @property
    def running(self) -> bool:
        return self._pid is not None and pid_alive(self._pid)

    @property
    def pid(self) -> int | None:
        return self._pid

    @property
    def port(self) -> int:
        if self._port is None:
            raise EmbeddedServerError(f"embedded {self.kind} is not started")
        return self._port

    @property
    def url(self) -> str:
        return self._url(self.port)

    def start(self) -> str:
        """Make sure the server runs and return its URL."""
        if self.mode is not None and self.running:
            return self.url
        began = time.monotonic()
        self.root.mkdir(parents=True, exist_ok=True)
        with file_lock(self.root / ".lock"):
            state = self._read_state()
            found = self._find_running(state)
            if found is not None:
                pid, port = found
                me = os.getpid()
                owner = state.owner_pid
                orphan = state.pid == pid and (owner is None or not pid_alive(owner))
                if owner == me or not orphan:
                    self.mode = "reused"
                else:
                    self.mode = "adopted"
                    logger.info("adopting orphaned embedded %s (pid %s)", self.kind, pid)
                    self._write_state(ServerState(port=port, pid=pid, owner_pid=me))
                self._pid, self._port = pid, port
            else:
                # 0 asks for any free port; else the one asked for, the last run's, the usual
                # one, in that order, the first of them free (else any free port)
                wanted = [self.requested_port, state.port, self.default_port]
                port = choose_port([] if self.requested_port == 0 else wanted)
                process = self._launch(port)
                self._process = process
                try:
                    wait_for(
                        lambda: self._ready(port),
                        timeout=self.startup_timeout,
                        what=f"embedded {self.kind}",
                        process=process,
                        log_path=self.log_path,
                    )
                except BaseException:
                    stop_pid(process.pid, sig=self.stop_signal, timeout=5.0, process=process)
                    self._process = None
                    raise
                self.mode = "started"
                self._pid, self._port = process.pid, port
                self._write_state(ServerState(port=port, pid=process.pid, owner_pid=os.getpid()))
                self._after_start(port)
        self.startup_seconds = time.monotonic() - began
        if self.owned:
            atexit.register(self.stop)
        logger.info(
            "embedded %s %s on port %s in %.2fs",
            self.kind,
            self.mode,
            self._port,
            self.startup_seconds,
        )
        return self.url

    def stop(self) -> None:
        """Stop the server if this handle owns it; a reused server is left running."""
        if not self.owned or self._pid is None:
            self.mode = None
            return
        atexit.unregister(self.stop)
        with file_lock(self.root / ".lock"):
            stop_pid(
                self._pid, sig=self.stop_signal, timeout=self.stop_timeout, process=self._process
            )
            self._write_state(ServerState(port=self._port))
        logger.info("embedded %s stopped", self.kind)
        self._process = None
        self._pid = None
        self.mode = None

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

    # -- state file -------------------------------------------------------------------------

    @property
    def _state_path(self) -> Path:
        return self.root / "server.json"

    def _read_state(self) -> ServerState:
        try:
            return msgspec.json.decode(self._state_path.read_bytes(), type=ServerState)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return ServerState()

    def _write_state(self, state: ServerState) -> None:
        tmp = self._state_path.with_suffix(".tmp")
        tmp.write_bytes(msgspec.json.encode(state))
        tmp.replace(self._state_path)
