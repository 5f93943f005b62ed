"""The pages in a real browser (Debian's Chromium through Playwright) against uvicorn on
127.0.0.1 with real data: leaderboards, standings numbers, the bracket SVG, a replay stepped
through with clicks, the seat view toggle, live updates, and hostile names that never run.
Screenshots go to ``screenshots/`` (git-ignored). Skipped, with the reason, without a browser.
"""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import msgspec
import pytest

from services.domain.ratings import PROVISIONAL_UNTIL
from services.domain.result import played_result
from tests.services.web.conftest import WebData, run_async, shot
from tests.services.web.seed import NAMES, SINGLE_NAMES, XSS_NAME, XSS_SAY, play

expect = pytest.importorskip(
    "playwright.sync_api", reason="browser tests skipped: Playwright is not installed"
).expect


def test_home_leaderboards_and_links(page: Any, web_data: WebData) -> None:
    page.goto("/")
    board = page.locator("#leaderboard-1v1 table.board tbody tr")
    shown = set(board.locator("a.bot").all_inner_texts())
    assert set(NAMES) | set(SINGLE_NAMES) <= shown  # every bot rated in 1v1
    ratings = [
        int(t.strip().rstrip("?"))
        for t in page.locator("#leaderboard-1v1 td.rating").all_inner_texts()
    ]
    assert ratings == sorted(ratings, reverse=True)
    # a bot is marked provisional while it has fewer than 10 rated matches in the pool (the
    # seeded bots' counts depend on what other tests of this database played before)
    counts = run_async(_rated_matches(web_data.url))
    for row in board.all():
        name = row.locator("a.bot").inner_text()
        if name in set(NAMES) | set(SINGLE_NAMES):
            marked = row.locator("abbr.prov").count()
            assert marked == (1 if counts[name] < PROVISIONAL_UNTIL else 0), (name, counts[name])
    assert page.get_by_role("link", name=XSS_NAME).count() >= 1  # shown as text, a link
    page.get_by_role("link", name="Copa <i>Swiss</i> de Otoño").click()
    page.wait_for_url("**/tournaments/*")
    shot(page, "tournament-swiss")
    page.goto("/")
    shot(page, "home")
    page.get_by_role("link", name="El Ancho").first.click()
    page.wait_for_url(f"**/bots/{web_data.seeded.bots['El Ancho']}")


def expected_swiss(web: WebData) -> dict[str, tuple[float, int]]:
    """Match points and game points per bot from the stored results, counted by hand."""
    s = web.seeded
    names = {v: k for k, v in s.bots.items()}
    table: dict[str, tuple[float, int]] = {}
    for mid, (a, b) in s.sides.items():
        if mid not in s.winners or mid not in s.replays:
            continue
        replay = s.replays[mid]
        if replay.match_id != f"m{mid}":
            continue
        for side, bot in enumerate((a, b)):
            pts, games = table.get(names[bot], (0.0, 0))
            w = s.winners[mid]
            pts += 0.5 if w is None else (1.0 if w == side else 0.0)
            games += replay.result.games_won[side]
            table[names[bot]] = (pts, games)
    return table


