"""What a spectator met (issue 16), each checked in Chromium by measuring the page: bracket
labels, byes, connectors and podium; the rounds' labels; a phone bracket that says it scrolls;
2v2 played cards clear of the seats; a replay that does not spoil its result; names that never
break mid-word; the provisional mark explained; the crosstable in the standings' order; Swiss
pairings' columns that stay put; the bot page's chart and event names."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.services.web.conftest import WebData
from tests.services.web.seed import SINGLE_NAMES, TEAM_NAMES

pytest.importorskip("playwright.sync_api", reason="browser tests skipped: Playwright is missing")

BOXES = """sel => Array.from(document.querySelectorAll(sel)).map(e => {
    const r = e.getBoundingClientRect();
    return {x: r.left, y: r.top, w: r.width, h: r.height, text: e.textContent.trim()};
})"""

# every name whose text a line break cuts between two letters or digits (mid-word)
MID_WORD_BREAKS = r"""sel => {
    const found = [];
    for (const el of document.querySelectorAll(sel)) {
        const text = el.textContent;
        const node = el.firstChild;
        if (!node || node.nodeType !== Node.TEXT_NODE || el.getClientRects().length === 0) continue;
        const range = document.createRange();
        let top = null;
        for (let i = 0; i < node.length; i++) {
            range.setStart(node, i); range.setEnd(node, i + 1);
            const rects = range.getClientRects();
            if (!rects.length) continue;
            const t = Math.round(rects[0].top);
            const word = /[\p{L}\p{N}]/u;
            if (top !== null && t > top + 2 && word.test(text[i - 1]) && word.test(text[i])) {
                found.push(text);
            }
            top = t;
        }
    }
    return found;
}"""


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] < b["x"] + b["w"] - 0.5
        and b["x"] < a["x"] + a["w"] - 0.5
        and a["y"] < b["y"] + b["h"] - 0.5
        and b["y"] < a["y"] + a["h"] - 0.5
    )


def inside(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["x"] >= b["x"] - 0.5
        and a["y"] >= b["y"] - 0.5
        and a["x"] + a["w"] <= b["x"] + b["w"] + 0.5
        and a["y"] + a["h"] <= b["y"] + b["h"] + 0.5
    )


def phone(browser: Any, live_server: str) -> Any:
    return browser.new_context(
        viewport={"width": 390, "height": 844}, base_url=live_server, is_mobile=True
    )


def test_bracket_names_rounds_shows_byes_and_joins_the_right_boxes(
    page: Any, web_data: WebData
) -> None:
    page.goto(f"/tournaments/{web_data.seeded.knockout_id}")
    svg = page.locator("#bracket-1 svg.bracket-svg")
    labels = svg.locator("text.col-label").all_text_contents()
    assert labels == ["Quarter-finals", "Semi-finals", "Final"]
    assert svg.locator("text.tag").all_text_contents() == ["Third place"]
    byes = svg.locator("g.bbox.bye")
    assert byes.count() == 3  # 5 bots in an 8-slot bracket: 3 byes, shown as such
    for k in range(3):
        assert "bye" in byes.nth(k).locator("text.name").all_text_contents()
    # each line starts at the right edge of one box and ends at the left edge of the box its
    # winner plays next (measured in the page: path ends against the boxes' rectangles)
    ends = page.evaluate(
        """() => Array.from(document.querySelectorAll('#bracket-1 path.link')).map(p => {
            const a = p.getPointAtLength(0), b = p.getPointAtLength(p.getTotalLength());
            return [a.x, a.y, b.x, b.y];
        })"""
    )
    boxes = page.evaluate(
        """() => Array.from(document.querySelectorAll('#bracket-1 .bbox')).map(g => {
            const r = g.querySelector('rect.box');
            return {code: g.dataset.code, x: +r.getAttribute('x'), y: +r.getAttribute('y'),
                    w: +r.getAttribute('width'), h: +r.getAttribute('height')};
        })"""
    )

    def box_at(x: float, y: float, edge: str) -> str:
        found = [
            b["code"]
            for b in boxes
            if abs((b["x"] + (b["w"] if edge == "right" else 0)) - x) < 1
            and b["y"] <= y <= b["y"] + b["h"]
        ]
        assert len(found) == 1, (x, y, edge, found)
        return str(found[0])

    joined = {(box_at(x1, y1, "right"), box_at(x2, y2, "left")) for x1, y1, x2, y2 in ends}
    assert joined == {
        ("W1-1", "W2-1"),
        ("W1-2", "W2-1"),
        ("W1-3", "W2-2"),
        ("W1-4", "W2-2"),
        ("W2-1", "W3-1"),
        ("W2-2", "W3-1"),
    }
    # a box level on games says how it was decided (the result's tantos, or the seed)
    for code, scores, note in page.evaluate(
        """() => Array.from(document.querySelectorAll('#bracket-1 .bbox')).map(g => [
            g.dataset.code,
            Array.from(g.querySelectorAll('text.score')).map(t => t.textContent),
            (g.querySelector('text.note') || {textContent: ''}).textContent])"""
    ):
        level = scores[0] != "" and scores[0] == scores[1]
        assert level == ("through on" in note), (code, scores, note)
    # the champion and the podium are named above the bracket, as the standings rank them
    podium = page.locator("#podium")
    standings = page.locator("#standings tbody a.bot").all_text_contents()
    assert podium.locator("a.bot").all_text_contents() == standings[:3]
    assert "Champion" in podium.locator(".place-1").text_content()
    assert podium.bounding_box()["y"] < page.locator("#bracket-1").bounding_box()["y"]


def _winner_marks(page: Any) -> list[tuple[str, list[str], list[bool]]]:
    """Each played box: its code, the two scores and which slot is marked the winner."""
    return [
        (code, scores, won)
        for code, scores, won in page.evaluate(
            """() => Array.from(document.querySelectorAll('a.bbox')).map(g => [
                g.dataset.code,
                Array.from(g.querySelectorAll('text.score')).map(t => t.textContent),
                Array.from(g.querySelectorAll('rect.slot')).map(r => r.classList.contains('won'))])"""
        )
    ]


def test_the_marked_winner_is_the_side_that_went_through(page: Any, web_data: WebData) -> None:
    """The side marked as winner never has fewer games, and the losers' bracket too (where the
    stored sides need not follow the bracket's slots)."""
    s = web_data.seeded
    for tid in (s.double_id, s.knockout_id, s.single_id):
        page.goto(f"/tournaments/{tid}")
        marks = _winner_marks(page)
        assert marks
        for code, scores, won in marks:
            assert won.count(True) == 1, (tid, code, won)
            mine, other = (0, 1) if won[0] else (1, 0)
            assert int(scores[mine]) >= int(scores[other]), (tid, code, scores, won)


