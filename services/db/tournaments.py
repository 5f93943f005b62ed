"""Tournaments, their entries and rounds."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from services.db.accounts import Connection, Executor
from services.domain import BotStatus, Format, Mode, Partnership, RoundStatus, TournamentStatus
from services.domain.tournament_settings import TournamentSettings, decode_settings

_COLUMNS = (
    "id, organiser_id, name, format, mode, status, settings, start_at, current_round, "
    "created_at, started_at, finished_at, partnership, master_seed, "
    "EXISTS (SELECT 1 FROM matches s WHERE s.tournament_id = tournaments.id "
    "AND s.stopping_since IS NOT NULL) AS matches_stopping"
)


@dataclass(frozen=True, slots=True)
class Tournament:
    id: int
    organiser_id: int
    name: str
    format: Format
    mode: Mode
    status: TournamentStatus
    settings: TournamentSettings  # the JSONB document, decoded here once
    start_at: datetime | None
    current_round: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    partnership: Partnership = "team"  # how a 2v2 side is filled (migration 0005)
    # 32 secret bytes every match seed derives from (services.domain.seeds; 0008); None: stored before
    master_seed: bytes | None = dataclasses.field(default=None, repr=False)
    # a match of it is decided but may still be played by a worker (migration 0022)
    matches_stopping: bool = False

    @property
    def seed_revealed(self) -> bool:
        """The master seed is public once the event is over (finished or cancelled) and no
        worker is still playing a match of it (a cancelled event's last matches)."""
        return self.status in ("finished", "cancelled") and not self.matches_stopping


@dataclass(frozen=True, slots=True)
class Entry:
    tournament_id: int
    bot_id: int
    name: str
    bot_status: BotStatus
    seed: int | None
    entered_at: datetime
    withdrawn_at: datetime | None
    owner_id: int = 0


@dataclass(frozen=True, slots=True)
class RoundRow:
    id: int
    number: int
    status: RoundStatus


def _tournament(row: asyncpg.Record) -> Tournament:
    fields = dict(row)
    fields["settings"] = decode_settings(fields["settings"])
    return Tournament(**fields)


async def create_tournament(
    conn: Executor,
    *,
    organiser_id: int,
    name: str,
    format: Format,
    mode: Mode,
    settings: TournamentSettings,
    start_at: datetime | None,
    partnership: Partnership = "team",
    master_seed: bytes | None = None,
) -> Tournament:
    row = await conn.fetchrow(
        "INSERT INTO tournaments (organiser_id, name, format, mode, settings, start_at, "
        "partnership, master_seed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
        f"RETURNING {_COLUMNS}",
        organiser_id,
        name,
        format,
        mode,
        settings,
        start_at,
        partnership,
        master_seed,
    )
    assert row is not None
    return _tournament(row)


async def get_tournament(
    conn: Executor, tournament_id: int, *, lock: str | None = None
) -> Tournament | None:
    """A tournament; ``lock`` is ``"update"`` or ``"share"`` to lock its row (in a transaction)."""
    suffix = {None: "", "update": " FOR UPDATE", "share": " FOR SHARE"}[lock]
    row = await conn.fetchrow(
        f"SELECT {_COLUMNS} FROM tournaments WHERE id = $1{suffix}", tournament_id
    )
    return None if row is None else _tournament(row)


async def list_tournaments(
    conn: Executor, *, status: TournamentStatus | None, limit: int, cursor: int | None
) -> tuple[list[Tournament], bool]:
    """Newest first, optionally of one status; keyset pages by id."""
    rows = await conn.fetch(
        f"SELECT {_COLUMNS} FROM tournaments WHERE ($1::text IS NULL OR status = $1) "
        "AND ($2::bigint IS NULL OR id < $2) ORDER BY id DESC LIMIT $3",
        status,
        cursor,
        limit + 1,
    )
    return [_tournament(row) for row in rows[:limit]], len(rows) > limit


async def due_tournaments(conn: Executor, now: datetime) -> list[int]:
    rows = await conn.fetch(
        "SELECT id FROM tournaments WHERE status = 'registering' AND start_at IS NOT NULL "
        "AND start_at <= $1 ORDER BY start_at, id",
        now,
    )
    return [int(row["id"]) for row in rows]


async def set_running(conn: Connection, tournament_id: int, settings: TournamentSettings) -> None:
    await conn.execute(
        "UPDATE tournaments SET status = 'running', started_at = now(), settings = $2 "
        "WHERE id = $1",
        tournament_id,
        settings,
    )


async def set_current_round(conn: Connection, tournament_id: int, number: int) -> None:
    await conn.execute(
        "UPDATE tournaments SET current_round = GREATEST(current_round, $2) WHERE id = $1",
        tournament_id,
        number,
    )


async def finish_tournament(conn: Connection, tournament_id: int) -> None:
    await conn.execute(
        "UPDATE tournaments SET status = 'finished', finished_at = now() "
        "WHERE id = $1 AND status = 'running'",
        tournament_id,
    )


async def cancel_tournament(conn: Connection, tournament_id: int) -> bool:
    """A registering or running tournament becomes ``cancelled``; True if it changed."""
    found = await conn.fetchval(
        "UPDATE tournaments SET status = 'cancelled', finished_at = now() "
        "WHERE id = $1 AND status IN ('registering', 'running') RETURNING id",
        tournament_id,
    )
    return found is not None


# --- entries --------------------------------------------------------------------------------

_ENTRY = (
    "SELECT e.tournament_id, e.bot_id, b.name, b.status AS bot_status, e.seed, e.entered_at, "
    "e.withdrawn_at, b.owner_id FROM tournament_entries e JOIN bots b ON b.id = e.bot_id"
)


async def add_entry(
    conn: Executor, tournament_id: int, bot_id: int, entered_by: int | None = None
) -> Entry | None:
    """Enter a bot (``entered_by``: the account that did); None if it is entered already."""
    inserted = await conn.fetchval(
        "INSERT INTO tournament_entries (tournament_id, bot_id, entered_by) VALUES ($1, $2, $3) "
        "ON CONFLICT ON CONSTRAINT tournament_entries_pkey DO NOTHING RETURNING bot_id",
        tournament_id,
        bot_id,
        entered_by,
    )
    if inserted is None:
        return None
    return await get_entry(conn, tournament_id, bot_id)


async def entry_count(conn: Executor, tournament_id: int) -> int:
    """The tournament's entries that are not withdrawn."""
    count: int = await conn.fetchval(
        "SELECT count(*) FROM tournament_entries WHERE tournament_id = $1 AND withdrawn_at IS NULL",
        tournament_id,
    )
    return count


async def get_entry(conn: Executor, tournament_id: int, bot_id: int) -> Entry | None:
    row = await conn.fetchrow(
        f"{_ENTRY} WHERE e.tournament_id = $1 AND e.bot_id = $2", tournament_id, bot_id
    )
    return None if row is None else Entry(**dict(row))


async def entries(conn: Executor, tournament_id: int) -> list[Entry]:
    """Every entry, by seed (unseeded last) then entry time."""
    rows = await conn.fetch(
        f"{_ENTRY} WHERE e.tournament_id = $1 ORDER BY e.seed NULLS LAST, e.entered_at, e.bot_id",
        tournament_id,
    )
    return [Entry(**dict(row)) for row in rows]


async def withdraw_entry(conn: Executor, tournament_id: int, bot_id: int) -> bool:
    """Withdraw a bot's entry; False if it is not entered (or withdrawn already)."""
    found = await conn.fetchval(
        "UPDATE tournament_entries SET withdrawn_at = now() WHERE tournament_id = $1 "
        "AND bot_id = $2 AND withdrawn_at IS NULL RETURNING bot_id",
        tournament_id,
        bot_id,
    )
    return found is not None


async def reinstate_entry(
    conn: Executor, tournament_id: int, bot_id: int, entered_by: int | None
) -> Entry | None:
    """A withdrawn entry entered again (a registering event: it has no seed yet)."""
    await conn.execute(
        "UPDATE tournament_entries SET withdrawn_at = NULL, entered_at = now(), entered_by = $3 "
        "WHERE tournament_id = $1 AND bot_id = $2",
        tournament_id,
        bot_id,
        entered_by,
    )
    return await get_entry(conn, tournament_id, bot_id)


async def withdraw_from_others_registering(conn: Executor, bot_id: int, owner_id: int) -> list[int]:
    """Withdraw the bot from every registering event organised by another account than
    ``owner_id`` into which someone else than ``owner_id`` entered it (its owner closed it);
    the events' ids."""
    rows = await conn.fetch(
        "UPDATE tournament_entries e SET withdrawn_at = now() FROM tournaments t "
        "WHERE t.id = e.tournament_id AND e.bot_id = $1 AND e.withdrawn_at IS NULL "
        "AND t.status = 'registering' AND t.organiser_id <> $2 "
        "AND e.entered_by IS DISTINCT FROM $2 RETURNING t.id",
        bot_id,
        owner_id,
    )
    return sorted(int(r["id"]) for r in rows)


@dataclass(frozen=True, slots=True)
class ForeignEntry:
    """An entry whose bot has another owner than the organiser."""

    bot_id: int
    open: bool
    min_timeout_ms: int | None
    by_other: bool  # another account than its owner entered it (NULL entered_by: not known)


async def foreign_entries(conn: Executor, tournament_id: int, owner_id: int) -> list[ForeignEntry]:
    """Entries (not withdrawn) of bots whose owner is not ``owner_id``, by bot id."""
    rows = await conn.fetch(
        "SELECT e.bot_id, b.open, b.min_timeout_ms, COALESCE(e.entered_by <> b.owner_id, false) "
        "FROM tournament_entries e "
        "JOIN bots b ON b.id = e.bot_id WHERE e.tournament_id = $1 AND e.withdrawn_at IS NULL "
        "AND b.owner_id <> $2 ORDER BY e.bot_id",
        tournament_id,
        owner_id,
    )
    return [ForeignEntry(int(r[0]), bool(r[1]), r[2], bool(r[3])) for r in rows]


async def lock_foreign_entries(conn: Connection, organiser_id: int) -> None:
    """Serialise entries of other owners' bots into ``organiser_id``'s events until the
    transaction ends (the quota's count cannot be raced)."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('truco:entries:organiser:' || $1, 0))",
        str(organiser_id),
    )


async def foreign_entries_of_organiser(conn: Connection, organiser_id: int) -> int:
    """Entries (not withdrawn) of other owners' bots that the organiser made in its
    registering and running events (bots their owners entered themselves are not counted)."""
    found = await conn.fetchval(
        "SELECT count(*) FROM tournament_entries e JOIN tournaments t ON t.id = e.tournament_id "
        "JOIN bots b ON b.id = e.bot_id WHERE t.organiser_id = $1 AND e.entered_by = $1 "
        "AND b.owner_id <> $1 AND e.withdrawn_at IS NULL "
        "AND t.status IN ('registering', 'running')",
        organiser_id,
    )
    return int(found or 0)


async def entries_not_owned_by(conn: Executor, tournament_id: int, owner_id: int) -> list[int]:
    """Bots entered (and not withdrawn) in the tournament whose owner is not ``owner_id``."""
    rows = await conn.fetch(
        "SELECT e.bot_id FROM tournament_entries e JOIN bots b ON b.id = e.bot_id "
        "WHERE e.tournament_id = $1 AND e.withdrawn_at IS NULL AND b.owner_id <> $2 "
        "ORDER BY e.bot_id",
        tournament_id,
        owner_id,
    )
    return [int(r["bot_id"]) for r in rows]


async def entries_page(
    conn: Executor, tournament_id: int, *, limit: int, cursor: int | None
) -> tuple[list[Entry], bool]:
    """Entries by bot id (keyset pages)."""
    rows = await conn.fetch(
        f"{_ENTRY} WHERE e.tournament_id = $1 AND ($2::bigint IS NULL OR e.bot_id > $2) "
        "ORDER BY e.bot_id LIMIT $3",
        tournament_id,
        cursor,
        limit + 1,
    )
    return [Entry(**dict(row)) for row in rows[:limit]], len(rows) > limit


async def set_seeds(conn: Connection, tournament_id: int, seeds: dict[int, int]) -> None:
    await conn.executemany(
        "UPDATE tournament_entries SET seed = $3 WHERE tournament_id = $1 AND bot_id = $2",
        [(tournament_id, bot_id, seed) for bot_id, seed in seeds.items()],
    )


async def withdraw_entries(conn: Connection, tournament_id: int, bot_ids: list[int]) -> None:
    await conn.execute(
        "UPDATE tournament_entries SET withdrawn_at = now() "
        "WHERE tournament_id = $1 AND bot_id = ANY($2::bigint[]) AND withdrawn_at IS NULL",
        tournament_id,
        bot_ids,
    )


async def running_tournaments_of_bot(conn: Connection, bot_id: int) -> list[int]:
    """Running tournaments the bot plays in and has not left, locked for update, by id."""
    rows = await conn.fetch(
        "SELECT t.id FROM tournaments t JOIN tournament_entries e ON e.tournament_id = t.id "
        "WHERE e.bot_id = $1 AND e.withdrawn_at IS NULL AND e.seed IS NOT NULL "
        "AND t.status = 'running' ORDER BY t.id FOR UPDATE OF t",
        bot_id,
    )
    return [int(row["id"]) for row in rows]


# --- rounds ---------------------------------------------------------------------------------


async def ensure_round(conn: Connection, tournament_id: int, number: int) -> RoundRow:
    """The round ``number`` of a tournament, created (``running``) if missing."""
    row = await conn.fetchrow(
        "INSERT INTO rounds (tournament_id, number, status) VALUES ($1, $2, 'running') "
        "ON CONFLICT ON CONSTRAINT rounds_number_unique DO UPDATE SET number = EXCLUDED.number "
        "RETURNING id, number, status",
        tournament_id,
        number,
    )
    assert row is not None
    return RoundRow(id=row["id"], number=row["number"], status=row["status"])


async def rounds(conn: Executor, tournament_id: int) -> list[RoundRow]:
    rows = await conn.fetch(
        "SELECT id, number, status FROM rounds WHERE tournament_id = $1 ORDER BY number",
        tournament_id,
    )
    return [RoundRow(id=row["id"], number=row["number"], status=row["status"]) for row in rows]


async def set_round_status(conn: Connection, round_id: int, status: RoundStatus) -> None:
    await conn.execute(
        "UPDATE rounds SET status = $2, "
        "finished_at = CASE WHEN $2 = 'done' THEN COALESCE(finished_at, now()) END "
        "WHERE id = $1 AND status <> $2",
        round_id,
        status,
    )
