"""The pages apply pushed events in place and the replay plays itself (issue 23), in Chromium
against uvicorn on 127.0.0.1 with the live feed in a real Redis:

* a live match page follows ``/v1/matches/{id}/stream``: each item the worker writes becomes a
  line of the play-by-play, a card on the felt, a score, without re-rendering (the nodes the
  test marked survive), and no card shows before it is played;
* without ``EventSource`` the page falls back to polling and still updates;
* a finished match's replay steps, plays, pauses and changes speed in the page; the address
  follows the step; the keyboard steps and plays; an aria-live region says where it is.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import asyncpg
import msgspec
import pytest
import redis

from arena.client.connection import InProcessBot
from arena.match.replay import EntrantRecord
from arena.match.runner import MatchSettings, run_match
from arena.sdk import strategy_decider
from engine.rules import Rules
from services.live.feed import live_key
from services.live.publisher import LivePublisher
from tests.servers import RedisTarget
from tests.services.helpers.uvicorn_thread import served_app, serving
from tests.services.web.conftest import WebData, error_free_page, run_async, shot
from tests.services.web.live_rows import delete_match, live_app, running_match
from tests.services.web.seed import NAMES, STRATEGIES
from tests.services.web.waits import eventually, eventually_ticking

pytestmark = pytest.mark.slow  # run early (tests/slow_first.py)

expect = pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: Playwright is not installed"
).expect

WAIT_MS = 20_000


@pytest.fixture(scope="module")
def served(web_data: WebData, redis_target: RedisTarget) -> Iterator[str]:
    """The platform on 127.0.0.1 reading the live feed from the test Redis."""
    with serving(live_app(web_data, redis_target)) as base:
        yield base


@pytest.fixture
def tab(browser: Any, served: str) -> Iterator[Any]:
    with error_free_page(browser, served, viewport={"width": 1280, "height": 900}) as page:
        yield page


@pytest.fixture
def feed(redis_target: RedisTarget) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_target.url)
    yield client
    client.close()


def _items(match_id: int) -> list[bytes]:
    """A real match's live feed, item by item, as the worker would write it (header first)."""
    publisher = LivePublisher(None, "", match_id)
    items = [msgspec.json.encode({"run": publisher.run, "header": True, "format": "x"})]

    def progress(index: int, state: Any, decision: Any, events: Any) -> None:
        items.append(msgspec.json.encode(publisher.item(index, state, decision, events)))

    bots = [
        (
            EntrantRecord(name, f"builtin:{name}"),
            InProcessBot(name, strategy_decider(STRATEGIES[NAMES.index(name)], 5 + k)),
        )
        for k, name in enumerate(NAMES[:2])
    ]
    settings_ = MatchSettings(rules=Rules(points_to_win=15), games_per_match=1)
    run_async(run_match(f"m{match_id}", 99, settings_, bots, progress))
    return items


@pytest.fixture
def made(web_data: WebData) -> Iterator[list[int]]:
    """Matches the test makes, deleted afterwards."""
    found: list[int] = []
    yield found
    for mid in found:
        delete_match(web_data, mid)


def _played(items: list[bytes]) -> list[str]:
    cards = []
    for raw in items[1:]:
        for event in msgspec.json.decode(raw)["events"]:
            if event.get("type") == "action" and event.get("action") == "play":
                cards.append(event["card"])
    return cards


