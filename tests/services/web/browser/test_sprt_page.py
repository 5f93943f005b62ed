"""The SPRT test page in a real browser (Chromium through Playwright, uvicorn on 127.0.0.1):
the LLR's path grows against its two bounds as pairs are stored, without a reload, and the
result is said in words once the test accepts H1; the bot page links to the test. Pairs are
played for real (in-process strategies) and stored through ``flow.record_result``, as the
trusted worker stores them. Skipped, with the reason, without a browser."""

from __future__ import annotations

from typing import Any

import pytest

from arena.client.connection import InProcessBot
from arena.match.replay import EntrantRecord
from arena.match.runner import MatchSettings, run_match
from arena.sdk import strategy_decider
from engine.rules import Rules
from services import flow
from services.db import matches as db_matches
from services.db.pool import create_pool
from services.domain.sprt_runs import SprtParams
from services.flow import sprt as flow_sprt
from tests.services.web.accessibility import violations_by_width
from tests.services.web.conftest import WebData, run_async, shot

pytestmark = pytest.mark.slow  # run early (tests/slow_first.py)

expect = pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: Playwright is not installed"
).expect

STRONG, WEAK = "El Ancho", "Mazo Man"  # heuristic and random in tests/services/web/seed.py


async def _create(web: WebData) -> tuple[int, int]:
    pool = await create_pool(web.url, min_size=1, max_size=2)
    try:
        test_id, (match_id,) = await flow_sprt.create_test(
            pool,
            owner_id=web.seeded.owner_id,
            bot_a=web.seeded.bots[STRONG],
            bot_b=web.seeded.bots[WEAK],
            mode="1v1",
            rules={"points_to_win": 15},
            params=SprtParams(elo0=0, elo1=50, alpha=0.05, beta=0.05, max_games=200, concurrency=1),
        )
    finally:
        await pool.close()
    return test_id, match_id


async def _store_pair(web: WebData, match_id: int) -> list[int]:
    """Play the pending pair for real and store it as the trusted worker does."""
    pool = await create_pool(web.url, min_size=1, max_size=2)
    try:
        match = await db_matches.get_match(pool, match_id)
        assert match is not None
        settings = MatchSettings(
            rules=Rules.from_dict(match.rules), games_per_match=2, deals=match.deals
        )
        bots = [
            (EntrantRecord(name, f"bot:{k}"), InProcessBot(name, strategy_decider(kind, k)))
            for k, (name, kind) in enumerate(((STRONG, "heuristic"), (WEAK, "random")))
        ]
        replay = await run_match(str(match_id), match.seed, settings, bots)
        next_ids = (await flow.record_result(pool, match_id, replay)).next_ids
        return next_ids
    finally:
        await pool.close()


def test_the_llr_grows_against_its_bounds_until_h1(page: Any, web_data: WebData) -> None:
    test_id, match_id = run_async(_create(web_data))
    page.goto(f"/tests/{test_id}")
    assert page.locator("svg.sprt line.bound").count() == 2
    expect(page.locator("#verdict")).to_contain_text("Running: 0 games")
    path = page.locator("svg.sprt path.line")
    assert "L" not in (path.get_attribute("d") or "")  # one point: nothing played yet
    page.evaluate("window.__same_page = true")

    next_ids = run_async(_store_pair(web_data, match_id))
    expect(page.locator("#verdict")).to_contain_text("Running: 2 games", timeout=15000)
    assert "L" in (path.get_attribute("d") or "")  # the path has grown
    assert page.evaluate("window.__same_page") is True  # swapped in place, no reload
    assert _violations(page) == {}  # a running test's page, as axe-core sees it

    for _ in range(60):
        if not next_ids:
            break
        (match_id,) = next_ids
        next_ids = run_async(_store_pair(web_data, match_id))
    expect(page.locator("#verdict")).to_contain_text("H1 accepted", timeout=15000)
    expect(page.locator("#verdict")).to_contain_text(f"{STRONG} is at least 50 Elo stronger")
    # the path's last point sits on or beyond the H1 bound (smaller y is higher)
    upper = float(page.locator("svg.sprt line.bound-h1").get_attribute("y1") or "nan")
    last = float(page.locator("svg.sprt circle.pt").get_attribute("cy") or "nan")
    assert last <= upper
    assert page.locator("main#live").get_attribute("data-poll") is None  # over: no polling
    shot(page, "sprt-test-h1")
    assert _violations(page) == {}
    page.goto(f"/tests/{test_id}?lang=es")  # the finished page in Spanish too
    expect(page.locator("#verdict")).to_contain_text("H1")
    assert page.locator("html").get_attribute("lang") == "es-AR"
    assert _violations(page) == {}
    page.goto(f"/tests/{test_id}?lang=en")  # the language cookie back to English

    page.goto(f"/bots/{web_data.seeded.bots[STRONG]}")
    link = page.locator(f"#tests a[href='/tests/{test_id}']")
    expect(link).to_have_count(1)
    assert _violations(page) == {}  # the bot page with its tests listed
    link.click()
    expect(page.locator("h1")).to_contain_text(f"SPRT test {test_id}")


def _violations(page: Any) -> dict[int, list[str]]:
    pytest.importorskip("axe_playwright_python", reason="axe-playwright-python missing")
    return violations_by_width(page)
