"""The API for a benchmark, served by uvicorn on 127.0.0.1: in a thread of the bench's own process
(:func:`in_thread`, so its CPU and memory are the bench's) or as a process of a run
(:func:`start_api`, one of :class:`~bench.platform_procs.Procs`). Every bench that serves the
API does it through here.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import httpx
import uvicorn

from bench.platform_procs import Procs
from services.base.config import RateLimits, Settings
from services.launch.embedded._process import choose_port

UVICORN_FACTORY = ("-m", "uvicorn", "--factory", "services.launch.app:app_from_env")
"""The platform's API as ``services.launch`` runs it (uvicorn's defaults, no server limits)."""
SERVED = ("-m", "services.api.serve")
"""The API as served in production, with the server's limits (``services.api.serve``)."""
_TRIES = 5  # ports tried when the one chosen was taken meanwhile


def api_app(settings: Settings) -> Any:
    """The platform's app for ``settings``, the per-address budgets off (a bench's clients all
    come from 127.0.0.1)."""
    from services.launch.app import create_app

    return create_app(settings, rate_limits=RateLimits(enabled=False))


@contextmanager
def in_thread(app: Any, timeout: float = 30.0) -> Iterator[str]:
    """Serve ``app`` on a free port from a daemon thread of this process: its base URL once
    uvicorn listens; stopped (lifespan shutdown included) on the way out."""
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + timeout
        while not server.started:
            if time.monotonic() > deadline or not thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(10)


def start_api(
    procs: Procs,
    env: Mapping[str, str],
    *,
    argv: Sequence[str] = UVICORN_FACTORY,
    health: bool = True,
    timeout: float = 60.0,
) -> str:
    """Start ``python <argv> --host 127.0.0.1 --port P --no-access-log`` as the run's process
    ``api`` on a free port (another, if that one was taken meanwhile): its base URL once its own
    log says uvicorn listens there (so this process, not another, answers), and with ``health``
    once ``/health`` answers 200 too (start a worker first)."""
    for _ in range(_TRIES):
        port = choose_port(())
        seen = len(procs.log("api"))
        command = [sys.executable, *argv, "--host", "127.0.0.1", "--port", str(port)]
        process = procs.start("api", [*command, "--no-access-log"], {**env, "PORT": str(port)})
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + timeout
        while f"Uvicorn running on {url}" not in procs.log("api")[seen:]:
            if process.poll() is not None or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        else:
            while health and not _answers(f"{url}/health"):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"the API did not start:\n{procs.log('api')[-3000:]}")
                time.sleep(0.2)
            return url
        if "address already in use" not in procs.log("api")[seen:].lower():
            break
    raise RuntimeError(f"the API did not start:\n{procs.log('api')[-3000:]}")


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, timeout=5, trust_env=False).status_code == 200
    except httpx.HTTPError:
        return False
