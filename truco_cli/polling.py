"""Waiting on the platform: fetch, check, sleep, until done or out of time.

One loop for every command that follows something to its end (``truco challenge --wait``,
``truco tournament watch``), so they share the same floor on the interval and the same
timeout rule: the deadline is checked after a fetch, never before the first one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from truco_cli.errors import CommandError

T = TypeVar("T")

MIN_INTERVAL_S = 0.2
"""No command polls the API more often than this, whatever ``--interval`` says."""


def poll_until(
    fetch: Callable[[], T],
    done: Callable[[T], bool],
    *,
    interval: float,
    timeout: float | None,
    still: Callable[[T], CommandError],
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Call ``fetch`` until ``done`` holds for what it returned, and return that. After
    ``timeout`` seconds (None: never), raise ``still(last)``: the error that says what the
    thing still was when the command gave up."""
    began = clock()
    while True:
        latest = fetch()
        if done(latest):
            return latest
        if timeout is not None and clock() - began > timeout:
            raise still(latest)
        sleep(max(MIN_INTERVAL_S, interval))
