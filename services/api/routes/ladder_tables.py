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
from datetime import UTC, datetime
from typing import Final

import asyncpg
from litestar.datastructures import State

from services.api.schemas.ladders import LadderEntryRead, Placement
from services.base.config import LadderSettings
from services.db.accounts import Account
from services.flow.ladder_table import TableRead, candidates, read_table
from services.ladder.model import LadderPool
from services.ladder.placement import Standing, standings
from services.ladder.table import LadderRow

KEEP_S: Final = 5.0
"""How long a ladder's table is served from one read."""
STATE_KEY: Final = "ladder_tables"


@dataclass(frozen=True, slots=True)
class LadderSnapshot:
    """One read of a ladder (its rows in table order with their standings, its matches in
    flight, today (UTC) and today's seed commitment); ``version`` names the read (pages key
    their cache with it)."""

    read: TableRead
    version: str
    public: list[LadderEntryRead]
    """The rows ranked for a reader without a key (:func:`table_entries`), made once per read."""


def placement(standing: Standing) -> Placement:
    """A bot's standing as the API shows it (:mod:`services.ladder.placement`)."""
    if standing.state == "placed":
        return Placement(state="placed", matches=standing.matches)
    if standing.state == "needs_opponents":
        return Placement(
            state="needs_opponents",
            matches=standing.matches,
            about=standing.about,
            opponents=standing.opponents,
            needed=standing.needed,
            at_least=standing.at_least,
        )
    return Placement(
        state=standing.state,
        matches=standing.matches,
        about=standing.about,
        opponents=standing.opponents,
        at_least=standing.at_least,
    )


def entry_read(
    row: LadderRow,
    rank: int | None,
    viewer: Account | None,
    below: int | None = None,
    standing: Standing | None = None,
) -> LadderEntryRead:
    """One row of the table; ``below``: the bot of the row under it (its LOS is over that one,
    and shown only while the fit's neighbour is still that bot); ``standing``: its placement
    (:func:`services.flow.ladder_table.read_table`)."""
    own = viewer is not None and viewer.id == row.owner_id
    los = row.los_next if below is not None and row.los_next_bot == below else None
    return LadderEntryRead(
        rank=rank,
        bot_id=row.bot_id,
        name=row.bot_name,
        owner=row.owner_name,
        rating=row.rating,
        interval=(row.low, row.high) if row.low is not None and row.high is not None else None,
        los_next=los,
        adjusted_rating=row.adjusted_rating,
        adjusted_interval=(
            (row.adjusted_low, row.adjusted_high)
            if row.adjusted_low is not None and row.adjusted_high is not None
            else None
        ),
        elo=row.elo,
        matches=row.matches,
        placement=placement(standing or _alone(row)),
        playing=row.playing,
        paused=row.paused_at is not None,
        pause_cause=row.pause_cause if own else None,
        hourly_cap=row.hourly_cap if own else None,
        joined_at=row.joined_at,
    )


def _alone(row: LadderRow) -> Standing:
    """A row's standing read without its table (no opponents known)."""
    (standing,) = standings(candidates([row]), {}, players=2, per_day=1, cap=1)
    return standing


def ranked(
    rows: list[LadderRow],
    viewer: Account | None,
    found: Sequence[Standing] | None = None,
) -> list[LadderEntryRead]:
    """Rows in table order, with their standings (``found``, one per row); a rank for each bot
    with a fitted rating (paused bots keep theirs, marked paused)."""
    out, rank = [], 0
    for k, row in enumerate(rows):
        if row.rating is not None:
            rank += 1
        below = rows[k + 1].bot_id if k + 1 < len(rows) else None
        standing = found[k] if found is not None else None
        out.append(
            entry_read(row, rank if row.rating is not None else None, viewer, below, standing)
        )
    return out


def table_entries(read: TableRead, viewer: Account | None) -> list[LadderEntryRead]:
    return ranked(read.rows, viewer, read.standings)


async def read_snapshot(
    pool: asyncpg.Pool, ladder: LadderPool, version: str, settings: LadderSettings
) -> LadderSnapshot:
    """A ladder's table straight from the database (:func:`services.flow.ladder_table.read_table`)."""
    async with pool.acquire() as conn:
        read = await read_table(conn, ladder, datetime.now(UTC), settings)
    return LadderSnapshot(read, version, table_entries(read, None))


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

    async def snapshot(
        self, pool: asyncpg.Pool, ladder: LadderPool, settings: LadderSettings
    ) -> LadderSnapshot:
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
                return await self.snapshot(pool, ladder, settings)  # its reader left: read here
        future: asyncio.Future[LadderSnapshot] = asyncio.get_running_loop().create_future()
        self._reading[ladder] = future
        try:
            self.reads += 1
            made = await read_snapshot(pool, ladder, f"{next(self._versions)}", settings)
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
