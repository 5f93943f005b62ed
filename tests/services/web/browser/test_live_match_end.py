"""A live match page keeps the viewer's place when the match ends (issue 32 item 7): followed
live into its second game, the match ends, and the page shows the stored replay at the same
game and step (the address says ``?game=2&step=N``), not the first step of the first game; it
was seen jumping from game 6 step 191 to game 1 step 1. With the stream, and with the polling
fallback. In Chromium against uvicorn on 127.0.0.1, the live feed in a real Redis, the result
stored by the platform's own workflow."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import asyncpg
import msgspec
import pytest
import redis

from arena.client.connection import InProcessBot
from arena.match.replay import EntrantRecord, Replay
from arena.match.runner import MatchSettings, run_match
from arena.sdk import strategy_decider
from engine.rules import Rules
from services.live.feed import live_key
from services.live.publisher import LivePublisher
from tests.servers import RedisTarget
from tests.services.web.browser.test_live_pages import (  # noqa: F401 - the module's fixtures
    WAIT_MS,
    expect,
    feed,
    served,
)
from tests.services.web.conftest import WebData, error_free_page, run_async
from tests.services.web.live_rows import running_match
from tests.services.web.seed import NAMES
from tests.services.web.waits import eventually

pytestmark = pytest.mark.slow


@pytest.fixture
def tab(browser: Any, served: str) -> Iterator[Any]:  # noqa: F811
    with error_free_page(browser, served, viewport={"width": 390, "height": 900}) as page:
        yield page


def _match(web: WebData, seed: int) -> int:
    return running_match(web, NAMES[:2], seed=seed, games=2)


def _played(match_id: int) -> tuple[list[bytes], Replay, int]:
    """A real two-game match whose second game is long enough to follow: its live feed item
    by item (header first), its replay, and its seed (the first of a few that gives one)."""
    for seed in range(77, 97):
        publisher = LivePublisher(None, "", match_id)
        items = [msgspec.json.encode({"run": publisher.run, "header": True, "format": "x"})]

        def progress(
            index: int,
            state: Any,
            decision: Any,
            events: Any,
            into: list[bytes] = items,
            writer: LivePublisher = publisher,
        ) -> None:
            into.append(msgspec.json.encode(writer.item(index, state, decision, events)))

        bots = [
            (EntrantRecord(name, f"builtin:{name}"), InProcessBot(name, strategy_decider("heuristic", k)))
            for k, name in enumerate(NAMES[:2])
        ]  # fmt: skip
        settings = MatchSettings(rules=Rules(points_to_win=15), games_per_match=2)
        replay = run_async(run_match(str(match_id), seed, settings, bots, progress))
        if sum(_game_of(raw) == 2 for raw in items) >= 25:
            return items, replay, seed
    raise AssertionError("no seed gave a second game of 25 decisions")


def _finish(web: WebData, match_id: int, replay: Replay) -> None:
    """The result stored as the trusted worker stores it: the match is then done."""

    async def store() -> None:
        from services import flow
        from services.db.pool import create_pool

        pool = await create_pool(web.url, min_size=1, max_size=2)
        try:
            await flow.record_result(pool, match_id, replay)
        finally:
            await pool.close()

    run_async(store())


def _game_of(raw: bytes) -> int:
    game: int = msgspec.json.decode(raw).get("game", 0)
    return game


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "polling"])
def test_the_place_is_kept_when_the_match_ends(
    tab: Any,
    web_data: WebData,
    redis_target: RedisTarget,
    feed: redis.Redis,  # noqa: F811
    stream: bool,
) -> None:
    items, replay, seed = _played(0)
    mid = _match(web_data, seed)
    try:
        items, replay, _seed = _played(mid)  # the same match under its own id
        second = next(k for k, raw in enumerate(items) if k and _game_of(raw) == 2)
        key = live_key(redis_target.prefix, mid)
        feed.rpush(key, *items[: second + 5])
        if not stream:
            tab.add_init_script("delete window.EventSource")
        tab.goto(f"/matches/{mid}")
        assert tab.locator("#viewer").get_attribute("data-game") == "2"  # the latest game
        if stream:
            eventually(tab, "!!window.__trucoStream && window.__trucoStream.readyState === 1")
        before = tab.locator("#step-count").inner_text()
        feed.rpush(key, *items[second + 5 : second + 15])  # the viewer follows it live
        expect(tab.locator("#step-count")).not_to_have_text(before, timeout=WAIT_MS)
        if stream:  # every item pushed was received and shown (the table paces them)
            eventually(
                tab,
                "(() => { const m = document.getElementById('live');"
                f" return m.dataset.idle === '1' && m.dataset.last === '{second + 14}'; }})()",
            )
        else:  # the polled page is swapped whole, at its latest step
            eventually(
                tab,
                "(() => { const t = document.querySelector('#step-count').textContent.split('/');"
                " return t.length === 2 && parseInt(t[0]) === parseInt(t[1]); })()",
            )
        live_count = tab.locator("#step-count").inner_text()
        seen = int(live_count.split("/")[0])
        live_caption = tab.locator("#caption").inner_text()
        _finish(web_data, mid, replay)  # the match ends: done, its replay stored
        # the stored replay at the same place: the second game, the step the viewer was at
        expect(tab.locator("#viewer[data-steps]")).to_have_attribute(
            "data-game", "2", timeout=WAIT_MS
        )
        url = tab.url
        assert "game=2" in url and f"step={seen - 1}" in url, url
        count = tab.locator("#step-count").inner_text()
        assert int(count.split("/")[0]) == seen, (live_count, count)
        assert int(count.split("/")[1]) >= seen  # the whole game is there now
        assert tab.locator("#caption").inner_text() == live_caption
        expect(tab.locator("#viewer")).to_have_attribute("data-ready", "1", timeout=WAIT_MS)
    finally:
        _forget(web_data, mid)


def _forget(web: WebData, match_id: int) -> None:
    """Take the match out again, result and rating history too (other page tests count)."""

    async def forget() -> None:
        conn = await asyncpg.connect(web.url)
        try:
            for table in ("rating_history", "match_results"):
                await conn.execute(f"DELETE FROM {table} WHERE match_id = $1", match_id)
            await conn.execute("DELETE FROM matches WHERE id = $1", match_id)
        finally:
            await conn.close()

    run_async(forget())
