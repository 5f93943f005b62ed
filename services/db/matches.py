"""Matches, their entrants, results and compressed replays.

A match has two sides (0 and 1). Its bots are ``match_entrants`` rows by *slot*, and a slot's
side is its parity: one bot per side in 1v1 and "team" 2v2 (slot = side; a 2v2 team bot fills
both seats of its side), four bots in "individual" 2v2 (slots 0 and 2 are side 0, 1 and 3 side
1; the slot is the bot's seat in the first game). A Swiss bye is a match row with only slot 0
(``bye``). The result row is
stored at most once per match (``match_results_one_per_match``); the replay is zlib-compressed
JSON in ``replays``.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from datetime import date, datetime

import asyncpg

from arena.game.deals import DealsMode
from engine.rules import Rules
from services.db.accounts import Connection, Executor
from services.domain import (
    FINISHED_STATUSES,
    INDIVIDUAL,
    OPEN_STATUSES,
    TEAM,
    MatchStatus,
    Mode,
    Partnership,
)
from services.domain.packed_replay import PackedReplay
from services.domain.result import StoredResult, stored_result
from services.domain.seeds import LEGACY, SeedScheme
from services.domain.tournament_settings import (
    DEFAULT_FAULT_LIMIT,
    DEFAULT_TIME_BANK_MS,
    DEFAULT_TIMEOUT_MS,
)

_COLUMNS = (
    "m.id, m.tournament_id, m.round_id, r.number AS round_number, m.bracket, m.bracket_match, "
    "m.board, m.mode, m.status, m.seed, m.rated, m.games_per_match, m.rules, m.winner_side, "
    "m.bye, m.attempts, m.created_at, m.queued_at, m.finished_at, m.deals, m.partnership, "
    "m.seed_scheme, m.master_seed, m.ladder_pool, m.stopping_since IS NOT NULL AS stopping, "
    "m.played_attempt, m.timeout_ms, m.time_bank_ms, m.fault_limit, "
    "(SELECT bot_id FROM match_entrants WHERE match_id = m.id AND slot = 0) AS bot0, "
    "(SELECT bot_id FROM match_entrants WHERE match_id = m.id AND slot = 1) AS bot1, "
    "(SELECT array_agg(bot_id ORDER BY slot) FROM match_entrants WHERE match_id = m.id) "
    "AS seats, mr.result"
)
_FROM = (
    "FROM matches m LEFT JOIN rounds r ON r.id = m.round_id "
    "LEFT JOIN match_results mr ON mr.match_id = m.id"
)


@dataclass(frozen=True, slots=True)
class StoredMatch:
    """One match with its bots (``bot1`` is None for a bye) and its stored result.

    ``bot0``/``bot1`` are the first bot of each side; ``seats`` every bot in slot order (side
    of slot k: k % 2)."""

    id: int
    tournament_id: int | None
    round_id: int | None
    round_number: int | None
    bracket: str
    bracket_match: str | None
    board: int
    mode: Mode
    status: MatchStatus
    seed: int
    rated: bool
    games_per_match: int
    rules: Rules  # the JSONB document, decoded here once
    winner_side: int | None
    bye: bool
    attempts: int
    created_at: datetime
    queued_at: datetime | None
    finished_at: datetime | None
    deals: DealsMode  # how its games are dealt (arena.game.deals; migration 0004)
    bot0: int
    bot1: int | None
    result: StoredResult | None
    partnership: Partnership = TEAM  # how a 2v2 side is filled (migration 0005)
    seats: tuple[int, ...] = ()  # every bot by slot (empty: bot0, bot1)
    seed_scheme: SeedScheme = (
        LEGACY  # how the seed was made (services.domain.seeds; migration 0008)
    )
    master_seed: bytes | None = field(default=None, repr=False)  # a challenge's own (0008)
    ladder_pool: str | None = None  # the ladder of a ladder match (0020)
    stopping: bool = False  # decided, but a worker may still be playing it (0022)
    played_attempt: int | None = None  # the attempt whose replay is stored (0023)
    # the time limits it is played under: its event's, or the defaults (0027)
    timeout_ms: int = DEFAULT_TIMEOUT_MS
    time_bank_ms: int = DEFAULT_TIME_BANK_MS
    fault_limit: int = DEFAULT_FAULT_LIMIT

    @property
    def finished(self) -> bool:
        return self.status in FINISHED_STATUSES

    @property
    def over(self) -> bool:
        """Nothing more will be decided: finished, cancelled or given up on."""
        return self.status not in OPEN_STATUSES

    @property
    def stopped(self) -> bool:
        """Over, and no worker is still playing it: what derives its cards may be shown."""
        return self.over and not self.stopping

    @property
    def bots(self) -> tuple[int, ...]:
        """Every bot of the match, in slot order."""
        if self.seats:
            return self.seats
        return (self.bot0,) if self.bot1 is None else (self.bot0, self.bot1)

    @property
    def individual(self) -> bool:
        return self.partnership == INDIVIDUAL

    def side_bots(self, side: int) -> tuple[int, ...]:
        return self.bots[side::2]

    @property
    def winner_bot(self) -> int | None:
        """The winning bot when a side is one bot (None for a draw, or in individual 2v2)."""
        if self.winner_side is None or self.individual:
            return None
        return self.bot0 if self.winner_side == 0 else self.bot1

    @property
    def winners(self) -> tuple[int, ...]:
        """The bots of the winning side (none for a draw)."""
        return () if self.winner_side is None else self.side_bots(self.winner_side)

    @property
    def games_won(self) -> tuple[int, int]:
        """Games won by side; (0, 0) without a result."""
        return self.result.games_won if self.result is not None else (0, 0)

    @property
    def tantos(self) -> tuple[int, int]:
        """Points scored by side over all games; (0, 0) without a result."""
        return self.result.tantos if self.result is not None else (0, 0)


@dataclass(frozen=True, slots=True)
class LadderPlace:
    """Where a ladder match stands: its pool, day and number in the day (its seed's identity),
    and why the matchmaker chose it."""

    pool: str | None
    day: date | None
    number: int | None
    reason: str | None
    detail: str | None


def _match(row: asyncpg.Record) -> StoredMatch:
    fields = dict(row)
    fields["seats"] = tuple(fields["seats"] or ())
    fields["rules"] = Rules.from_dict(fields["rules"])
    if fields["result"] is not None:
        fields["result"] = stored_result(fields["result"])
    return StoredMatch(**fields)


async def insert_match(
    conn: Connection,
    *,
    bots: tuple[int, ...],
    mode: Mode,
    seed: int,
    rated: bool,
    games_per_match: int,
    rules: Rules,
    tournament_id: int | None = None,
    round_id: int | None = None,
    bracket: str = "main",
    bracket_match: str | None = None,
    board: int = 0,
    bye: bool = False,
    deals: DealsMode = "independent",
    partnership: Partnership = TEAM,
    seed_scheme: SeedScheme = LEGACY,
    master_seed: bytes | None = None,
    ladder: LadderPlace | None = None,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    time_bank_ms: int = DEFAULT_TIME_BANK_MS,
    fault_limit: int = DEFAULT_FAULT_LIMIT,
) -> int:
    """A new match (status ``pending``, or ``done`` for a bye); ``bots`` in slot order (one
    per side, or four for individual 2v2); ``ladder`` for a ladder match (migration 0020);
    the time limits its event plays under (0027)."""
    place = ladder if ladder is not None else LadderPlace(None, None, None, None, None)
    match_id: int = await conn.fetchval(
        "INSERT INTO matches (tournament_id, round_id, bracket, bracket_match, board, mode, "
        "status, seed, rated, games_per_match, rules, winner_side, bye, finished_at, deals, "
        "partnership, seed_scheme, master_seed, ladder_pool, ladder_day, ladder_number, "
        "ladder_reason, ladder_detail, timeout_ms, time_bank_ms, fault_limit) VALUES ($1, $2, "
        "$3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, CASE WHEN $13 THEN now() END, $14, "
        "$15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25) RETURNING id",
        tournament_id,
        round_id,
        bracket,
        bracket_match,
        board,
        mode,
        "done" if bye else "pending",
        seed,
        rated and not bye,
        games_per_match,
        rules,
        0 if bye else None,
        bye,
        deals,
        partnership,
        seed_scheme,
        master_seed,
        place.pool,
        place.day,
        place.number,
        place.reason,
        place.detail,
        timeout_ms,
        time_bank_ms,
        fault_limit,
    )
    await conn.executemany(
        "INSERT INTO match_entrants (match_id, slot, bot_id, side) VALUES ($1, $2, $3, $4)",
        [(match_id, slot, bot, slot % 2) for slot, bot in enumerate(bots)],
    )
    return match_id


async def get_match(
    conn: Executor, match_id: int, *, for_update: bool = False
) -> StoredMatch | None:
    lock = " FOR UPDATE OF m" if for_update else ""
    row = await conn.fetchrow(f"SELECT {_COLUMNS} {_FROM} WHERE m.id = $1{lock}", match_id)
    return None if row is None else _match(row)


async def get_matches(conn: Executor, match_ids: list[int]) -> list[StoredMatch]:
    rows = await conn.fetch(
        f"SELECT {_COLUMNS} {_FROM} WHERE m.id = ANY($1::bigint[]) ORDER BY m.id", match_ids
    )
    return [_match(row) for row in rows]


_LEAN_COLUMNS = _COLUMNS.replace("mr.result", "(mr.result - 'luck') AS result")
"""The columns without a result's luck, its bulk (a few kilobytes a match as Python objects)."""


async def tournament_matches(conn: Executor, tournament_id: int) -> list[StoredMatch]:
    """Every match of a tournament, by round then board; their results without their luck
    (what standings, pairings and brackets read; :func:`results_json` has the whole result)."""
    rows = await conn.fetch(
        f"SELECT {_LEAN_COLUMNS} {_FROM} WHERE m.tournament_id = $1 "
        "ORDER BY r.number, m.board, m.id",
        tournament_id,
    )
    return [_match(row) for row in rows]


_FINISHED_SQL = ", ".join(f"'{status}'" for status in FINISHED_STATUSES)  # as the 0012 index says


async def round_unfinished(conn: Executor, tournament_id: int, number: int) -> bool:
    """Whether round ``number`` of the tournament has a match not finished (neither done nor
    forfeit): one probe of the ``matches_unfinished_by_round`` index (migration 0012)."""
    return bool(
        await conn.fetchval(
            "SELECT EXISTS (SELECT 1 FROM rounds r JOIN matches m ON m.round_id = r.id "
            "WHERE r.tournament_id = $1 AND r.number = $2 AND m.round_id IS NOT NULL "
            f"AND m.status NOT IN ({_FINISHED_SQL}))",
            tournament_id,
            number,
        )
    )


async def bot_matches(
    conn: Executor, bot_id: int, *, limit: int, cursor: int | None
) -> tuple[list[StoredMatch], bool]:
    """A bot's matches, newest first (keyset pages by match id)."""
    rows = await conn.fetch(
        f"SELECT {_COLUMNS} {_FROM} WHERE m.id IN ("
        "  SELECT match_id FROM match_entrants WHERE bot_id = $1 "
        "  AND ($2::bigint IS NULL OR match_id < $2) ORDER BY match_id DESC LIMIT $3"
        ") ORDER BY m.id DESC",
        bot_id,
        cursor,
        limit + 1,
    )
    return [_match(row) for row in rows[:limit]], len(rows) > limit


async def mark_queued(conn: Connection, match_ids: list[int]) -> list[int]:
    """Open matches among ``match_ids`` become ``queued`` (attempts + 1); returns those ids."""
    rows = await conn.fetch(
        "UPDATE matches SET status = 'queued', attempts = attempts + 1, queued_at = now() "
        "WHERE id = ANY($1::bigint[]) AND status IN ('pending', 'queued', 'running') "
        "RETURNING id",
        match_ids,
    )
    return sorted(int(row["id"]) for row in rows)


async def insert_result(
    conn: Connection,
    match_id: int,
    *,
    winner_side: int | None,
    result: StoredResult,
    task_id: str | None,
) -> bool:
    """Store the result once; False if the match already has one (nothing changes)."""
    found = await conn.fetchval(
        "INSERT INTO match_results (match_id, winner_side, result, task_id) "
        "VALUES ($1, $2, $3, $4) "
        "ON CONFLICT ON CONSTRAINT match_results_one_per_match DO NOTHING RETURNING id",
        match_id,
        winner_side,
        result,
        task_id,
    )
    return found is not None


async def finish_match(
    conn: Connection, match_id: int, *, status: MatchStatus, winner_side: int | None
) -> None:
    await conn.execute(
        "UPDATE matches SET status = $2, winner_side = $3, finished_at = now() WHERE id = $1",
        match_id,
        status,
        winner_side,
    )


async def set_played_attempt(conn: Connection, match_id: int, attempt: int) -> None:
    """The attempt whose replay is stored (arena.deals: each attempt is dealt afresh)."""
    await conn.execute("UPDATE matches SET played_attempt = $2 WHERE id = $1", match_id, attempt)


async def store_replay(conn: Connection, match_id: int, packed: PackedReplay) -> None:
    """Store the replay's zlib-compressed JSON as it comes (a second store for the match
    changes nothing)."""
    await conn.execute(
        "INSERT INTO replays (match_id, compression, data, size_bytes) VALUES ($1, 'zlib', $2, $3) "
        "ON CONFLICT (match_id) DO NOTHING",
        match_id,
        packed.data,
        packed.size,
    )


async def replay_json(conn: Executor, match_id: int) -> bytes | None:
    """The replay document (decompressed JSON), in one query; None if there is none."""
    row = await conn.fetchrow("SELECT compression, data FROM replays WHERE match_id = $1", match_id)
    if row is None:
        return None
    return inflate(row["compression"], bytes(row["data"]))


def inflate(compression: str, data: bytes) -> bytes:
    """A stored replay's JSON document from its column (raises ``zlib.error`` if corrupt)."""
    return zlib.decompress(data) if compression == "zlib" else data


async def open_matches_of_bot(conn: Connection, bot_id: int, tournament_id: int) -> list[int]:
    """Unfinished matches of ``bot_id`` in a tournament."""
    rows = await conn.fetch(
        "SELECT m.id FROM matches m JOIN match_entrants e ON e.match_id = m.id "
        "WHERE e.bot_id = $1 AND m.tournament_id = $2 "
        "AND m.status IN ('pending', 'queued', 'running') ORDER BY m.id",
        bot_id,
        tournament_id,
    )
    return [int(row["id"]) for row in rows]


async def entrant_names(conn: Executor, bot_ids: list[int]) -> dict[int, str]:
    rows = await conn.fetch("SELECT id, name FROM bots WHERE id = ANY($1::bigint[])", bot_ids)
    return {int(row["id"]): str(row["name"]) for row in rows}


@dataclass(frozen=True, slots=True)
class EntrantSecrets:
    """What a match message needs of a bot: its name, URL and encrypted signing secret, and
    the previous secret while its rotation grace period lasts (else None)."""

    name: str
    url: str
    secret_enc: bytes
    previous_enc: bytes | None


async def entrant_secrets(conn: Executor, bot_ids: list[int]) -> dict[int, EntrantSecrets]:
    """Name, URL and encrypted signing secrets per bot (the previous one only if unexpired)."""
    rows = await conn.fetch(
        "SELECT id, name, url, signing_secret_enc, CASE WHEN previous_secret_until > now() "
        "THEN previous_secret_enc END AS previous_enc "
        "FROM bots WHERE id = ANY($1::bigint[])",
        bot_ids,
    )
    return {
        int(row["id"]): EntrantSecrets(
            str(row["name"]),
            str(row["url"]),
            bytes(row["signing_secret_enc"]),
            None if row["previous_enc"] is None else bytes(row["previous_enc"]),
        )
        for row in rows
    }


async def mark_running(conn: Executor, match_id: int) -> bool:
    """A pending or queued match is being played (``truco.match_started``); True if it changed.
    A late message never reopens a finished or cancelled match."""
    found = await conn.fetchval(
        "UPDATE matches SET status = 'running', started_at = now() "
        "WHERE id = $1 AND status IN ('pending', 'queued') RETURNING id",
        match_id,
    )
    return found is not None


CANCEL_OPEN = (
    "UPDATE matches SET status = 'cancelled', finished_at = now(), "
    "stopping_since = CASE WHEN status IN ('queued', 'running') THEN now() END "
    "WHERE {where} AND status IN ('pending', 'queued', 'running') RETURNING id"
)
"""Open matches become ``cancelled``; a sent one (queued, running) is ``stopping`` until its
worker has stopped (migration 0022)."""


async def cancel_open_matches(conn: Connection, tournament_id: int) -> list[int]:
    """Every unfinished match of a tournament becomes ``cancelled``; returns their ids."""
    rows = await conn.fetch(CANCEL_OPEN.format(where="tournament_id = $1"), tournament_id)
    return sorted(int(row["id"]) for row in rows)


async def results_json(conn: Executor, match_ids: list[int]) -> dict[int, bytes]:
    """The stored results (JSON, luck included) of the matches that have one, by match id."""
    rows = await conn.fetch(
        "SELECT match_id, result::text AS result FROM match_results "
        "WHERE match_id = ANY($1::bigint[])",
        match_ids,
    )
    return {int(row["match_id"]): row["result"].encode() for row in rows}


async def replays_json(conn: Executor, match_ids: list[int]) -> dict[int, bytes]:
    """The replay documents (decompressed JSON) of the matches that have one, by match id."""
    rows = await conn.fetch(
        "SELECT match_id, compression, data FROM replays WHERE match_id = ANY($1::bigint[])",
        match_ids,
    )
    return {int(row["match_id"]): inflate(row["compression"], bytes(row["data"])) for row in rows}