def test_swiss_standings_numbers_and_pairings(page: Any, web_data: WebData) -> None:
    s = web_data.seeded
    page.goto(f"/tournaments/{s.swiss_id}")
    # only the Swiss tournament's matches count (its rounds 1 and 2 are done; round 3 half)
    swiss_bots = {"El Ancho", "Siete Bravo", "Mazo Man", XSS_NAME}
    rows = page.locator("#standings tbody tr")
    assert rows.count() == 4
    headers = page.locator("#standings thead th").all_inner_texts()
    assert headers[2:] == ["PTS", "BH-1", "BH", "SB", "DE", "GAMES", "+/-"] or headers[2:] == [
        "Pts",
        "BH-1",
        "BH",
        "SB",
        "DE",
        "Games",
        "+/-",
    ]
    # expected from the stored rows of rounds 1-2 (round 3 is still running)
    conn_rows = run_async(_swiss_results(web_data.url, s.swiss_id))
    points: dict[str, float] = dict.fromkeys(swiss_bots, 0.0)
    games: dict[str, int] = dict.fromkeys(swiss_bots, 0)
    for name, won, g in conn_rows:
        points[name] += won
        games[name] += g
    seen = {}
    for k in range(4):
        cells = rows.nth(k).locator("td").all_inner_texts()
        name = rows.nth(k).locator("a.bot").inner_text()
        seen[name] = (float(cells[2]), int(cells[7]))
        assert int(cells[0]) == k + 1
    assert seen == {n: (points[n], games[n]) for n in swiss_bots}
    places = [seen[rows.nth(k).locator("a.bot").inner_text()][0] for k in range(4)]
    assert places == sorted(places, reverse=True)
    # three rounds of pairings, each linking to its match
    assert page.locator("#rounds h3").count() == 3
    assert page.locator("#rounds td.vs a").count() == 6
    shot(page, "swiss-standings")


async def _rated_matches(url: str) -> dict[str, int]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT b.name, r.matches FROM ratings r JOIN bots b ON b.id = r.bot_id "
            "WHERE r.mode = '1v1'"
        )
    finally:
        await conn.close()
    return {str(r["name"]): int(r["matches"]) for r in rows}


async def _swiss_results(url: str, tid: int) -> list[tuple[str, float, int]]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            """SELECT b.name, me.side, m.winner_side, mr.result
               FROM matches m JOIN rounds r ON r.id = m.round_id
               JOIN match_entrants me ON me.match_id = m.id JOIN bots b ON b.id = me.bot_id
               JOIN match_results mr ON mr.match_id = m.id
               WHERE m.tournament_id = $1 AND NOT EXISTS (
                   SELECT 1 FROM matches o WHERE o.round_id = r.id
                   AND o.status NOT IN ('done', 'forfeit'))""",
            tid,
        )
    finally:
        await conn.close()
    out = []
    for r in rows:
        result = json.loads(r["result"])
        won = 0.5 if r["winner_side"] is None else float(r["winner_side"] == r["side"])
        out.append((r["name"], won, int(result["games_won"][r["side"]])))
    return out


def test_double_elimination_bracket_svg(page: Any, web_data: WebData) -> None:
    s = web_data.seeded
    page.goto(f"/tournaments/{s.double_id}")
    titles = page.locator("section.bracket h2").all_inner_texts()
    assert titles == ["Winners bracket", "Losers bracket", "Final"]
    winners = page.locator("#bracket-1 svg.bracket-svg")
    assert winners.locator("a.bbox").count() == 3  # 2 semi-finals, 1 winners final
    assert winners.locator("path.link").count() == 2  # both semi-finals feed the final
    assert page.locator("#bracket-2 a.bbox").count() == 2
    finals = page.locator("#bracket-3 a.bbox")  # the grand final, and its reset if played
    played = [finals.nth(k).get_attribute("data-code") for k in range(finals.count())]
    assert played in (["GF"], ["GF", "GF2"])
    # every finished box marks one winner, and its games agree with the stored result
    assert page.locator("svg.bracket-svg rect.slot.won").count() == 5 + len(played)
    final_box = finals.first
    scores = final_box.locator("text.score").all_text_contents()
    mid = int(final_box.get_attribute("data-match"))
    assert [int(x) for x in scores] == list(s.replays[mid].result.games_won)
    box = winners.bounding_box()
    assert box is not None and box["width"] > 400
    shot(page, "bracket-double-elimination")
    final_box.click()
    page.wait_for_url(f"**/matches/{mid}")


def test_round_robin_crosstable(page: Any, web_data: WebData) -> None:
    page.goto(f"/tournaments/{web_data.seeded.robin_id}")
    assert page.locator("#crosstable tbody tr").count() == 3
    assert page.locator("#crosstable td.self").count() == 3
    played = page.locator("#crosstable td.cell a")
    assert played.count() == 6  # each of 3 matches from both sides
    total = sum(float(x) for x in page.locator("#crosstable tbody td.num strong").all_inner_texts())
    assert total == 3.0  # one point per decided match (a draw splits it)
    shot(page, "round-robin")


