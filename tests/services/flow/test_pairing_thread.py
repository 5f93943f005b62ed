"""The pairing thread (services/flow/pairing.py): off the event loop, one at a time, and a
deadline that answers a clear 503 instead of holding the request."""

from __future__ import annotations

import asyncio
import threading

import pytest

from services.api.routes.tournaments import flow_problem
from services.flow.pairing import PairingTimedOut, plan_off_loop

pytestmark = pytest.mark.anyio


async def test_the_plan_runs_in_another_thread_while_the_loop_goes_on() -> None:
    loop_thread = threading.get_ident()
    release = threading.Event()
    ticks = 0

    def plan() -> int:
        release.wait(timeout=60)
        return threading.get_ident()

    planning = asyncio.ensure_future(plan_off_loop(plan))
    while ticks < 5:  # the loop keeps running coroutines while the plan is held
        await asyncio.sleep(0)
        ticks += 1
    assert not planning.done()
    release.set()
    assert await planning != loop_thread


async def test_past_the_deadline_is_a_503_problem() -> None:
    release = threading.Event()
    with pytest.raises(PairingTimedOut) as caught:
        await plan_off_loop(lambda: release.wait(timeout=60), deadline_s=0.05)
    release.set()  # the held plan ends; the thread is free for the next one
    assert await plan_off_loop(lambda: 7) == 7
    problem = flow_problem(caught.value)
    assert problem.status == 503
    assert "longer than 0.05 s" in str(caught.value)
