"""Matches a person plays against a bot (``play_matches``, migration 0026, docs/play.md).

Kept apart from ``matches``: ratings, ladders and tournaments never read this table, so a
match against a person never changes a bot's rating; :func:`record_vs_people` is the bot's
record against people. The replay is zlib-compressed JSON, stored once the match is over.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from engine.rules import Rules
from services.db.accounts import Executor
from services.db.bots import _COLUMNS as BOT_COLUMNS
from services.db.bots import Bot
from services.db.bots import _bot as bot_of
from services.domain.result import StoredResult, stored_result

_COLUMNS = (
    "id, bot_id, account_id, person_side, rules, games, seed, token_hash, status, winner_side, "
    "result, created_at, finished_at"
)


@dataclass(frozen=True, slots=True)
class PlayMatch:
    id: int
    bot_id: int
    account_id: int | None
    person_side: int
    rules: Rules  # the JSONB documents, decoded here once
    games: int
    seed: int
    token_hash: bytes
    status: str  # playing, finished, abandoned
    winner_side: int | None
    result: StoredResult | None
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class Record:
    """A bot's finished matches against people: won, lost, neither (no winner)."""

    won: int = 0
    lost: int = 0
    drawn: int = 0

    @property
    def played(self) -> int:
        return self.won + self.lost + self.drawn


def _row(row: asyncpg.Record) -> PlayMatch:
    fields = {key: row[key] for key in row.keys()}  # noqa: SIM118
    fields["rules"] = Rules.from_dict(fields["rules"])
    if fields["result"] is not None:
        # rows stored before issue 34 hold the runner's MatchResult: no per-game scores
        fields["result"] = stored_result({"games": (), **fields["result"]})
    return PlayMatch(**fields)


async def create_play_match(
    conn: Executor,
    *,
    bot_id: int,
    account_id: int | None,
    person_side: int,
    rules: Rules,
    games: int,
    seed: int,
    token_hash: bytes,
    address_key: bytes,
) -> PlayMatch:
    row = await conn.fetchrow(
        "INSERT INTO play_matches (bot_id, account_id, person_side, rules, games, seed, "
        "token_hash, address_key) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
        f"RETURNING {_COLUMNS}",
        bot_id,
        account_id,
        person_side,
        rules,
        games,
        seed,
        token_hash,
        address_key,
    )
    assert row is not None
    return _row(row)


async def get_play_match(conn: Executor, play_id: int) -> PlayMatch | None:
    row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM play_matches WHERE id = $1", play_id)
    return None if row is None else _row(row)


async def starts_since(conn: Executor, address_key: bytes, since: datetime) -> int:
    """Play matches started from one (digested) client address since ``since``."""
    count = await conn.fetchval(
        "SELECT count(*) FROM play_matches WHERE address_key = $1 AND created_at >= $2",
        address_key,
        since,
    )
    return int(count or 0)


async def finish_play_match(
    conn: Executor,
    play_id: int,
    *,
    status: str,
    winner_side: int | None,
    result: StoredResult | None,
    replay: bytes | None,
) -> None:
    """Store the end of a play match (once: a finished one is left as it is)."""
    await conn.execute(
        "UPDATE play_matches SET status = $2, winner_side = $3, result = $4, replay = $5, "
        "finished_at = now() WHERE id = $1 AND status = 'playing'",
        play_id,
        status,
        winner_side,
        result,
        None if replay is None else zlib.compress(replay, 6),
    )


async def abandon_unfinished(conn: Executor, play_ids: list[int]) -> None:
    """Mark these play matches abandoned if still playing (their process stopped)."""
    await conn.execute(
        "UPDATE play_matches SET status = 'abandoned', finished_at = now() "
        "WHERE id = ANY($1::bigint[]) AND status = 'playing'",
        play_ids,
    )


async def abandon_orphans(conn: Executor, live: list[int], older_than_s: float) -> list[int]:
    """Mark abandoned the play matches still playing, made more than ``older_than_s`` ago,
    that are not among ``live`` (the sessions going on): rows whose session was never made
    (their API process died in between). Their ids."""
    rows = await conn.fetch(
        "UPDATE play_matches SET status = 'abandoned', finished_at = now() "
        "WHERE status = 'playing' AND created_at < now() - make_interval(secs => $2) "
        "AND NOT (id = ANY($1::bigint[])) RETURNING id",
        live,
        older_than_s,
    )
    return sorted(int(row["id"]) for row in rows)


async def play_replay(conn: Executor, play_id: int) -> bytes | None:
    """The replay JSON of a finished play match, None when there is none."""
    data = await conn.fetchval("SELECT replay FROM play_matches WHERE id = $1", play_id)
    return None if data is None else zlib.decompress(data)


async def record_vs_people(conn: Executor, bot_id: int) -> Record:
    """``bot_id``'s finished matches against people, from the bot's side."""
    row = await conn.fetchrow(
        "SELECT count(*) FILTER (WHERE winner_side IS NOT NULL AND winner_side <> person_side) "
        "AS won, count(*) FILTER (WHERE winner_side = person_side) AS lost, "
        "count(*) FILTER (WHERE winner_side IS NULL) AS drawn "
        "FROM play_matches WHERE bot_id = $1 AND status = 'finished'",
        bot_id,
    )
    assert row is not None
    return Record(row["won"], row["lost"], row["drawn"])


async def house_bots(conn: Executor, *, house_account: str | None) -> list[Bot]:
    """The bots anyone may play without an account: live ``builtin:`` bots (only the platform
    stores those), and the open bots of the account named ``house_account`` when given (local
    mode, where the house bots are served over loopback); in id order."""
    rows = await conn.fetch(
        f"SELECT {', '.join('b.' + c for c in BOT_COLUMNS.split(', '))} FROM bots b "
        "JOIN accounts a ON a.id = b.owner_id WHERE b.status <> 'deleted' AND "
        "(b.url LIKE 'builtin:%' OR (b.open AND lower(a.name) = lower($1))) ORDER BY b.id",
        house_account or "",
    )
    return [bot_of(row) for row in rows]
