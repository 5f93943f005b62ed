"""SPRT tests (``sprt_tests``, migration 0011) and the link of their pair matches.

A test's matches are ordinary unrated matches with ``matches.sprt_test_id`` set; each stored
pair's score is appended to ``sprt_tests.scores`` in the transaction that stores the match.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from arena.game.deals import DealsMode
from engine.rules import Rules
from services.db.accounts import Connection, Executor
from services.db.matches import CANCEL_OPEN
from services.domain import Mode
from services.domain.sprt_runs import Outcome, SprtParams, SprtStatus

_COLUMNS = (
    "id, owner_id, bot_a, bot_b, mode, rules, deals, elo0, elo1, alpha, beta, max_games, "
    "concurrency, status, result, scores, started, error, created_at, finished_at"
)


@dataclass(frozen=True, slots=True)
class StoredSprt:
    id: int
    owner_id: int
    bot_a: int
    bot_b: int
    mode: Mode
    rules: Rules  # the JSONB document, decoded here once
    deals: DealsMode
    elo0: float
    elo1: float
    alpha: float
    beta: float
    max_games: int
    concurrency: int
    status: SprtStatus
    result: Outcome | None
    scores: tuple[int, ...]
    started: int
    error: str | None
    created_at: datetime
    finished_at: datetime | None

    @property
    def params(self) -> SprtParams:
        """What decides the test, from its stored columns."""
        return SprtParams(
            elo0=self.elo0,
            elo1=self.elo1,
            alpha=self.alpha,
            beta=self.beta,
            max_games=self.max_games,
            concurrency=self.concurrency,
        )


def _test(row: asyncpg.Record) -> StoredSprt:
    fields = dict(row)
    fields["scores"] = tuple(fields["scores"] or ())
    fields["rules"] = Rules.from_dict(fields["rules"])
    return StoredSprt(**fields)


async def insert_test(
    conn: Connection,
    *,
    owner_id: int,
    bot_a: int,
    bot_b: int,
    mode: Mode,
    rules: Rules,
    deals: DealsMode,
    params: SprtParams,
) -> int:
    test_id: int = await conn.fetchval(
        "INSERT INTO sprt_tests (owner_id, bot_a, bot_b, mode, rules, deals, elo0, elo1, "
        "alpha, beta, max_games, concurrency) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
        owner_id,
        bot_a,
        bot_b,
        mode,
        rules,
        deals,
        params.elo0,
        params.elo1,
        params.alpha,
        params.beta,
        params.max_games,
        params.concurrency,
    )
    return test_id


async def get_test(conn: Executor, test_id: int, *, for_update: bool = False) -> StoredSprt | None:
    lock = " FOR UPDATE" if for_update else ""
    row = await conn.fetchrow(f"SELECT {_COLUMNS} FROM sprt_tests WHERE id = $1{lock}", test_id)
    return None if row is None else _test(row)


async def tests_of_bot(conn: Executor, bot_id: int, limit: int = 20) -> list[StoredSprt]:
    """The newest tests in which ``bot_id`` is bot A or bot B."""
    rows = await conn.fetch(
        f"SELECT {_COLUMNS} FROM sprt_tests WHERE bot_a = $1 OR bot_b = $1 "
        "ORDER BY id DESC LIMIT $2",
        bot_id,
        limit,
    )
    return [_test(row) for row in rows]


async def link_match(conn: Connection, test_id: int, match_id: int) -> None:
    """Mark ``match_id`` as a pair of ``test_id`` and count it as started."""
    await conn.execute("UPDATE matches SET sprt_test_id = $1 WHERE id = $2", test_id, match_id)
    await conn.execute("UPDATE sprt_tests SET started = started + 1 WHERE id = $1", test_id)


async def sprt_of_match(conn: Executor, match_id: int) -> int | None:
    found = await conn.fetchval("SELECT sprt_test_id FROM matches WHERE id = $1", match_id)
    return None if found is None else int(found)


async def open_pairs(conn: Executor, test_id: int) -> int:
    """The test's matches still to be played (pending, queued or running)."""
    found = await conn.fetchval(
        "SELECT count(*) FROM matches WHERE sprt_test_id = $1 "
        "AND status IN ('pending', 'queued', 'running')",
        test_id,
    )
    return int(found or 0)


async def add_score(conn: Connection, test_id: int, score: int) -> None:
    await conn.execute(
        "UPDATE sprt_tests SET scores = scores || $2::smallint WHERE id = $1", test_id, score
    )


async def finish_test(
    conn: Connection,
    test_id: int,
    *,
    status: SprtStatus,
    result: Outcome | None = None,
    error: str | None = None,
) -> list[int]:
    """A running test ends (``finished``, ``cancelled`` or ``failed``); its unplayed matches
    become ``cancelled`` (a result sent later for one is not stored). Returns their ids; ``[]``
    and no change if the test was not running."""
    ended = await conn.fetchval(
        "UPDATE sprt_tests SET status = $2, result = $3, error = $4, finished_at = now() "
        "WHERE id = $1 AND status = 'running' RETURNING id",
        test_id,
        status,
        result,
        error,
    )
    if ended is None:
        return []
    rows = await conn.fetch(CANCEL_OPEN.format(where="sprt_test_id = $1"), test_id)
    return sorted(int(row["id"]) for row in rows)


async def lock_tests(conn: Connection, owner_id: int, bot_b: int) -> None:
    """Serialise new tests by this account and against this bot until the transaction ends
    (account first, then bot: one order, no deadlock), so a burst cannot pass a quota."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('truco:sprt:account:' || $1, 0))",
        str(owner_id),
    )
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('truco:sprt:bot:' || $1, 0))", str(bot_b)
    )


async def running_by_owner(conn: Executor, owner_id: int) -> int:
    found = await conn.fetchval(
        "SELECT count(*) FROM sprt_tests WHERE status = 'running' AND owner_id = $1", owner_id
    )
    return int(found or 0)


async def running_against(conn: Executor, bot_id: int, owner_id: int) -> int:
    """Running tests against ``bot_id`` owned by other accounts than ``owner_id``."""
    found = await conn.fetchval(
        "SELECT count(*) FROM sprt_tests WHERE status = 'running' AND bot_b = $1 "
        "AND owner_id <> $2",
        bot_id,
        owner_id,
    )
    return int(found or 0)
