"""How ``make run``'s launcher stops: SIGTERM and Ctrl-C (even inherited ignored) end it
through its ``finally`` blocks; while it stops, both are ignored."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(0)


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_exits() -> Iterator[None]:
    """SIGTERM -> SystemExit(0); SIGINT -> KeyboardInterrupt even when started with it ignored
    (a background job of a script): either stops everything through the ``finally`` blocks."""
    previous = signal.signal(signal.SIGTERM, _on_sigterm), signal.signal(signal.SIGINT, _on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous[0])
        signal.signal(signal.SIGINT, previous[1])


def ignore_stop_signals() -> None:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