def test_bot_page_chart_matches_faults_latency(page: Any, web_data: WebData) -> None:
    s = web_data.seeded
    page.goto(f"/bots/{s.bots[XSS_NAME]}")
    assert page.locator("h1.botname").inner_text() == XSS_NAME
    chart = page.locator("#chart-1v1 svg.chart")
    assert chart.locator("circle.pt").count() == 3  # rated in Swiss rounds 1, 2 and 3
    assert chart.locator("path.line").get_attribute("d").startswith("M")
    assert page.locator("#matches tbody tr").count() == 3
    # it answers an illegal word once per game: 2 games per match, 3 finished matches
    assert page.locator(".fault-total").inner_text() == "6"
    assert "illegal action × 6" in page.locator("#health").inner_text()
    assert page.locator("#health table.lat td").count() == 5
    shot(page, "bot-xss")
    page.goto(f"/bots/{s.bots['El Ancho']}")
    assert page.locator("#chart-1v1 circle.pt").count() >= 4
    shot(page, "bot")


def _step_of_say(web: WebData) -> tuple[int, int]:
    s = web.seeded
    game = s.replays[s.replay_match].games[0]
    engine_events = [e for e in game.events if e.__class__.__name__ != "Decision"]
    step = next(k for k, e in enumerate(engine_events) if getattr(e, "say", None) == XSS_SAY)
    return 1, step


def test_replay_viewer_steps_and_seat_view(page: Any, web_data: WebData) -> None:
    s = web_data.seeded
    page.goto(f"/matches/{s.replay_match}")
    assert page.locator("#step-count").inner_text().startswith("1 / ")
    # step 0: the deal; the omniscient view shows every seat's three cards
    assert page.locator("#seat-0 .hand svg.card[data-card]").count() == 3
    assert page.locator("#seat-1 .hand svg.card[data-card]").count() == 3
    shot(page, "replay-start")
    # step forward until a card lands on the table, then until the score changes
    for _ in range(12):
        page.locator("#next").click()
        page.wait_for_load_state()
        if page.locator("#felt svg.card").count():
            break
    assert page.locator("#felt svg.card").count() >= 1
    in_hands = page.locator(".hand svg.card[data-card]").count()
    assert in_hands < 6
    score = page.locator("#score").inner_text()
    for _ in range(80):
        page.locator("#next").click()
        page.wait_for_load_state()
        if page.locator("#score").inner_text() != score:
            break
    assert page.locator("#score").inner_text() != score
    assert page.locator("#timeline li.current").count() == 1
    step_text = page.locator("#step-count").inner_text()
    shot(page, "replay-scored")
    # back one step: the counter goes back
    page.locator("#prev").click()
    page.wait_for_load_state()
    assert (
        int(page.locator("#step-count").inner_text().split("/")[0])
        == int(step_text.split("/")[0]) - 1
    )
    # the keyboard steps too (static JS)
    page.keyboard.press("ArrowRight")
    page.wait_for_url("**step=*")
    expect(page.locator("#step-count")).to_have_text(step_text)
    # the seat view: go back to the deal of hand 2 and look as seat 0
    page.goto(f"/matches/{s.replay_match}?game=1&step=0")
    page.get_by_role("link", name="Seat 0:", exact=False).click()
    page.wait_for_url("**view=seat0")
    assert page.locator("#seat-0 .hand svg.card[data-card]").count() == 3
    assert page.locator("#seat-1 .hand svg.card[data-card]").count() == 0
    assert page.locator("#seat-1 .hand svg.card.back").count() == 3
    shot(page, "replay-seat0-view")
    page.get_by_role("link", name="Omniscient").click()
    page.wait_for_url("**view=all")
    assert page.locator("#seat-1 .hand svg.card[data-card]").count() == 3


