"""What one worker process keeps between its tasks, in one object (the API keeps its own in
``Services``, in its app's state): Redis clients, the live feed's queued writer, the watch on
stop flags, the matches' admission gate, the process's event loops, the trusted worker's
database runtime.

Each is made on first use under a name and a key (what it was made for: a URL, a prefix, a
loop) and kept; a different key makes a new one (the settings changed, as tests change them).
The object belongs to one process: :attr:`services.worker.app.WorkerApp.resources` makes a new
one after a fork, since threads, loops and sockets do not cross it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable
from typing import TypeVar, cast

from services.worker.loop_thread import LoopThread

T = TypeVar("T")


class Resources:
    """This process's kept values, by name (see the module docstring)."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._lock = threading.RLock()  # a value's maker may ask for another one
        self._kept: dict[str, tuple[Hashable, object]] = {}

    def kept(
        self,
        name: str,
        key: Hashable,
        make: Callable[[], T],
        *,
        replaced: Callable[[T], None] | None = None,
    ) -> T:
        """The value kept as ``name`` for ``key``, made by ``make()`` on first use and again
        when the key changes (``replaced`` is then given the old one, to close it)."""
        with self._lock:
            found = self._kept.get(name)
            if found is not None and found[0] == key:
                return cast(T, found[1])
            value = make()
            self._kept[name] = (key, value)
        if found is not None and replaced is not None:
            replaced(cast(T, found[1]))
        return value

    def loop(self, name: str) -> LoopThread:
        """This process's event loop called ``name`` (in a daemon thread of its own)."""
        return self.kept(f"loop:{name}", None, lambda: LoopThread(name))
