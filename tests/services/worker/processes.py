"""Helpers for tests that start real processes: a Celery worker, the API, the launcher.

Every process :func:`start` starts runs in a session (process group) of its own and is
remembered until :func:`stop` stops it; whatever is still running when the test process ends
is killed with its whole group: at exit (a test interrupted with Ctrl-C, whose fixtures'
``finally`` did not get to it), on SIGTERM or SIGHUP (``timeout``, a closed terminal, a CI
job cancelled), and, started from the main thread, by the kernel when the test process dies
outright (``kill -9``: ``bench/exit_with_parent.py``'s ``PR_SET_PDEATHSIG``)."""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

import anyio
import asyncpg
import httpx

from services.launch.embedded._process import pid_alive
from services.worker import command
from truco_cli.api import tls_context


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


GUARD = Path(__file__).resolve().parents[3] / "bench" / "exit_with_parent.py"
_LIVE: dict[int, subprocess.Popen[bytes]] = {}
"""Every process started and not yet stopped, by pid (its process group's id)."""
_LOCK = threading.Lock()
_HOOKED: list[bool] = []


def reap_all() -> list[int]:
    """SIGKILL the process group of every process started and not stopped; their pids."""
    with _LOCK:
        found = list(_LIVE.values())
        _LIVE.clear()
    for process in found:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
    for process in found:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(5)
    return [process.pid for process in found]


def _on_signal(signum: int, frame: FrameType | None) -> None:
    reap_all()
    previous = _PREVIOUS.get(signum)
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signum, signal.SIG_DFL)  # die of it, as without this hook
    os.kill(os.getpid(), signum)


_PREVIOUS: dict[int, Any] = {}


def _hook_exit() -> None:
    """Once per test process, from the main thread: reap at exit and on SIGTERM/SIGHUP."""
    if _HOOKED or threading.current_thread() is not threading.main_thread():
        return
    _HOOKED.append(True)
    atexit.register(reap_all)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        _PREVIOUS[signum] = signal.getsignal(signum)
        signal.signal(signum, _on_signal)


def start(argv: list[str], env: Mapping[str, str], log: Path) -> subprocess.Popen[bytes]:
    """``argv`` in a session of its own, output to ``log``, killed with this process (above)."""
    _hook_exit()
    if threading.current_thread() is threading.main_thread():
        # the kernel ties PR_SET_PDEATHSIG to the thread that started the child
        argv = [sys.executable, str(GUARD), str(os.getpid()), *argv]
    with log.open("ab") as handle:
        process = subprocess.Popen(
            argv,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    with _LOCK:
        _LIVE[process.pid] = process
    return process


def forget(process: subprocess.Popen[bytes]) -> None:
    """``process`` is gone (killed and waited for by its test): no longer reaped."""
    with _LOCK:
        _LIVE.pop(process.pid, None)


def lower_priority(pid: int, nice: int) -> None:
    """Give the session (process group) of ``pid`` a lower CPU share.

    ``nice`` alone is not enough here: with the kernel's scheduler autogroups (on by default,
    ``/proc/sys/kernel/sched_autogroup_enabled``) every session started with
    ``start_new_session`` competes as ONE group, with an equal share whatever its processes'
    nice values; a nice value only orders processes inside their own group. The group's
    weight is set through ``/proc/PID/autogroup``. Without autogroups, run the command under
    ``nice -n`` as well (callers do both)."""
    path = Path(f"/proc/{pid}/autogroup")
    if path.exists():
        with contextlib.suppress(OSError):  # an exited process, or a kernel that refuses
            path.write_text(str(nice))


def stop(process: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(5)
    # what it started in its group and left behind (a uvicorn reloader's child, a pool process)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    forget(process)


def wait_for(check: Callable[[], bool], timeout: float, what: str, log: Path | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            tail = log.read_text(errors="replace")[-3000:] if log and log.exists() else ""
            raise AssertionError(f"{what} not within {timeout}s\n{tail}")
        time.sleep(0.1)


async def wait_for_row(pool: asyncpg.Pool, query: str, *args: Any, timeout: float = 60) -> None:
    """Wait until ``query`` (one value) is true in the database, polled by a running test."""
    deadline = time.monotonic() + timeout
    while not await pool.fetchval(query, *args):
        assert time.monotonic() < deadline, f"timed out waiting for: {query} {args}"
        await anyio.sleep(0.1)


def poll_get(url: str, timeout: float = 5) -> httpx.Response:
    """GET ``url`` for a poll, on the process's one TLS context: httpx's default builds one for
    each call (the CA bundle loaded: 18 ms of CPU, against 0.2 ms for the whole call on a
    kept one), which a poll every 0.1 s paid over and over."""
    return httpx.get(url, timeout=timeout, trust_env=False, verify=tls_context())


def answers(url: str) -> bool:
    """``url`` answers 200 (false while the server is not up yet)."""
    try:
        return poll_get(url).status_code == 200
    except httpx.HTTPError:
        return False


@contextlib.contextmanager
def api_process(env: Mapping[str, str], log: Path) -> Iterator[str]:
    """The platform's app (``services.launch.app:app_from_env`` under uvicorn) as a process on
    127.0.0.1 with ``env``: yields its base URL once ``/health`` answers (it answers 503 until
    a worker is up: start the worker first); stopped on leaving."""
    port = free_port()
    argv = [sys.executable, "-m", "uvicorn", "--factory", "services.launch.app:app_from_env"]
    process = start(
        [*argv, "--host", "127.0.0.1", "--port", str(port)], {**env, "PORT": str(port)}, log
    )
    try:
        url = f"http://127.0.0.1:{port}"
        wait_for(lambda: answers(f"{url}/health"), 30, "the API", log)
        yield url
    finally:
        stop(process)


def worker_argv(queues: str, name: str) -> list[str]:
    return command.worker_argv(sys.executable, queues, f"{name}@%h", 6)


@contextlib.contextmanager
def celery_worker(
    env: Mapping[str, str], log: Path, queues: str = "matches,ladder,results"
) -> Iterator[subprocess.Popen[bytes]]:
    process = start(worker_argv(queues, f"test-{os.getpid()}-{time.monotonic_ns()}"), env, log)
    try:
        wait_for(lambda: " ready." in log.read_text(errors="replace"), 30, "celery worker", log)
        yield process
    finally:
        stop(process)


def descendants(root: int) -> set[int]:
    """Every process below ``root`` (Linux /proc scan, no psutil)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def process_groups_alive(groups: set[int]) -> set[int]:
    """Live processes whose process group is one of ``groups``."""
    alive = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        if fields[0] != "Z" and int(fields[2]) in groups and pid_alive(int(entry.name)):
            alive.add(int(entry.name))
    return alive
