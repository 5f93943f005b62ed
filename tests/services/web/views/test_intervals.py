"""Intervals and LOS on the pages: the error bars' shared scale and the words (pure), then the
leaderboard and bot pages after a real fit of the seeded database (over ASGI)."""

from __future__ import annotations

import html
import re

import httpx
import pytest

from services.db.page_reads import LeaderRow, RatingRow
from services.db.pool import create_pool
from services.web.views.intervals import EXPLAINED, error_bars, los_next, percent, rating_interval
from services.worker.results import fit
from tests.services.web.conftest import WebData


def row(bot: int, rating: float, low: float | None, high: float | None, **fit: object) -> LeaderRow:
    return LeaderRow(bot, f"b{bot}", rating, 20, 10, 10, 0, 0.0, low, high, **fit)  # type: ignore[arg-type]


def test_error_bars_share_one_scale_from_the_lowest_to_the_highest_number() -> None:
    rows = [row(1, 1700, 1650, 1790), row(2, 1500, 1420, 1560), row(3, 1480, None, None)]
    top, middle, unfitted = error_bars(rows)
    assert unfitted is None  # no fit yet: no bar
    assert top is not None and middle is not None
    # the scale runs from 1420 (a low end) to 1790 (a high end): 370 points
    assert (middle.x_low, top.x_high) == (0.0, 100.0)
    assert top.x_rating == pytest.approx(100 * 280 / 370, abs=0.01)
    assert middle.x_high == pytest.approx(100 * 140 / 370, abs=0.01)
    assert top.label == "95% interval 1650 to 1790, Elo rating 1700"
    # an Elo rating outside every interval widens the scale so its mark stays on the bar
    (alone,) = error_bars([row(4, 1900, 1500, 1600)])
    assert alone is not None and (alone.x_low, alone.x_rating) == (0.0, 100.0)
    assert error_bars([row(5, 1500, None, None)]) == [None]


def test_los_shows_only_while_the_fit_s_neighbour_is_the_row_below() -> None:
    rows = [
        row(1, 1700, 1600, 1800, next_bot_id=2, los_next=0.9213),
        row(2, 1600, 1500, 1700, next_bot_id=9, los_next=0.7),  # 9 has left the board
        row(3, 1500, 1400, 1600, next_bot_id=4, los_next=0.6),  # the last row shown
    ]
    assert los_next(rows) == ["92%", None, None]
    assert los_next([]) == []


@pytest.mark.parametrize(
    ("probability", "words"),
    [(0.5, "50%"), (0.994, "99.4%"), (0.99996, ">99.9%"), (0.0001, "<0.1%"), (0.004, "0.4%")],
)
def test_percent_never_rounds_to_certainty(probability: float, words: str) -> None:
    assert percent(probability) == words


def test_the_bot_page_words() -> None:
    fitted = RatingRow("1v1", 1612, 40, 30, 10, 0, 1548.4, 1671.6, 0.9213, "rival")
    assert rating_interval(fitted) == (
        "95% interval 1548–1672; stronger than rival (next below): 92%"
    )
    last = RatingRow("1v1", 1400, 40, 10, 30, 0, 1350.0, 1450.0, None, None)
    assert rating_interval(last) == "95% interval 1350–1450"
    assert rating_interval(RatingRow("2v2", 1500, 3, 1, 2, 0)) is None


@pytest.mark.anyio
async def test_pages_draw_the_stored_intervals_after_a_fit(
    client: httpx.AsyncClient, web_data: WebData
) -> None:
    pool = await create_pool(web_data.url, min_size=1, max_size=2)
    try:
        await fit.refit(pool, "1v1")  # None if an earlier test fitted it already
        stored = await pool.fetch(
            "SELECT i.bot_id, i.low, i.high FROM rating_intervals i JOIN bots b "
            "ON b.id = i.bot_id WHERE i.mode = '1v1' AND b.status <> 'deleted'"
        )
    finally:
        await pool.close()
    assert stored, "the seeded data has rated 1v1 matches"
    page = (await client.get("/")).text
    board = page.split('id="leaderboard-1v1"', 1)[1].split("</section>", 1)[0]
    assert board.count('<svg class="ebar"') == len(stored)
    for bot_id, low, high in stored:
        line = html.unescape(board.split(f'href="/bots/{bot_id}"', 1)[1].split("</tr>", 1)[0])
        # the bar says what it shows, to screen readers (its label) and on hover (its title)
        label = f"95% interval {round(low)} to {round(high)}, Elo rating "
        assert f'role="img" aria-label="{label}' in line and f"<title>{label}" in line
    assert EXPLAINED in html.unescape(page)  # the one line that says what the bars mean
    los = re.findall(r"<td class=\"num\" data-label=\"LOS\">([^<]*%)</td>", board)
    assert len(los) == len(stored) - 1  # every entry but the last has a LOS
    bot_id, low, high = stored[0]
    bot_page = html.unescape((await client.get(f"/bots/{bot_id}")).text)
    assert f"95% interval {round(low)}–{round(high)}" in bot_page