def test_double_elimination_names_its_sides_and_the_reset(page: Any, web_data: WebData) -> None:
    page.goto(f"/tournaments/{web_data.seeded.double_id}")
    labels = [page.locator(f"#bracket-{k} text.col-label").all_text_contents() for k in (1, 2, 3)]
    assert labels == [
        ["Winners semi-finals", "Winners final"],
        ["Losers round 1", "Losers final"],
        ["Grand final", "Grand final reset"],
    ]
    reset = page.locator("#bracket-3 .bbox[data-code='GF2']")
    played = reset.get_attribute("data-match") is not None
    assert played or "not needed" in reset.text_content()
    assert page.locator("#podium .place-1 a.bot").count() == 1


def test_rounds_list_names_each_match(page: Any, web_data: WebData) -> None:
    page.goto(f"/tournaments/{web_data.seeded.knockout_id}")
    labels = page.locator("#rounds td.label").all_inner_texts()
    assert "Quarter-final 2" in labels and "Final" in labels and "Third place" in labels
    assert {"Semi-final 1", "Semi-final 2"} <= set(labels)
    page.goto(f"/tournaments/{web_data.seeded.swiss_id}")
    labels = page.locator("#rounds td.label").all_inner_texts()
    assert labels == ["Board 1", "Board 2"] * 3  # from 1, in every round


def test_a_phone_bracket_says_it_scrolls(browser: Any, live_server: str, web_data: WebData) -> None:
    context = phone(browser, live_server)
    try:
        pg = context.new_page()
        pg.goto(f"/tournaments/{web_data.seeded.knockout_id}")
        scroll = pg.locator("#bracket-1 .scroll")
        wide = pg.evaluate("e => e.scrollWidth > e.clientWidth", scroll.element_handle())
        assert wide
        hint = pg.locator("#bracket-1 .scroll-hint")
        assert hint.is_visible() and "Scroll sideways" in hint.inner_text()
    finally:
        context.close()


