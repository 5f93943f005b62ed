"""A ladder's table as everyone reads it (the API, the pages, the CLI through the API, and the
matchmaker's tick): its rows (:func:`services.db.ladder.table`), each bot's placement standing
(:mod:`services.ladder.placement`: placed, placing with about how many matches, or waiting for
opponents with how many it has and needs), the ladder matches playing and today's commitment.

One read, a few queries, none of which grows with the ladder's history: the table's own
(per-bot counts kept as matches happen), today's meetings, the linked accounts of its owners,
the in-flight count and today's day row. A cache of the table (the ``capacity`` work) caches
:func:`read_table`'s answer whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from services.base.config import LadderSettings
from services.db import ladder as db_ladder
from services.db import ladder_links as db_links
from services.db.accounts import Executor
from services.ladder.links import OwnerPair
from services.ladder.match_rules import players_of
from services.ladder.model import LadderPool
from services.ladder.placement import Candidate, Standing, standings
from services.ladder.table import LadderRow, estimate


@dataclass(frozen=True, slots=True)
class TableRead:
    pool: LadderPool
    rows: list[LadderRow]  # best fitted rating first; bots without a fit last
    standings: list[Standing]  # one per row, in the same order
    linked: frozenset[OwnerPair]  # owners of its bots whose bots never meet
    met_today: dict[tuple[int, int], int]
    in_flight: int
    today: date
    commitment: str | None  # today's, once today's first ladder match is made


def halfwidth_of(row: LadderRow) -> float | None:
    """The half-width of the interval the ladder places a bot by: its fit on luck-adjusted
    outcomes when there is one, else the public fit's (:func:`services.ladder.table.estimate`)."""
    found = estimate(row)
    if found is None:
        return None
    return max((found[2] - found[1]) / 2, 1.0)


def candidates(rows: list[LadderRow]) -> list[Candidate]:
    return [
        Candidate(
            bot_id=r.bot_id,
            owner=r.owner_id,
            matches=r.matches,
            halfwidth=halfwidth_of(r),
            first=r.first_about,
            fit_games=r.fit_games,
            rated_games=r.rated_games,
        )
        for r in rows
    ]


async def read_table(
    conn: Executor, ladder: LadderPool, now: datetime, settings: LadderSettings
) -> TableRead:
    """The ladder's table now, with every bot's standing."""
    today = now.astimezone(UTC).date()
    rows = await db_ladder.table(conn, ladder, now)
    met = await db_ladder.met_on(conn, ladder, today)
    linked = await db_links.links_among(
        conn, sorted({r.owner_id for r in rows}), settings.link_window_s
    )
    found = standings(
        candidates(rows),
        met,
        players=players_of(ladder),
        per_day=settings.pair_per_day,
        cap=max(settings.pair_per_day_placing, settings.pair_per_day),
        linked=linked,
    )
    flying = await db_ladder.in_flight(conn, ladder)
    day = await db_ladder.get_day(conn, ladder, today)
    return TableRead(
        pool=ladder,
        rows=rows,
        standings=found,
        linked=linked,
        met_today=met,
        in_flight=flying,
        today=today,
        commitment=None if day is None else day.commitment,
    )
