"""The answers of live pages' polls (``/tournaments/{id}/live``, ``/matches/{id}/live``), kept
:data:`~services.web.page_cache.LIVE_S` per page in this process (issue 33, 8: each answer of a
780-match event aggregated every match's state, 2,986 answers in 20 s from one address): a
burst of polls of one page costs one read a second, whoever sends them. Kept by the same
:class:`~services.web.memo.Memo` as the pages, a few hundred bytes each."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from litestar import Request

from services.web.pages.memo import Memo
from services.web.pages.page_cache import LIVE_S

STATE_KEY = "live_polls"
POLL_ANSWERS = 10_000
"""Poll answers one API process keeps (each a version string and a flag)."""


Answer = tuple[str, bool] | None


def _polls(request: Request[Any, Any, Any]) -> Memo[tuple[Answer]]:
    state = request.app.state
    memo = state.get(STATE_KEY)
    if memo is None:
        memo = state[STATE_KEY] = Memo(POLL_ANSWERS, weigh=lambda _: 1, keep_s=lambda _: LIVE_S)
    assert isinstance(memo, Memo)
    return memo


async def poll_answer(
    request: Request[Any, Any, Any],
    key: tuple[str, int],
    read: Callable[[], Awaitable[Answer]],
) -> Answer:
    """``(version, live)`` of the page ``key`` names (None: no such page, kept too), read at
    most once a second per page."""

    async def boxed() -> tuple[Answer]:
        return (await read(),)

    return (await _polls(request).value(key, boxed))[0]
