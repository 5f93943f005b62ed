"""Collusion flags (migration 0034): what the detector reads (a pool's recent ladder results
with the fit's ratings), the flags it stores for an admin, and the matches a flag names
(:mod:`services.flow.ladder_integrity`). Annulling them is :mod:`services.db.annulment`'s
(one table for every annulment, migration 0066)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from services.db.accounts import Connection, Executor
from services.ladder.collusion import Evidence


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One rated ladder match of a pool: its bots in slot order (side = slot % 2), each bot's
    owner, the winning side (None: a draw) and each bot's fitted rating now (None: unfitted)."""

    match_id: int
    bots: list[int]
    owners: list[int]
    winner_side: int | None
    ratings: list[float | None]
    tantos: tuple[int, int] = (0, 0)  # the points each side scored


async def recent_results(conn: Executor, pool: str, window_s: float) -> list[ResultRow]:
    """The pool's rated ladder matches of the last ``window_s`` seconds, not annulled."""
    rows = await conn.fetch(
        "SELECT m.id AS match_id, m.winner_side, "
        "array_agg(e.bot_id ORDER BY e.slot) AS bots, "
        "array_agg(b.owner_id ORDER BY e.slot) AS owners, "
        "array_agg(i.rating ORDER BY e.slot) AS ratings, "
        "(SELECT r.result->'tantos' FROM match_results r WHERE r.match_id = m.id) AS tantos "
        "FROM matches m JOIN match_entrants e ON e.match_id = m.id "
        "JOIN bots b ON b.id = e.bot_id "
        "LEFT JOIN rating_intervals i ON i.bot_id = e.bot_id AND i.mode = m.ladder_pool "
        "WHERE m.ladder_pool = $1 AND m.status = 'done' "
        "AND m.created_at > now() - make_interval(secs => $2) "
        "AND EXISTS (SELECT 1 FROM rating_history h WHERE h.match_id = m.id) "
        "AND NOT EXISTS (SELECT 1 FROM annulled_matches a WHERE a.match_id = m.id) "
        "GROUP BY m.id ORDER BY m.id",
        pool,
        float(window_s),
    )
    return [
        ResultRow(
            match_id=int(r["match_id"]),
            bots=[int(b) for b in r["bots"]],
            owners=[int(o) for o in r["owners"]],
            winner_side=r["winner_side"],
            ratings=list(r["ratings"]),
            tantos=_pair(r["tantos"]),
        )
        for r in rows
    ]


def _pair(value: Any) -> tuple[int, int]:
    if isinstance(value, list | tuple) and len(value) == 2:
        return int(value[0]), int(value[1])
    return 0, 0


@dataclass(frozen=True, slots=True)
class Flag:
    id: int
    pool: str
    bot_id: int
    against_kind: str
    against_id: int
    evidence: Evidence
    status: str
    flagged_at: datetime
    updated_at: datetime
    decided_at: datetime | None
    decided_by: int | None
    note: str | None


def _flag(row: asyncpg.Record) -> Flag:
    fields = dict(row)
    return Flag(**{**fields, "evidence": msgspec.convert(fields["evidence"], Evidence)})


_FLAG = (
    "SELECT id, pool, bot_id, against_kind, against_id, evidence, status, flagged_at, "
    "updated_at, decided_at, decided_by, note FROM ladder_flags"
)


async def upsert_flag(
    conn: Executor,
    pool: str,
    bot_id: int,
    against_kind: str,
    against_id: int,
    evidence: Evidence,
) -> int:
    """Open a flag on the pair, or refresh the evidence of its open one; its id."""
    found = await conn.fetchval(
        "INSERT INTO ladder_flags (pool, bot_id, against_kind, against_id, evidence) "
        "VALUES ($1, $2, $3, $4, $5) "
        "ON CONFLICT (pool, bot_id, against_kind, against_id) WHERE status = 'open' "
        "DO UPDATE SET evidence = EXCLUDED.evidence, updated_at = now() RETURNING id",
        pool,
        bot_id,
        against_kind,
        against_id,
        msgspec.to_builtins(evidence),
    )
    return int(found)