def _felt_cards(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#felt svg.card", "ns => ns.map(n => n.dataset.card)"))


def test_a_live_page_applies_each_pushed_event_in_place(
    tab: Any, web_data: WebData, redis_target: RedisTarget, feed: redis.Redis, made: list[int]
) -> None:
    mid = running_match(web_data, NAMES[:2])
    made.append(mid)
    items = _items(mid)
    key = live_key(redis_target.prefix, mid)
    first = 6
    feed.rpush(key, *items[:first])
    tab.clock.install()  # the spectator's pacing (live.js) runs on a clock the test moves on
    tab.goto(f"/matches/{mid}")
    assert tab.locator(".tabs.views a").all_inner_texts() == ["Spectator (live)"]
    eventually(tab, "!!window.__trucoStream && window.__trucoStream.readyState === 1")
    # mark the nodes an update must keep: a re-render would lose the marks
    tab.evaluate(
        """() => { window.__same_page = true;
                   document.querySelector('#timeline ol.timeline').dataset.mark = 'kept';
                   document.querySelector('#score').dataset.mark = 'kept'; }"""
    )
    rows_at_load = tab.locator("#hands tbody tr").count()
    for k in range(first, first + 30):
        before = tab.locator("#step-count").inner_text()
        feed.rpush(key, items[k])
        eventually_ticking(
            tab, "(b) => document.querySelector('#step-count').innerText !== b", before
        )
        # never a card in a hand, never a card on the felt before it was played
        assert tab.locator(".hand svg.card[data-card]").count() == 0
        assert set(_felt_cards(tab)) <= set(_played(items[: k + 1]))
    # every pushed item got in: the last card played is on the felt, its line in the timeline
    last_card = _played(items[: first + 30])[-1]
    felt = f'#felt svg.card[data-card="{last_card}"]'
    eventually_ticking(tab, "(f) => !!document.querySelector(f)", felt)
    assert tab.evaluate("document.querySelector('#score').dataset.mark") == "kept"
    assert tab.evaluate("window.__same_page") is True
    assert tab.evaluate("document.querySelector('#timeline ol.timeline').dataset.mark") == "kept"
    shot(tab, "live-match-streamed")
    # the script's lines read as the server's: a fresh load shows the same hand, score, caption
    # once the streamed page has shown every pushed event (a spectator's narration is paced)
    fresh = tab.context.new_page()
    try:
        fresh.goto(f"/matches/{mid}")
        served = _live_snapshot(fresh)
    finally:
        fresh.close()
    count = "(c) => document.querySelector('#step-count').innerText === c"
    eventually_ticking(tab, count, served["count"])
    streamed = _live_snapshot(tab)
    assert len(streamed["rows"]) > rows_at_load  # a hand ended while streamed
    assert streamed == served


def _live_snapshot(page: Any) -> dict[str, Any]:
    return {
        "timeline": page.locator("#timeline ol li").all_inner_texts(),
        "heading": page.locator("#timeline h2").inner_text(),
        "score": page.locator("#score").inner_text(),
        "caption": page.locator("#caption").inner_text(),
        "felt": _felt_cards(page),
        "backs": page.locator(".hand svg.card.back").count(),
        "count": page.locator("#step-count").inner_text(),
        "rows": page.locator("#hands tbody tr").all_inner_texts(),
        "on": page.locator("#hands tbody tr.on").count(),
    }


def test_a_live_page_without_eventsource_polls(
    tab: Any, web_data: WebData, redis_target: RedisTarget, feed: redis.Redis, made: list[int]
) -> None:
    mid = running_match(web_data, NAMES[:2])
    made.append(mid)
    items = _items(mid)
    key = live_key(redis_target.prefix, mid)
    feed.rpush(key, *items[:4])
    tab.add_init_script("delete window.EventSource")
    tab.clock.install()  # the page polls every 4 s (live.js): on a clock the test moves on
    tab.goto(f"/matches/{mid}")
    count = tab.locator("#step-count").inner_text()
    feed.rpush(key, *items[4:10])
    eventually_ticking(tab, "(c) => document.querySelector('#step-count').innerText !== c", count)
    assert tab.evaluate("window.__trucoStream === undefined")
    assert tab.locator(".hand svg.card[data-card]").count() == 0


def _ready(page: Any) -> None:
    expect(page.locator("#viewer")).to_have_attribute("data-ready", "1", timeout=WAIT_MS)


def _step_of(page: Any) -> int:
    return int(page.locator("#step-count").inner_text().split("/")[0]) - 1


def test_the_replay_steps_plays_and_the_address_follows(tab: Any, web_data: WebData) -> None:
    s = web_data.seeded
    tab.clock.install()  # the player's timers run on a clock the test moves on
    tab.goto(f"/matches/{s.replay_match}")
    _ready(tab)
    tab.evaluate(
        "() => { window.__same_page = true;"
        " document.querySelector('#table').dataset.mark = 'kept'; }"
    )
    expect(tab.locator("#player")).to_be_visible()
    tab.locator("#next").click()
    assert _step_of(tab) == 1
    assert "step=1" in tab.url
    # the keyboard: → steps, End goes to the last event, Home back to the first
    tab.keyboard.press("ArrowRight")
    assert _step_of(tab) == 2 and "step=2" in tab.url
    tab.keyboard.press("End")
    total = int(tab.locator("#step-count").inner_text().split("/")[1])
    assert _step_of(tab) == total - 1
    tab.keyboard.press("Home")
    assert _step_of(tab) == 0 and "step=0" in tab.url
    # the same table as the server renders for that step
    tab.keyboard.press("PageDown")
    at = _step_of(tab)
    assert at > 0
    score = tab.locator("#score").inner_text()
    caption = tab.locator("#caption").inner_text()
    felt = _felt_cards(tab)
    hand_cards = tab.locator("#seat-0 .hand svg.card[data-card]").count()
    # play at 4×: the step moves on by itself, the address follows; pause stops it
    tab.select_option("#speed", "4")
    tab.locator("#play").click()
    expect(tab.locator("#play")).to_have_attribute("aria-pressed", "true")
    eventually_ticking(tab, f"window.__trucoPlayer.step() >= {at + 3}")
    tab.locator("#play").click()
    expect(tab.locator("#play")).to_have_attribute("aria-pressed", "false")
    stopped = _step_of(tab)
    assert f"step={stopped}" in tab.url
    tab.clock.run_for(1200)  # every timer due in 1.2 s fires
    assert _step_of(tab) == stopped  # paused: it stays
    expect(tab.locator("#announce")).to_contain_text(f"{stopped + 1}")
    # P plays and pauses too
    tab.keyboard.press("p")
    expect(tab.locator("#play")).to_have_attribute("aria-pressed", "true")
    tab.keyboard.press("p")
    expect(tab.locator("#play")).to_have_attribute("aria-pressed", "false")
    assert tab.evaluate("window.__same_page") is True
    assert tab.evaluate("document.querySelector('#table').dataset.mark") == "kept"
    # the server renders the same step the same (a link, or no JavaScript)
    tab.goto(f"/matches/{s.replay_match}?game=1&step={at}&view=all")
    assert tab.locator("#score").inner_text() == score
    assert tab.locator("#caption").inner_text() == caption
    assert _felt_cards(tab) == felt
    assert tab.locator("#seat-0 .hand svg.card[data-card]").count() == hand_cards
    shot(tab, "replay-in-page")


def test_the_replay_in_page_matches_the_server_at_every_step(tab: Any, web_data: WebData) -> None:
    s = web_data.seeded
    tab.goto(f"/matches/{s.replay_match}?game=1&step=0&view=seat1")
    _ready(tab)
    total = int(tab.locator("#step-count").inner_text().split("/")[1])
    checked = 0
    for at in range(0, min(total, 60), 7):
        tab.goto(f"/matches/{s.replay_match}?game=1&step={at}&view=seat1")
        server = _snapshot(tab)
        if at > 0:
            tab.goto(f"/matches/{s.replay_match}?game=1&step={at - 1}&view=seat1")
            _ready(tab)
            tab.keyboard.press("ArrowRight")
            assert _snapshot(tab) == server, f"step {at}"
            checked += 1
    assert checked >= 3


def _snapshot(page: Any) -> dict[str, Any]:
    return {
        "score": page.locator("#score").inner_text(),
        "caption": page.locator("#caption").inner_text(),
        "felt": _felt_cards(page),
        "hands": page.eval_on_selector_all(
            ".seat .hand svg.card", "ns => ns.map(n => n.dataset.card || 'back')"
        ),
        "timeline": page.locator("#timeline ol li").all_inner_texts(),
        "rows": page.locator("#hands tbody tr").count(),
        "count": page.locator("#step-count").inner_text(),
    }


def test_the_replay_controls_speak_spanish(tab: Any, web_data: WebData) -> None:
    s = web_data.seeded
    tab.goto(f"/matches/{s.replay_match}?lang=es")
    _ready(tab)
    assert "Reproducir" in tab.locator("#play").inner_text()
    assert tab.locator("label[for=speed]").inner_text() == "Velocidad"
    tab.locator("#play").click()
    assert "Pausa" in tab.locator("#play").inner_text()
    tab.locator("#play").click()
    expect(tab.locator("#announce")).to_contain_text("Paso")


def test_the_player_fits_and_is_accessible_at_every_width(tab: Any, web_data: WebData) -> None:
    """The controls the script shows, after a few steps in the page: axe clean, and nothing
    wider than the screen or cut off from 320 to 1280 px."""
    from tests.services.web.accessibility import violations_by_width
    from tests.services.web.fit import problems

    s = web_data.seeded
    tab.goto(f"/matches/{s.replay_match}?lang=es")
    _ready(tab)
    for _ in range(5):
        tab.keyboard.press("ArrowRight")
    assert violations_by_width(tab) == {}
    for width in (320, 390, 800, 1280):
        tab.set_viewport_size({"width": width, "height": 900})
        assert problems(tab) == [], width


def _board_match(web: WebData, status: str) -> int:
    """A new match on a new board of the running Swiss round (the pages list it)."""

    async def make() -> int:
        conn = await asyncpg.connect(web.url)
        try:
            tid = web.seeded.swiss_id
            rid = await conn.fetchval(
                "SELECT id FROM rounds WHERE tournament_id = $1 ORDER BY number DESC LIMIT 1", tid
            )
            board = await conn.fetchval(
                "SELECT coalesce(max(board), 0) + 1 FROM matches WHERE round_id = $1", rid
            )
            mid: int = await conn.fetchval(
                """INSERT INTO matches (tournament_id, round_id, bracket, board, mode, status,
                       seed, games_per_match, rules)
                   VALUES ($1, $2, 'main', $3, '1v1', $4, 5, 2, '{"points_to_win": 15}')
                   RETURNING id""",
                tid,
                rid,
                board,
                status,
            )
            for side, name in enumerate(NAMES[:2]):
                await conn.execute(
                    "INSERT INTO match_entrants (match_id, slot, bot_id, side) "
                    "VALUES ($1, $2, $3, $4)",
                    mid,
                    side,
                    web.seeded.bots[name],
                    side,
                )
            return mid
        finally:
            await conn.close()

    return run_async(make())


def _set_status(web: WebData, mid: int, status: str) -> None:
    async def update() -> None:
        conn = await asyncpg.connect(web.url)
        try:
            await conn.execute("UPDATE matches SET status = $2 WHERE id = $1", mid, status)
        finally:
            await conn.close()

    run_async(update())


def test_a_tournament_page_changes_a_status_cell_in_place(
    tab: Any, web_data: WebData, made: list[int]
) -> None:
    mid = _board_match(web_data, "queued")
    made.append(mid)
    tab.goto(f"/tournaments/{web_data.seeded.swiss_id}")
    eventually(tab, "!!window.__trucoStream && window.__trucoStream.readyState === 1")
    cell = tab.locator(f'#rounds a[href="/matches/{mid}"]').locator("xpath=../..")
    expect(cell.locator(".status")).to_have_text("queued")
    tab.evaluate(
        "() => { window.__same_page = true; document.querySelector('#rounds').dataset.mark = 'kept'; }"
    )
    _set_status(web_data, mid, "running")
    expect(cell.locator(".status")).to_have_text("running", timeout=WAIT_MS)
    assert tab.evaluate("document.querySelector('#rounds').dataset.mark") == "kept"
    assert tab.evaluate("window.__same_page") is True


def test_a_live_page_resumes_after_an_api_restart(
    browser: Any,
    web_data: WebData,
    redis_target: RedisTarget,
    feed: redis.Redis,
    made: list[int],
) -> None:
    """The API goes away and comes back on the same address: the page's EventSource
    reconnects with Last-Event-ID and goes on in place, every item once, none twice."""
    mid = running_match(web_data, NAMES[:2])
    made.append(mid)
    items = _items(mid)
    key = live_key(redis_target.prefix, mid)
    feed.rpush(key, *items[:6])
    server, thread, port = served_app(live_app(web_data, redis_target))
    context = browser.new_context(base_url=f"http://127.0.0.1:{port}")
    tab = context.new_page()
    context.clock.install()  # the spectator's pacing (live.js) runs on a clock the test moves on
    try:
        tab.goto(f"/matches/{mid}")
        eventually(tab, "!!window.__trucoStream && window.__trucoStream.readyState === 1")
        tab.evaluate(
            "() => { window.__same_page = true;"
            " document.querySelector('#score').dataset.mark = 'kept'; }"
        )
        before = tab.locator("#step-count").inner_text()
        feed.rpush(key, items[6])
        eventually_ticking(
            tab, "(b) => document.querySelector('#step-count').innerText !== b", before
        )
        # the API restarts: its open streams are cut (uvicorn's own graceful-shutdown timeout),
        # not left running until they end, so the page must reconnect to the new server
        server.config.timeout_graceful_shutdown = 0.2
        server.should_exit = True
        thread.join(10)
        assert not thread.is_alive()
        feed.rpush(key, *items[7:12])  # written while it is away
        server, thread, _ = served_app(live_app(web_data, redis_target), port)
        eventually(tab, "window.__trucoStream.readyState === 1")
        feed.rpush(key, *items[12:16])
        # every item once: the page equals a fresh render of the same feed
        fresh = context.new_page()
        fresh.add_init_script("delete window.EventSource")
        fresh.goto(f"/matches/{mid}")
        want = int(fresh.locator("#step-count").inner_text().split("/")[1])
        streamed = "document.querySelector('#step-count').textContent.split('/')[1]"
        eventually_ticking(tab, f"(want) => parseInt({streamed}, 10) === want", want)
        assert _live_snapshot(tab) == _live_snapshot(fresh)
        assert tab.evaluate("document.querySelector('#score').dataset.mark") == "kept"
        assert tab.evaluate("window.__same_page") is True
    finally:
        context.close()
        server.should_exit = True
        thread.join(10)


def test_autoplay_to_the_end_and_back(tab: Any, web_data: WebData) -> None:
    s = web_data.seeded
    tab.clock.install()  # the player's timers run on a clock the test moves on
    tab.goto(f"/matches/{s.replay_match}")
    _ready(tab)
    tab.keyboard.press("End")
    last = _step_of(tab)
    for _ in range(4):
        tab.keyboard.press("ArrowLeft")
    tab.select_option("#speed", "4")
    tab.locator("#play").click()
    # it plays to the game's last event and stops there by itself
    eventually_ticking(
        tab, "document.querySelector('#play').getAttribute('aria-pressed') === 'false'"
    )
    assert _step_of(tab) == last and f"step={last}" in tab.url
    expect(tab.locator("#announce")).to_contain_text(f"{last + 1}")
    assert tab.locator("#next").count() == 0  # the stepper's "next" is off at the end
    # and back to the start; Play from the end starts over
    tab.keyboard.press("Home")
    assert _step_of(tab) == 0 and "step=0" in tab.url
    tab.keyboard.press("End")
    tab.locator("#play").click()
    eventually_ticking(tab, "window.__trucoPlayer.step() < 3")
    tab.locator("#play").click()
