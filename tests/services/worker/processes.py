"""Helpers for tests that start real processes: a Celery worker, the API, the launcher."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
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


def start(argv: list[str], env: Mapping[str, str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as handle:
        return subprocess.Popen(
            argv,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


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
