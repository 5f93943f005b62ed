"""The platform's processes for a benchmark: the API (:func:`bench.serve.start_api`), Celery
workers, each in a session of its own that cannot outlive the bench.

Every process is started with ``start_new_session`` (so its whole group can be killed) and
with ``PR_SET_PDEATHSIG`` = SIGKILL (Linux: the kernel kills it if the bench dies, even by
``kill -9``). :meth:`Procs.close` (run from a ``finally``) sends SIGTERM to every group, then
SIGKILL to what is left. ``cpu_s`` reads a process's CPU seconds (with its descendants') from
``/proc``.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from services.launch.embedded._process import die_with_parent
from services.worker.command import worker_argv


def orphan_proof() -> dict[str, object]:
    """``Popen`` keyword arguments: its own session, killed with the bench."""
    return {"start_new_session": True, "preexec_fn": die_with_parent(signal.SIGKILL)}


def _stat(pid: int) -> list[str] | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None


def own_cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of one process so far; 0 if it is gone."""
    fields = _stat(pid)
    if fields is None:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children() -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (fields := _stat(int(entry.name))) is not None:
            found.setdefault(int(fields[1]), []).append(int(entry.name))
    return found


def cpu_s(pid: int) -> float:
    """CPU seconds of ``pid`` and every process below it."""
    children, todo, total = _children(), [pid], 0.0
    while todo:
        current = todo.pop()
        total += own_cpu_s(current)
        todo += children.get(current, [])
    return total


class Procs:
    """The processes of one run, their logs under ``logs``, run from the checkout ``root``;
    all stopped by :meth:`close`."""

    def __init__(self, logs: Path, root: Path) -> None:
        logs.mkdir(parents=True, exist_ok=True)
        self.logs = logs
        self.root = root  # the checkout whose platform runs (``python -m`` imports from cwd)
        self.running: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, argv: list[str], env: Mapping[str, str]) -> subprocess.Popen[bytes]:
        with (self.logs / f"{name}.log").open("ab") as log:
            process = subprocess.Popen(
                argv,
                env=dict(env),
                cwd=self.root,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=die_with_parent(signal.SIGKILL),
            )
        self.running[name] = process
        return process

    def log(self, name: str) -> str:
        path = self.logs / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def wait_for(self, name: str, ready: str, timeout: float = 60.0) -> None:
        """Until ``ready`` is in the process's log; raises with the log's tail if it died."""
        deadline = time.monotonic() + timeout
        while ready not in self.log(name):
            if self.running[name].poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start:\n{self.log(name)[-3000:]}")
            time.sleep(0.1)

    def celery_worker(
        self, name: str, queue: str, concurrency: int, env: Mapping[str, str]
    ) -> subprocess.Popen[bytes]:
        argv = worker_argv(
            sys.executable, queue, f"{name}-{os.getpid()}@%h", concurrency, heartbeat=False
        )
        process = self.start(name, argv, env)
        self.wait_for(name, " ready.")
        return process

    def close(self) -> None:
        for process in self.running.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        for process in self.running.values():
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(5)

    def __enter__(self) -> Procs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
