"""The command lines of ``make run``'s children (the API, the workers, beat, the house bots)
and waiting until one is ready."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from services.launch.children import Child, LaunchError
from services.worker import command

LOOPBACK = "127.0.0.1"
READY_TIMEOUT_S = 90.0
"""How long ``make run`` waits for a child to answer before it gives up."""


def _python() -> str:
    return sys.executable


def api_argv(port: int) -> list[str]:
    return [
        _python(),
        "-m",
        "services.api.serve",  # uvicorn with the API's limits (slow clients, connections)
        "--host",
        LOOPBACK,
        "--port",
        str(port),
        "--no-access-log",
    ]


MATCHES_AT_ONCE = 1000
"""Matches the bot-calling worker plays at once: all on one event loop, a waiting thread each
(docs/architecture.md, "Execution model"; ``make bench`` measures 1,000 in one process)."""


def worker_argv(queue: str, concurrency: int) -> list[str]:
    return command.worker_argv(_python(), queue, f"{queue}-{os.getpid()}@%h", concurrency)


def beat_argv(data_dir: Path) -> list[str]:
    return [
        _python(),
        "-m",
        "celery",
        "-A",
        command.CELERY_APP,
        "beat",
        "--schedule",
        str(data_dir / "celerybeat-schedule"),
        "--loglevel=INFO",
    ]


def bot_argv(strategy: str, port: int, name: str) -> list[str]:
    """A house bot's command line: never its secret, which anyone can read in ``ps``; the
    secret goes in its environment (``bot_env``), readable only by this user."""
    return [
        _python(),
        "-m",
        "truco_cli.main",
        "bot",
        "serve",
        "--strategy",
        strategy,
        "--port",
        str(port),
        "--host",
        LOOPBACK,
        "--name",
        name,
    ]


def wait_until(ready: Any, *, what: str, child: Child | None, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if child is not None and child.process.poll() is not None:
            raise LaunchError(
                f"{what} exited with code {child.process.returncode} while starting; "
                f"last lines of {child.log_path}:\n{child.log_tail()}"
            )
        if time.monotonic() > deadline:
            tail = f"; last lines of {child.log_path}:\n{child.log_tail()}" if child else ""
            raise LaunchError(f"{what} not ready after {timeout:.0f}s{tail}")
        time.sleep(0.1)


def answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=2.0, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False
