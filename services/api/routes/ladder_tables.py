"""A ladder's table, read once every :data:`KEEP_S` per API process (issue 33, 4).

``GET /v1/ladders/1v1`` read every entry's matches and ratings for every request: 85 ms at 658
ladder matches, 250 ms at 1,011, growing with history; 20 loops of it from one address starved
the database pool, and the uncached ladder page at 12 views a second from 20 addresses took
others' p50 to 2.8 s. A :class:`LadderTables` keeps each ladder's rows (and its matches in
flight and today's commitment) for :data:`KEEP_S`; requests that come while it is being read
wait for that one read. The public table (no API key), the ladder page and a bot's page read
through it, and the public answer is ranked once per read; a signed-in reader, who may see
their own bots' pause causes and caps, reads the database (inside the read lane's share,
:mod:`services.api.guard.read_lane`). Joining, leaving and changing an entry through this
process forget its ladder's copy at once; a result stored by a worker shows within
:data:`KEEP_S`.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Final

import asyncpg
from litestar.datastructures import State

from services.api.schemas.ladders import LadderEntryRead, Placement
from services.db import ladder as db_ladder
from services.db.accounts import Account
from services.ladder.model import PLACEMENT_HALFWIDTH, LadderPool, placement_progress
from services.ladder.table import LadderRow, estimate

KEEP_S: Final = 5.0
"""How long a ladder's table is served from one read."""
STATE_KEY: Final = "ladder_tables"


@dataclass(frozen=True, slots=True)
class LadderSnapshot:
    """One read of a ladder: its rows in table order, its matches in flight, today (UTC) and
    today's seed commitment; ``version`` names the read (pages key their cache with it)."""

    pool: LadderPool
    rows: tuple[LadderRow, ...]
    in_flight: int
    today: date
    commitment: str | None
    version: str
    public: list[LadderEntryRead]
    """The rows ranked for a reader without a key (:func:`ranked`), made once per read."""


def placement(row: LadderRow) -> Placement:
    """Where the bot stands in its placement, by the estimate the ladder places it by (on
    luck-adjusted outcomes when fitted: :func:`services.ladder.table.estimate`)."""
    found = estimate(row)
    if found is None or not row.matches:
        return Placement(state="waiting", matches=row.matches)
    halfwidth = (found[2] - found[1]) / 2
    if halfwidth < PLACEMENT_HALFWIDTH:
        return Placement(state="placed", matches=row.matches)
    played, about = placement_progress(row.matches, halfwidth)
    return Placement(state="placing", matches=played, about=about)


def entry_read(row: LadderRow, rank: int | None, viewer: Account | None) -> LadderEntryRead:
    own = viewer is not None and viewer.id == row.owner_id
    return LadderEntryRead(
        rank=rank,
        bot_id=row.bot_id,
        name=row.bot_name,
        owner=row.owner_name,
        rating=row.rating,
        interval=(row.low, row.high) if row.low is not None and row.high is not None else None,
        los_next=row.los_next,
        adjusted_rating=row.adjusted_rating,
        adjusted_interval=(
            (row.adjusted_low, row.adjusted_high)
            if row.adjusted_low is not None and row.adjusted_high is not None
            else None
        ),
        elo=row.elo,
        matches=row.matches,
        placement=placement(row),
        playing=row.playing,
        paused=row.paused_at is not None,
        pause_cause=row.pause_cause if own else None,
        hourly_cap=row.hourly_cap if own else None,
        joined_at=row.joined_at,
    )


def ranked(rows: Sequence[LadderRow], viewer: Account | None) -> list[LadderEntryRead]:
    """Rows in table order; a rank for each bot with a fitted rating (paused bots keep theirs,
    marked paused)."""
    out, rank = [], 0
    for row in rows:
        if row.rating is not None:
            rank += 1
        out.append(entry_read(row, rank if row.rating is not None else None, viewer))
    return out


async def read_snapshot(pool: asyncpg.Pool, ladder: LadderPool, version: str) -> LadderSnapshot:
    """A ladder's table straight from the database."""
    now = datetime.now(UTC)
    async with pool.acquire() as conn:
        rows = await db_ladder.table(conn, ladder, now)
        flying = await db_ladder.in_flight(conn, ladder)
        today = await db_ladder.get_day(conn, ladder, now.date())
    return LadderSnapshot(
        ladder,
        tuple(rows),
        flying,
        now.date(),
        None if today is None else today.commitment,
        version,
        ranked(rows, None),
    )


class LadderTables:
    """Each ladder's latest :class:`LadderSnapshot`, kept ``keep_s`` (one per API process)."""

    def __init__(self, keep_s: float = KEEP_S, clock: Callable[[], float] = time.monotonic):
        self.keep_s = keep_s
        self.clock = clock
        self.reads = 0
        """Reads of the database (tests count them)."""
        self._kept: dict[LadderPool, tuple[float, LadderSnapshot]] = {}
        self._reading: dict[LadderPool, asyncio.Future[LadderSnapshot]] = {}
        self._versions = itertools.count(1)

    async def snapshot(self, pool: asyncpg.Pool, ladder: LadderPool) -> LadderSnapshot:
        kept = self._kept.get(ladder)
        if kept is not None and kept[0] > self.clock():
            return kept[1]
        reading = self._reading.get(ladder)
        if reading is not None:
            try:
                return await asyncio.shield(reading)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if not reading.cancelled() or (task is not None and task.cancelling()):
                    raise
                return await self.snapshot(pool, ladder)  # its reader went away: read here
        future: asyncio.Future[LadderSnapshot] = asyncio.get_running_loop().create_future()
        self._reading[ladder] = future
        try:
            self.reads += 1
            made = await read_snapshot(pool, ladder, f"{next(self._versions)}")
            self._kept[ladder] = (self.clock() + self.keep_s, made)
            future.set_result(made)
            return made
        except BaseException as exc:
            if isinstance(exc, asyncio.CancelledError):
                future.cancel()
            else:
                future.set_exception(exc)
                future.exception()  # retrieved: no warning when nobody waits
            raise
        finally:
            del self._reading[ladder]

    def forget(self, ladder: LadderPool) -> None:
        """The ladder changed through this process: the next reader reads it again."""
        self._kept.pop(ladder, None)


def ladder_tables(state: State) -> LadderTables:
    """The app's :class:`LadderTables` (made on first use)."""
    tables = state.get(STATE_KEY)
    if not isinstance(tables, LadderTables):
        tables = state[STATE_KEY] = LadderTables()
    return tables
