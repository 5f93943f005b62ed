"""Waiting in a page for a condition, under the site's Content-Security-Policy.

Playwright's ``wait_for_function`` polls with an eval the pages' CSP forbids: when the
condition is already true it returns at once, when it is not (a loaded machine, a page still
updating) the poll raises ``EvalError``. A test failed that way on a loaded clean clone
(``test_a_crosstable_wider_than_a_phone_says_it_scrolls``). :func:`eventually` polls with
``page.evaluate``, which the CSP does not govern."""

from __future__ import annotations

import time
from typing import Any

WAIT_MS = 30_000
"""How long a condition may take before the test calls it never true: a hang guard."""


def eventually(page: Any, expression: str, arg: Any = None, *, timeout_ms: float = WAIT_MS) -> None:
    """Wait until ``expression`` (an expression, or a function of ``arg``) is true in ``page``."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(expression, arg):
        assert time.monotonic() < deadline, f"never true: {expression}"
        page.wait_for_timeout(50)


CLOCK_STEP_MS = 1000
"""How far :func:`eventually_ticking` moves a page's clock between two looks."""


def eventually_ticking(
    page: Any, expression: str, arg: Any = None, *, timeout_ms: float = WAIT_MS
) -> None:
    """:func:`eventually` in a page whose clock Playwright drives (``page.clock.install()``
    before it loads): between two looks the page's timers due in the next
    :data:`CLOCK_STEP_MS` fire, one task each, in order, without their delays being waited
    for in real time. The page's own pacing (an event a step, a hand's summary held) runs
    as in production, only faster than the wall clock."""
    deadline = time.monotonic() + timeout_ms / 1000
    while not page.evaluate(expression, arg):
        assert time.monotonic() < deadline, f"never true: {expression}"
        page.clock.run_for(CLOCK_STEP_MS)
        page.wait_for_timeout(40)  # the network (a stream's next message) in real time