def test_the_hint_stays_hidden_when_the_bracket_fits(page: Any, web_data: WebData) -> None:
    page.goto(f"/tournaments/{web_data.seeded.knockout_id}")
    assert not page.locator("#bracket-1 .scroll-hint").is_visible()


def _team_steps(page: Any, url: str, sizes: list[dict[str, int]]) -> int:
    """Step through the first hands of the 2v2 match at each size; return steps checked."""
    checked = 0
    for size in sizes:
        page.set_viewport_size(size)
        for step in range(0, 40):
            page.goto(f"{url}?game=1&step={step}&view=all")
            cards = page.evaluate(BOXES, "#felt svg.card")
            if not cards:
                continue
            checked += 1
            felt = page.evaluate(BOXES, "#felt")[0]
            others = (
                page.evaluate(BOXES, ".seat .who")
                + page.evaluate(BOXES, ".seat .bubble")
                + page.evaluate(BOXES, ".seat .hand svg.card")
            )
            tags = page.evaluate(BOXES, "#felt .rounds span")
            for c in cards:
                assert inside(c, felt), (size, step, "card clipped by the felt", c, felt)
                hit = [o["text"] for o in others + tags if overlap(c, o)]
                assert not hit, (size, step, "a played card covers", hit)
            for t in tags:
                assert not [o["text"] for o in others if overlap(t, o)], (size, step, t)
    return checked


def test_2v2_played_cards_leave_names_bubbles_and_tags_clear(page: Any, web_data: WebData) -> None:
    url = f"/matches/{web_data.seeded.team_match}"
    page.goto(url)
    assert page.locator(".table.players-4").count() == 1
    checked = _team_steps(
        page, url, [{"width": 1280, "height": 900}, {"width": 390, "height": 844}]
    )
    assert checked >= 10


def test_the_omniscient_view_reveals_only_up_to_the_step(page: Any, web_data: WebData) -> None:
    s = web_data.seeded
    page.goto(f"/matches/{s.replay_match}?game=1&step=0&view=all")
    assert page.locator("#hands tbody tr").count() == 0  # no hand over yet: nothing spoiled
    assert page.locator("#timeline li.future").count() == 0
    hands = sum(
        1 for e in s.replays[s.replay_match].games[0].events if type(e).__name__ == "HandEnded"
    )
    page.locator("#whole").click()
    page.wait_for_url("**whole=1*")
    assert page.locator("#hands tbody tr").count() == hands
    assert page.locator("#timeline li.future").count() > 0
    # every finished hand has its summary line: who won the truco, and the envido if sung
    summaries = page.locator("#hands .summary").all_inner_texts()
    assert len(summaries) == hands
    assert all(
        re.search(r"truco: .+, \d+ tantos? \(|the game ended in the hand", x) for x in summaries
    )
    page.locator("#whole").click()
    page.wait_for_url(re.compile(r".*step=0&view=all$"))
    assert page.locator("#hands tbody tr").count() == 0


def test_the_header_says_how_the_match_was_decided_once(page: Any, web_data: WebData) -> None:
    for mid in list(web_data.seeded.replays)[:6]:
        page.goto(f"/matches/{mid}")
        how = page.locator(".meta .how").inner_text()
        assert re.fullmatch(
            r"\((on games|level on games, decided on tantos|level on games and tantos|"
            r"by forfeit|by walkover); tantos \d+-\d+; faults \d+-\d+\)",
            how,
        ), how


def test_shortcuts_listed_and_a_moment_shared_by_link(page: Any, web_data: WebData) -> None:
    s = web_data.seeded
    page.goto(f"/matches/{s.replay_match}")
    keys = page.locator("#shortcuts").inner_text()
    assert all(k in keys for k in ("←", "→", "Page Up", "Page Down", "Home", "End"))
    last = int(page.locator("#step-count").inner_text().split("/")[1])
    page.keyboard.press("End")
    page.wait_for_url(f"**step={last - 1}*")
    page.keyboard.press("PageUp")
    page.wait_for_load_state()
    assert int(page.locator("#step-count").inner_text().split("/")[0]) < last
    page.keyboard.press("Home")
    page.wait_for_url("**step=0*")
    # a link to a moment: #g2-s7 opens game 2 at its 7th event, and the page offers its own
    page.goto(f"/matches/{s.replay_match}#g2-s7")
    page.wait_for_url("**game=2&step=6*")
    assert page.locator("#step-count").inner_text().startswith("7 /")
    assert page.locator(".tabs.games a.on").inner_text() == "Game 2"
    assert page.locator("#share").get_attribute("href").endswith("#g2-s7")