def test_hostile_bot_runs_nothing(page: Any, web_data: WebData) -> None:
    s = web_data.seeded
    game, step = _step_of_say(web_data)
    urls = [
        "/",
        f"/tournaments/{s.swiss_id}",
        f"/bots/{s.bots[XSS_NAME]}",
        f"/matches/{s.replay_match}?game={game}&step={step}",
    ]
    for url in urls:
        page.goto(url)
        page.wait_for_load_state("networkidle")
        assert page.locator("img[src='x']").count() == 0
        assert page.locator("body script").count() == 0
        assert page.evaluate("document.querySelectorAll('script:not([src])').length") == 0
        assert XSS_NAME in page.locator("body").inner_text()
    # the say is on screen as text in a speech bubble
    bubbles = page.locator(".bubble q.say").all_inner_texts()
    assert XSS_SAY in bubbles
    assert (
        page.locator(".bubble .fault-tag").count() + page.locator("#timeline .fault-tag").count()
        >= 1
    )
    shot(page, "replay-xss-say")
    # even an inline script slipped into a page would not run under the CSP
    page.expect_csp_block = True
    blocked = page.evaluate(
        """() => new Promise(resolve => {
            document.addEventListener('securitypolicyviolation', e => resolve(e.violatedDirective));
            const s = document.createElement('script');
            s.textContent = 'window.__ran = true';
            document.body.appendChild(s);
            setTimeout(() => resolve(window.__ran ? 'ran' : 'none'), 500);
        })"""
    )
    assert blocked.startswith("script-src")
    assert page.evaluate("window.__ran === undefined")


def test_live_match_spectator_and_tournament_updates(page: Any, web_data: WebData) -> None:
    s = web_data.seeded
    page.goto(f"/matches/{s.live_match}")
    assert page.locator(".tabs.views a").all_inner_texts() == ["Spectator (live)"]
    assert page.locator(".hand svg.card[data-card]").count() == 0
    shot(page, "live-match-spectator")
    # the Swiss page updates itself when the running round's last match finishes
    page.goto(f"/tournaments/{s.swiss_id}")
    page.evaluate("window.__same_page = true")
    pending = page.locator(f"#rounds a[href='/matches/{s.pending_swiss_match}']")
    assert pending.inner_text() == "vs"
    run_async(_finish(web_data, s.pending_swiss_match))
    expect(pending).not_to_have_text("vs", timeout=15000)
    assert page.evaluate("window.__same_page") is True  # no reload: the JS swapped <main>
    shot(page, "tournament-swiss-updated")


async def _finish(web: WebData, mid: int) -> None:
    """Play the pending match for real and record it, as a worker would."""
    s = web.seeded
    names = {v: k for k, v in s.bots.items()}
    a, b = s.sides[mid]
    replay = await play(mid, names[a], names[b], 777)
    conn = await asyncpg.connect(web.url)
    try:
        async with conn.transaction():
            await conn.execute(
                "UPDATE matches SET status = 'done', winner_side = $2, started_at = now(), "
                "finished_at = now() WHERE id = $1",
                mid,
                replay.result.winner,
            )
            await conn.execute(
                "INSERT INTO match_results (match_id, winner_side, result) VALUES ($1, $2, $3)",
                mid,
                replay.result.winner,
                json.dumps(msgspec.to_builtins(played_result(replay))),
            )
    finally:
        await conn.close()


def test_pages_fit_a_phone(browser: Any, live_server: str, web_data: WebData) -> None:
    s = web_data.seeded
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, base_url=live_server, is_mobile=True
    )
    try:
        page = context.new_page()
        for name, url in [
            ("phone-home", "/"),
            ("phone-replay", f"/matches/{s.replay_match}?game=1&step=6"),
            ("phone-bracket", f"/tournaments/{s.double_id}"),
            ("phone-api-reference", "/schema/reference"),
        ]:
            page.goto(url)
            page.wait_for_load_state("networkidle")  # the reference renders after its scripts
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 400, (url, width)  # wide content scrolls inside its panel
            shot(page, name)
    finally:
        context.close()
