"""Pairing off the event loop: a format's next step is computed in a worker thread.

Pairing is pure CPU (a blossom matching; individual 2v2 of 1,000 bots took 3.1 s on the
complete graph). Run on the API's event loop it held every other request for that long
(issue 21, break 4). :func:`plan_off_loop` runs it in one thread per process, so pairings of
one process run one after another while the loop keeps answering, and waits at most
:data:`PAIRING_DEADLINE_S`: past it the caller gets :class:`PairingTimedOut` (its transaction
rolls back; the thread finishes its pairing and the result is dropped).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from services.flow.errors import FlowError

PAIRING_DEADLINE_S = 120.0
"""The longest a start or an advance waits for its pairing (10,000 bots take a few seconds)."""

_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="truco-pairing")

T = TypeVar("T")


class PairingTimedOut(FlowError):
    """The pairing took longer than :data:`PAIRING_DEADLINE_S` (the API answers 503)."""


async def plan_off_loop(plan: Callable[[], T], deadline_s: float = PAIRING_DEADLINE_S) -> T:
    """``plan()`` in the pairing thread, awaited up to ``deadline_s``."""
    future = asyncio.get_running_loop().run_in_executor(_EXECUTOR, plan)
    try:
        return await asyncio.wait_for(future, deadline_s)
    except TimeoutError:
        raise PairingTimedOut(
            f"pairing the next round took longer than {deadline_s:g} s; try again later"
        ) from None
