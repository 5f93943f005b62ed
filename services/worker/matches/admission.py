"""The gate before a match starts in a bot-calling process: at most the cap playing, starts paced.

The Celery thread of a match calls :meth:`Admission.enter` before it takes its bots' slots, and
:meth:`Admission.leave` once its match is over. ``enter`` blocks while as many matches play as
the cap (:class:`~services.worker.matches.active_cap.ActiveCap`) allows; the cap is updated on every lag
sample of the process's loop (:meth:`Admission.observe`, called from the loop's thread). A
waiting match has its message (received, unacknowledged: a killed worker's matches are
delivered again) and nothing else: no slot, no connection, no coroutine.

Waiting threads queue on one lock; only its holder looks at the cap (woken when a match ends or
the cap grows, else every :data:`POLL_S`), and it keeps the lock :data:`START_EVERY_S` after
its match starts, so starts are spaced: a loop with room is never handed hundreds at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from services.worker.matches.active_cap import ActiveCap

START_EVERY_S = 0.005  # at most 200 starts a second
POLL_S = 0.05


@dataclass(frozen=True, slots=True)
class AdmissionFigures:
    """What the gate saw so far (for logs and tests)."""

    playing: int
    waiting: int
    cap: int
    peak_cap: int
    peak_playing: int
    peak_waiting: int
    cuts: int
    late_ms: float
    """The last lag sample."""


class Admission:
    """At most ``cap.limit`` matches of this process play at once (see the module docstring)."""

    def __init__(
        self,
        cap: ActiveCap | None = None,
        *,
        start_every_s: float = START_EVERY_S,
        pause: Callable[[float], None] = time.sleep,
    ):
        """``pause`` is how the holder of the turn waits :data:`START_EVERY_S` after its start
        (tests pass one that also notes when each start happened)."""
        self._cap = cap or ActiveCap()
        self._start_every_s = start_every_s
        self._pause = pause
        self._state = threading.Lock()  # guards the counts and the cap
        self._turn = threading.Lock()  # the waiting threads' queue: its holder is next
        self._room = threading.Event()
        self._playing = 0
        self._waiting = 0
        self._peak_playing = 0
        self._peak_waiting = 0
        self._late_ms = 0.0

    def enter(self) -> float:
        """Block until this match may start; it then counts as playing until :meth:`leave`.
        Returns the seconds waited."""
        began = time.monotonic()
        with self._state:
            self._waiting += 1
            self._peak_waiting = max(self._peak_waiting, self._waiting)
        taken = False
        try:
            with self._turn:
                while not self._take():
                    self._room.wait(POLL_S)
                taken = True
                self._pause(self._start_every_s)  # the next one starts a moment later
        except BaseException:  # a shutdown, a time limit: this match neither waits nor plays
            if taken:
                self.leave()
            else:
                with self._state:
                    self._waiting -= 1
            raise
        return time.monotonic() - began

    def _take(self) -> bool:
        with self._state:
            if self._playing >= self._cap.limit:
                self._room.clear()
                return False
            self._waiting -= 1
            self._playing += 1
            self._peak_playing = max(self._peak_playing, self._playing)
            return True

    def leave(self) -> None:
        """A match that :meth:`enter` let in is over."""
        with self._state:
            self._playing -= 1
            self._room.set()

    def observe(self, late_ms: float) -> None:
        """A lag sample of the loop the matches play on (how late it ran a timer, in ms)."""
        with self._state:
            before = self._cap.limit
            self._late_ms = late_ms
            if self._cap.update(late_ms, self._playing, self._waiting) > before:
                self._room.set()

    def figures(self) -> AdmissionFigures:
        with self._state:
            return AdmissionFigures(
                playing=self._playing,
                waiting=self._waiting,
                cap=self._cap.limit,
                peak_cap=self._cap.peak,
                peak_playing=self._peak_playing,
                peak_waiting=self._peak_waiting,
                cuts=self._cap.cuts,
                late_ms=round(self._late_ms, 1),
            )
