"""The table of the replay and live viewers shows what ``/play`` shows (issue 35), in Chromium
at 390 px in Spanish, for a 1v1, a team 2v2 and an individual 2v2:

* a stored replay, stepped with the arrow key from its first event to its last: each event's
  line appears at its step, worded as the server words it, the fósforos equal the score after
  each hand, every card has an accessible name, nothing is wider than the screen;
* a live match page fed hand by hand through the live feed (a real Redis), as the worker writes
  it: the same, for its first hands, each event shown in turn (paced), a hand's summary shown.
"""

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
from services.db import page_reads
from services.db.pool import create_pool
from services.live.feed import live_key
from services.live.publisher import LivePublisher
from services.web.pages.replays import decoded
from services.web.views.common import BotLink, side_links
from tests.servers import RedisTarget
from tests.services.helpers.uvicorn_thread import serving
from tests.services.web.conftest import WebData, error_free_page, run_async
from tests.services.web.live_rows import delete_match, live_app, running_match
from tests.services.web.table_checks import (
    RECORDER,
    Line,
    check_shown,
    expected,
    fits,
    unnamed_cards,
)
from tests.services.web.waits import eventually, eventually_ticking

pytestmark = pytest.mark.slow

pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: Playwright is not installed"
)

Sides = tuple[list[BotLink], list[BotLink]]


@pytest.fixture(scope="module")
def served(web_data: WebData, redis_target: RedisTarget) -> Iterator[str]:
    """The platform on 127.0.0.1 reading the live feed from the test Redis."""
    with serving(live_app(web_data, redis_target)) as base:
        yield base


@pytest.fixture
def phone(browser: Any, served: str) -> Iterator[Any]:
    with error_free_page(
        browser,
        served,
        init_script=RECORDER,
        viewport={"width": 390, "height": 844},
        locale="es-AR",
    ) as page:
        yield page


async def _stored(url: str, match_id: int) -> tuple[Replay, Sides]:
    pool = await create_pool(url, min_size=1, max_size=1)
    try:
        data = await page_reads.match(pool, match_id)
        assert data is not None
        replay = decoded({match_id: data.replay})[match_id]
        return replay, (side_links(data.match, 0), side_links(data.match, 1))
    finally:
        await pool.close()


async def _individual_match(url: str, tournament_id: int) -> int:
    conn = await asyncpg.connect(url)
    try:
        found: int = await conn.fetchval(
            "SELECT id FROM matches WHERE tournament_id = $1 AND status = 'done' "
            "ORDER BY id LIMIT 1",
            tournament_id,
        )
        return found
    finally:
        await conn.close()


def _step_through(page: Any, path: str, replay: Replay, sides: Sides, view: str) -> None:
    page.goto(path)
    eventually(page, "document.querySelector('#viewer').dataset.ready === '1'")
    total = int(page.evaluate("window.__trucoPlayer.steps"))
    for _ in range(total - 1):
        page.keyboard.press("ArrowRight")
    eventually(page, f"window.__trucoPlayer.step() === {total - 1}")
    lines = [line for line in expected(replay, sides, [view] * len(replay.games)) if line.game == 1]
    assert len(lines) == total
    check_shown(page, lines, replay.rules.points_to_win)
    assert unnamed_cards(page) == []
    assert fits(page) == []


@pytest.mark.parametrize("kind", ["1v1", "2v2 team", "2v2 individual"])
def test_a_stored_replay_shows_every_event_at_its_step(
    phone: Any, web_data: WebData, kind: str
) -> None:
    s = web_data.seeded
    match_id = {
        "1v1": s.replay_match,
        "2v2 team": s.team_match,
        "2v2 individual": run_async(_individual_match(web_data.url, s.individual_id)),
    }[kind]
    replay, sides = run_async(_stored(web_data.url, match_id))
    view = "seat1" if kind == "1v1" else "all"
    _step_through(
        phone, f"/matches/{match_id}?lang=es&game=1&step=0&view={view}", replay, sides, view
    )
    if kind != "1v1":  # two seats of one side: told apart, never two of one name
        names = phone.locator(".seat .who .bot").all_inner_texts()
        assert len(names) == 4 and len(set(names)) == 4, names


# --- live -------------------------------------------------------------------------------------

LIVE = {
    "1v1": (2, ["El Ancho", "Siete Bravo"]),
    "2v2 team": (4, ["El Ancho", "Siete Bravo"]),
    "2v2 individual": (4, ["El Ancho", "Siete Bravo", "Falta Envido", "Retruco"]),
}


