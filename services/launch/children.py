"""The launcher's child processes: each the leader of its own process group, logging to a file,
stopped with SIGTERM to its group and SIGKILL after a grace period (``services.launch.local``)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from services.launch.embedded._process import die_with_parent

STOP_GRACE_S = 8.0


class LaunchError(RuntimeError):
    """A child process did not start or died; the message says which and where its log is."""


@dataclass
class Child:
    name: str
    argv: list[str]
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    def log_tail(self, lines: int = 15) -> str:
        try:
            tail = self.log_path.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            return ""
        return "\n".join(f"    {line}" for line in tail)


@dataclass
class Children:
    """Child processes, each the leader of its own process group."""

    log_dir: Path
    started: list[Child] = field(default_factory=list)

    def start(self, name: str, argv: Sequence[str], env: Mapping[str, str]) -> Child:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log_path = self.log_dir / f"{name}.log"
        preexec = None
        if threading.current_thread() is threading.main_thread() and sys.platform == "linux":
            preexec = die_with_parent(signal.SIGTERM)
        with log_path.open("ab") as log:
            log.write(f"\n=== {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(argv)}\n".encode())
            log.flush()
            process = subprocess.Popen(
                list(argv),
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=dict(env),
                start_new_session=True,  # its own group: Ctrl-C reaches only us; we stop it
                preexec_fn=preexec,
            )
        child = Child(name, list(argv), process, log_path)
        self.started.append(child)
        return child

    def stop(self, child: Child) -> None:
        self._stop([child])
        self.started.remove(child)

    def first_dead(self) -> Child | None:
        for child in self.started:
            if child.process.poll() is not None:
                return child
        return None

    def stop_all(self, grace_s: float = STOP_GRACE_S) -> None:
        self._stop(list(reversed(self.started)), grace_s)
        self.started.clear()

    @staticmethod
    def _stop(children: list[Child], grace_s: float = STOP_GRACE_S) -> None:
        for child in children:
            _signal_group(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        for child in children:
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.process.wait(timeout=max(0.0, deadline - time.monotonic()))
        for child in children:  # the group too: a worker's pool processes, if any
            _signal_group(child.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.process.wait(timeout=5)


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)