async def decided_matches(
    conn: Executor, pool: str, bot_id: int, against_kind: str, against_id: int
) -> int | None:
    """The matches the pair's last dismissed flag saw (None: never dismissed)."""
    found = await conn.fetchval(
        "SELECT (evidence->>'matches')::int FROM ladder_flags WHERE pool = $1 AND bot_id = $2 "
        "AND against_kind = $3 AND against_id = $4 AND status = 'dismissed' "
        "ORDER BY decided_at DESC LIMIT 1",
        pool,
        bot_id,
        against_kind,
        against_id,
    )
    return None if found is None else int(found)


async def flags(
    conn: Executor,
    *,
    status: str | None = "open",
    pool: str | None = None,
    before: int | None = None,
    limit: int | None = None,
) -> list[Flag]:
    """Flags, newest first (``status`` None: every status; ``before``: ids below it)."""
    rows = await conn.fetch(
        f"{_FLAG} WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR pool = $2) "
        "AND ($3::bigint IS NULL OR id < $3) ORDER BY id DESC LIMIT $4",
        status,
        pool,
        before,
        limit,
    )
    return [_flag(r) for r in rows]


async def flag_for_update(conn: Connection, flag_id: int) -> Flag | None:
    row = await conn.fetchrow(f"{_FLAG} WHERE id = $1 FOR UPDATE", flag_id)
    return None if row is None else _flag(row)


async def decide(
    conn: Executor, flag_id: int, status: str, admin_id: int | None, note: str | None
) -> None:
    await conn.execute(
        "UPDATE ladder_flags SET status = $2, decided_at = now(), decided_by = $3, note = $4 "
        "WHERE id = $1",
        flag_id,
        status,
        admin_id,
        note,
    )


async def pair_matches(
    conn: Executor, pool: str, bot_id: int, against_kind: str, against_id: int
) -> list[int]:
    """Every rated ladder match of the pool between ``bot_id`` and the bot ``against_id`` (or
    any bot of the owner ``against_id``) on the other side, not annulled yet."""
    rows = await conn.fetch(
        "SELECT DISTINCT m.id FROM matches m "
        "JOIN match_entrants me ON me.match_id = m.id AND me.bot_id = $2 "
        "JOIN match_entrants them ON them.match_id = m.id AND them.side <> me.side "
        "JOIN bots b ON b.id = them.bot_id "
        "WHERE m.ladder_pool = $1 AND m.status = 'done' "
        "AND CASE WHEN $3 = 'bot' THEN them.bot_id = $4 ELSE b.owner_id = $4 END "
        "AND EXISTS (SELECT 1 FROM rating_history h WHERE h.match_id = m.id) "
        "AND NOT EXISTS (SELECT 1 FROM annulled_matches a WHERE a.match_id = m.id) "
        "ORDER BY m.id",
        pool,
        bot_id,
        against_kind,
        against_id,
    )
    return [int(r["id"]) for r in rows]


async def get_flag(conn: Executor, flag_id: int) -> Flag | None:
    row = await conn.fetchrow(f"{_FLAG} WHERE id = $1", flag_id)
    return None if row is None else Flag(**dict(row))


@dataclass(frozen=True, slots=True)
class Party:
    """A bot, or an account, as a flag names it for the admins: its name and owner."""

    kind: str  # 'bot' or 'owner'
    id: int
    name: str
    owner_id: int
    owner_name: str


async def parties(conn: Executor, bot_ids: Sequence[int], owner_ids: Sequence[int]) -> list[Party]:
    """The bots (with their owners) and the owners, by id."""
    rows = await conn.fetch(
        "SELECT 'bot' AS kind, b.id, b.name, a.id AS owner_id, a.name AS owner_name "
        "FROM bots b JOIN accounts a ON a.id = b.owner_id WHERE b.id = ANY($1::bigint[]) "
        "UNION ALL SELECT 'owner', a.id, a.name, a.id, a.name FROM accounts a "
        "WHERE a.id = ANY($2::bigint[])",
        sorted(set(bot_ids)),
        sorted(set(owner_ids)),
    )
    return [Party(**dict(r)) for r in rows]