def _no_mid_word_break(pg: Any, urls: list[str]) -> None:
    for url in urls:
        pg.goto(url)
        broken = pg.evaluate(MID_WORD_BREAKS, ".bot, .scoreboard .team, .tabs a")
        assert broken == [], (url, broken)


def test_names_never_break_mid_word(browser: Any, live_server: str, web_data: WebData) -> None:
    s = web_data.seeded
    urls = [
        "/",
        f"/tournaments/{s.knockout_id}",
        f"/tournaments/{s.swiss_id}",
        f"/tournaments/{s.robin_id}",
        f"/bots/{s.bots[SINGLE_NAMES[0]]}",
        f"/matches/{s.team_match}?game=1&step=8",
        f"/matches/{s.replay_match}?game=1&step=8",
    ]
    for size in ({"width": 1280, "height": 900}, {"width": 390, "height": 844}):
        context = browser.new_context(viewport=size, base_url=live_server)
        try:
            _no_mid_word_break(context.new_page(), urls)
        finally:
            context.close()
    assert all(n in s.bots for n in TEAM_NAMES)


def test_the_provisional_mark_is_explained(page: Any, web_data: WebData) -> None:
    page.goto("/")
    board = page.locator("#leaderboard-1v1")
    assert board.locator("abbr.prov").count() >= 1
    legend = board.locator(".legend")
    assert legend.is_visible() and "provisional" in legend.inner_text()
    page.goto(f"/bots/{web_data.seeded.bots['El Ancho']}")
    assert "provisional" in page.locator("#ratings .legend").inner_text()


def test_crosstable_rows_follow_the_standings(page: Any, web_data: WebData) -> None:
    page.goto(f"/tournaments/{web_data.seeded.robin_id}")
    standings = page.locator("#standings tbody a.bot").all_text_contents()
    assert page.locator("#crosstable tbody a.bot").all_text_contents() == standings
    heads = [
        h.get_attribute("title")
        for h in page.locator("#crosstable thead th[title]").element_handles()
    ]
    assert heads == standings


def test_swiss_pairing_columns_stay_put_from_round_to_round(page: Any, web_data: WebData) -> None:
    page.goto(f"/tournaments/{web_data.seeded.swiss_id}")
    tables = page.locator("#rounds table.pairings")
    assert tables.count() == 3
    lefts = []
    for k in range(3):
        cells = tables.nth(k).locator("tr").first.locator("td")
        lefts.append([round(cells.nth(i).bounding_box()["x"]) for i in range(cells.count())])
    assert lefts[0] == lefts[1] == lefts[2], lefts


def test_bot_page_chart_fills_its_card_with_named_axes(page: Any, web_data: WebData) -> None:
    s = web_data.seeded
    page.goto(f"/bots/{s.bots['El Ancho']}")
    panel = page.locator("#chart-1v1").bounding_box()
    chart = page.locator("#chart-1v1 .chart-box").bounding_box()
    assert chart["width"] >= 0.9 * (panel["width"] - 34), (chart, panel)
    titles = page.locator("#chart-1v1 text.axis-title")
    assert titles.all_text_contents() == ["Rating", "Rated matches played"]
    for k in range(2):
        box = titles.nth(k).bounding_box()
        assert box is not None and inside(
            {"x": box["x"], "y": box["y"], "w": box["width"], "h": box["height"]},
            {"x": chart["x"], "y": chart["y"], "w": chart["width"], "h": chart["height"]},
        )
    assert page.locator("#chart-1v1 text.x-tick").count() >= 2


def test_bot_page_names_the_event_of_each_tournament_match(page: Any, web_data: WebData) -> None:
    # Siete Bravo plays in both events and in no test's own matches: a bot page lists its 20
    # latest matches, and tests/services/web/browser/test_sprt_page.py plays El Ancho many times in this session
    page.goto(f"/bots/{web_data.seeded.bots['Siete Bravo']}")
    events = set(page.locator("#matches a.event").all_inner_texts())
    assert "Copa <i>Swiss</i> de Otoño" in events and "Doble Eliminación" in events
    assert "event" not in events