def _live_match(web: WebData, kind: str) -> int:
    players, names = LIVE[kind]
    return running_match(web, names, players=players)


def _feed(match_id: int, kind: str) -> tuple[list[list[bytes]], Replay]:
    """A real match's live feed as the worker writes it: the header, then one batch a hand (a
    batch is written when a hand ends); and the match's own replay."""
    players, names = LIVE[kind]
    publisher = LivePublisher(None, "", match_id)
    header = msgspec.json.encode({"run": publisher.run, "header": True, "format": "x"})
    batches: list[list[bytes]] = [[header]]

    def progress(index: int, state: Any, decision: Any, events: Any) -> None:
        item = publisher.item(index, state, decision, events)
        batches[-1].append(msgspec.json.encode(item))
        if any(publisher.game.closes(e) for e in events):
            batches.append([])

    bots = [
        (
            EntrantRecord(name, f"builtin:{name}"),
            InProcessBot(name, strategy_decider("heuristic", 5 + k)),
        )
        for k, name in enumerate(names)
    ]
    settings_ = MatchSettings(rules=Rules(players=players, points_to_win=15), games_per_match=1)
    replay = run_async(run_match(f"m{match_id}", 99, settings_, bots, progress))
    return [b for b in batches if b], replay


@pytest.mark.parametrize("kind", ["1v1", "2v2 team", "2v2 individual"])
def test_a_live_match_shows_each_event_in_turn(
    phone: Any, web_data: WebData, redis_target: RedisTarget, kind: str
) -> None:
    mid = _live_match(web_data, kind)
    feed = redis.Redis.from_url(redis_target.url)
    try:
        batches, replay = _feed(mid, kind)
        key = live_key(redis_target.prefix, mid)
        # the header and the deal of the first hand, then the page, then hand after hand
        feed.rpush(key, *batches[0][:2])
        phone.clock.install()  # the page's pacing runs on a clock the test moves on
        phone.goto(f"/matches/{mid}?lang=es")
        eventually(phone, "!!window.__trucoStream && window.__trucoStream.readyState === 1")
        _, sides = run_async(_stored_sides(web_data.url, mid))
        lines = expected(replay, sides, ["spectator"])
        ends = [line for line in lines if line.kind == "hand_ended"]
        hands = 3
        for hand, batch in enumerate([batches[0][2:], *batches[1:hands]]):
            feed.rpush(key, *batch)  # a hand's items, written when it ends
            end = ends[hand].step
            shown_at = f"(window.__tableShown || []).some((s) => s.step === {end})"
            eventually_ticking(phone, shown_at)
            eventually_ticking(phone, "!document.querySelector('#summary').hidden")  # its summary
        last = ends[hands - 1].step
        shown: list[Line] = [line for line in lines if line.step <= last]
        check_shown(phone, shown, 15)
        assert unnamed_cards(phone) == []
        assert fits(phone) == []
        assert phone.locator(".seat .hand svg.card[data-card]").count() == 0  # no card unplayed
    finally:
        feed.close()
        delete_match(web_data, mid)


async def _stored_sides(url: str, match_id: int) -> tuple[None, Sides]:
    pool = await create_pool(url, min_size=1, max_size=1)
    try:
        data = await page_reads.match(pool, match_id)
        assert data is not None
        return None, (side_links(data.match, 0), side_links(data.match, 1))
    finally:
        await pool.close()


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_a_played_game_plays_itself_unless_motion_is_reduced(
    browser: Any, served: str, web_data: WebData, motion: str
) -> None:
    """/play/{id}/replay starts playing by itself, and a played card slides onto the felt;
    neither where the reader asked for reduced motion."""
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, base_url=served, reduced_motion=motion
    )
    try:
        page = context.new_page()
        page.goto(f"/play/{web_data.seeded.play_match}/replay?lang=es")
        eventually(page, "document.querySelector('#viewer').dataset.ready === '1'")
        playing = page.locator("#play").get_attribute("aria-pressed")
        assert playing == ("false" if motion == "reduce" else "true")
        if motion == "reduce":
            for _ in range(40):  # to a moment with a card on the felt
                if page.locator("#felt svg.card").count():
                    break
                page.keyboard.press("ArrowRight")
            assert page.locator("#felt svg.card").count() > 0
            assert page.evaluate("document.getAnimations().length") == 0
        # the seat view of the person, named as the person
        assert page.locator(".tabs.views a.on").inner_text() == "Asiento 0: Vos"
    finally:
        context.close()
