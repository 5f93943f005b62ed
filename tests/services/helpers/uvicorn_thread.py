"""An ASGI app served by uvicorn on 127.0.0.1 in a thread of the test process: the one way the
tests start a server in process (the API's limits, the pages, the streams)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import uvicorn

START_GUARD_S = 30.0
"""How long a server may take to start before the test calls it broken: a hang guard."""


def local_server(app: Any, port: int = 0, *, lifespan: str = "on") -> uvicorn.Server:
    """A uvicorn server for ``app`` on 127.0.0.1 (``port`` 0: a free one), quiet but warnings."""
    return uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan=lifespan)
    )


def start(server: uvicorn.Server) -> tuple[threading.Thread, int]:
    """Run ``server`` in a daemon thread until it listens; the thread and its port."""
    thread = threading.Thread(target=server.run, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_GUARD_S
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    port: int = server.servers[0].sockets[0].getsockname()[1]
    return thread, port


def stop(server: uvicorn.Server, thread: threading.Thread) -> None:
    server.should_exit = True
    thread.join(15)


def served_app(app: Any, port: int = 0) -> tuple[uvicorn.Server, threading.Thread, int]:
    """``app`` served in a thread (lifespan on): the server, its thread and its port."""
    server = local_server(app, port)
    thread, bound = start(server)
    return server, thread, bound


@contextlib.contextmanager
def serving(app: Any, *, lifespan: str = "on") -> Iterator[str]:
    """``app`` served in a thread while the block runs; yields its base URL."""
    server = local_server(app, lifespan=lifespan)
    thread, port = start(server)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        stop(server, thread)
