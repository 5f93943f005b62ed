"""One source of standings: the API and the web page rank every format's events identically.

The pure test plays random events of every format through the workflow's own planners (Swiss
pairing, round-robin fixtures, bracket advancement) with random results, draws and a last round
left half played, and compares the API's rows with the page's. The database test does the same
through the running app: ``GET /v1/tournaments/{id}`` against the HTML of
``/tournaments/{id}``, in the middle of an event and at its end.
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime
from typing import get_args, get_type_hints

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.rules import Rules
from services import domain, flow
from services.api.routes.bodies import standings_of
from services.api.schemas.tournaments import StandingRead, TournamentCreate
from services.db import tournaments as db_tournaments
from services.db.matches import StoredMatch
from services.db.page_reads import EntryRow
from services.domain.result import ResultReason, StoredResult
from services.tournaments.event import Planned, SeededEntrant
from services.tournaments.formats import (
    FORMATS,
    UnknownFormat,
    bracket_format,
    get_format,
    table_format,
)
from services.tournaments.played import complete_rounds, played
from services.web.views.standings import TIEBREAK_LABELS, standings_view
from tests.services.helpers.api_helpers import Api
from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_tournament

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _row(match_id: int, planned: Planned, status: str, winner: int | None) -> StoredMatch:
    rng = random.Random(match_id)
    games = (2, rng.randint(0, 1)) if winner == 0 else (rng.randint(0, 1), 2)
    result: StoredResult | None = None
    if status == "done" and not planned.bye:
        if winner is None:
            games = (1, 1)
        tantos = (rng.randint(0, 60), rng.randint(0, 60))
        reason: ResultReason = "draw" if winner is None else "games"
        result = StoredResult((), games, tantos, reason, None, (), (0, 0))
    return StoredMatch(
        id=match_id,
        tournament_id=1,
        round_id=planned.round,
        round_number=planned.round,
        bracket=planned.bracket,
        bracket_match=planned.bracket_match,
        board=planned.board,
        mode="1v1",
        status=status,
        seed=match_id,
        rated=True,
        games_per_match=2,
        rules=Rules(),
        winner_side=0 if planned.bye else winner,
        bye=planned.bye,
        attempts=1,
        created_at=NOW,
        queued_at=None,
        finished_at=NOW if status == "done" else None,
        deals="independent",
        bot0=planned.bots[0],
        bot1=planned.bots[1] if len(planned.bots) > 1 else None,
        result=result,
    )


def next_matches(
    format: str,
    entrants: list[SeededEntrant],
    rows: list[StoredMatch],
    current: int,
    third_place: bool,
) -> tuple[Planned, ...]:
    """What the format plans next, through the workflow's own dispatch (flow.advance's)."""
    event = played(entrants, rows, third_place=third_place, current_round=current)
    return get_format(format).plan_next(event).planned


def random_event(
    format: str, size: int, seed: int
) -> tuple[list[SeededEntrant], list[StoredMatch], bool]:
    """A started event of ``format`` played for a random number of steps: (entrants, match
    rows, third_place). Results are random with 15% draws; the last step may be half played."""
    rng = random.Random(seed)
    withdrawn = {k for k in range(size) if rng.random() < 0.1}
    entrants = [SeededEntrant(100 + k, k + 1, k in withdrawn) for k in range(size)]
    third_place = rng.random() < 0.5
    steps = rng.randint(0, 2 * size)
    rows: list[StoredMatch] = []
    current = 0
    for step in range(steps):
        plan = next_matches(format, entrants, rows, current, third_place)
        if not plan:
            break
        current = max(p.round for p in plan)
        last = step == steps - 1 and rng.random() < 0.5
        for planned in plan:
            unplayed = last and not planned.bye and rng.random() < 0.5
            winner = rng.choices((0, 1, None), weights=(45, 40, 15))[0]
            status = "pending" if unplayed else "done"
            rows.append(_row(len(rows) + 1, planned, status, winner))
    return entrants, rows, third_place


@settings(max_examples=120, deadline=None)
@given(
    format=st.sampled_from(sorted(FORMATS)),
    size=st.integers(2, 9),
    seed=st.integers(0, 1_000_000),
)
def test_api_and_page_rank_random_events_identically(format: str, size: int, seed: int) -> None:
    entrants, rows, third_place = random_event(format, size, seed)
    table = flow.standings(format, entrants, rows, third_place=third_place)
    names = {e.bot_id: f"bot {e.bot_id}" for e in entrants}
    api_rows = standings_of(table, names)
    entries = [
        EntryRow(e.bot_id, names[e.bot_id], e.seed, 1500.0 - e.seed, e.withdrawn) for e in entrants
    ]
    page_rows, note = standings_view(format, table, entries)
    assert note is None and page_rows is not None
    assert [(r.rank, r.bot_id) for r in api_rows] == [(r.place, r.bot.id) for r in page_rows]
    columns = get_format(format).columns
    assert all(k in TIEBREAK_LABELS for k in columns)
    for api_row, page_row in zip(api_rows, page_rows, strict=True):
        values = [api_row.points, *(getattr(api_row, k) for k in columns[1:])]
        assert [float(v) for v in page_row.values] == values
    if not get_format(format).is_bracket:  # a table ranks by match points first
        points = [r.points for r in api_rows]
        assert points == sorted(points, reverse=True)


def test_only_complete_rounds_count_in_a_table() -> None:
    entrants = [SeededEntrant(100 + k, k + 1) for k in range(4)]
    first = next_matches("swiss", entrants, [], 0, False)
    rows = [_row(k + 1, p, "done", 0) for k, p in enumerate(first)]
    second = next_matches("swiss", entrants, rows, 1, False)
    rows.append(_row(3, second[0], "done", 0))
    rows.append(_row(4, second[1], "running", None))
    assert complete_rounds(rows) == 1
    table = flow.standings("swiss", entrants, rows)
    assert sum(r.points for r in table) == 2  # round 2's finished match does not count yet
    rows[-1] = _row(4, second[1], "done", 1)
    assert sum(r.points for r in flow.standings("swiss", entrants, rows)) == 4


def _page_order(html: str) -> list[int]:
    section = html.split('id="standings"', 1)[1].split("</section>", 1)[0]
    return [int(bot) for bot in re.findall(r'href="/bots/(\d+)"', section)]


async def _both(api: Api, tid: int) -> tuple[list[int], list[int]]:
    detail = await api.client.get(f"/v1/tournaments/{tid}")
    page = await api.client.get(f"/tournaments/{tid}")
    assert detail.status_code == 200 and page.status_code == 200
    return [s["bot_id"] for s in detail.json()["standings"]], _page_order(page.text)


pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    ("format", "bots"),
    [("swiss", 5), ("round_robin", 4), ("single_elimination", 5), ("double_elimination", 4)],
)
async def test_the_page_shows_the_apis_standings_mid_event_and_at_the_end(
    api: Api, format: str, bots: int
) -> None:
    tid, _ = await make_tournament(api.pool, format, bots, games_per_match=1)
    first = await flow.start_tournament(api.pool, tid)
    sender = InProcessSender(in_process({}))
    await sender(api.pool, first[:1])  # one match of the first round played, others wait
    from_api, from_page = await _both(api, tid)
    assert from_api and from_page == from_api
    await sender(api.pool, first[1:])
    tournament = await db_tournaments.get_tournament(api.pool, tid)
    assert tournament is not None and tournament.status == "finished"
    from_api, from_page = await _both(api, tid)
    assert len(from_api) == bots and from_page == from_api


def test_every_format_is_registered_has_page_labels_and_a_title() -> None:
    api_fields = set(StandingRead.__struct_fields__)
    for name, format in FORMATS.items():
        assert format.name == name and format.title
        assert all(k in TIEBREAK_LABELS for k in format.columns)
        assert set(format.columns[1:]) <= api_fields, name  # else the API drops the column
    # the names the API and the workflow accept are exactly the registered formats
    assert set(FORMATS) == set(domain.FORMATS) == set(get_args(domain.Format))
    assert set(get_args(get_type_hints(TournamentCreate)["format"])) == set(FORMATS)


def test_a_table_format_or_an_unknown_name_has_no_bracket() -> None:
    # the old make_bracket drew a double elimination for any name it did not know
    with pytest.raises(UnknownFormat, match="not a bracket format"):
        bracket_format("swiss")
    with pytest.raises(UnknownFormat, match="unknown tournament format 'ladder'"):
        bracket_format("ladder")
    with pytest.raises(UnknownFormat, match="not a table format"):
        table_format("single_elimination")
    with pytest.raises(UnknownFormat, match="unknown tournament format 'ladder'"):
        flow.standings("ladder", [SeededEntrant(1, 1), SeededEntrant(2, 2)], [])
