"""The ladders' rows (migration 0020): entries, days (their master seeds) and what the
matchmaker reads of a pool (the current fit, who is playing, today's meetings)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

from services.db.accounts import Connection, Executor
from services.ladder.cooldown import MEMORY_S
from services.ladder.table import LadderRow


@dataclass(frozen=True, slots=True)
class LadderEntry:
    pool: str
    bot_id: int
    owner_id: int
    joined_at: datetime
    hourly_cap: int
    paused_at: datetime | None
    pause_cause: str | None
    failures_in_a_row: int


@dataclass(frozen=True, slots=True)
class LadderDay:
    pool: str
    day: date
    master_seed: bytes = field(repr=False)
    commitment: str
    created_at: datetime
    revealed_at: datetime | None
    matches: int


_ENTRY = (
    "SELECT e.pool, e.bot_id, b.owner_id, e.joined_at, e.hourly_cap, e.paused_at, "
    "e.pause_cause, e.failures_in_a_row FROM ladder_entries e JOIN bots b ON b.id = e.bot_id"
)


async def get_entry(conn: Executor, pool: str, bot_id: int) -> LadderEntry | None:
    row = await conn.fetchrow(f"{_ENTRY} WHERE e.pool = $1 AND e.bot_id = $2", pool, bot_id)
    return None if row is None else LadderEntry(**dict(row))


async def entries_of_bot(conn: Executor, bot_id: int) -> list[LadderEntry]:
    rows = await conn.fetch(f"{_ENTRY} WHERE e.bot_id = $1 ORDER BY e.pool", bot_id)
    return [LadderEntry(**dict(r)) for r in rows]


async def lock_owner(conn: Connection, pool: str, owner_id: int) -> None:
    """Serialise one account's entries into one pool (the per-account cap is counted under
    it, so concurrent requests cannot all pass it)."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('truco:ladder:' || $1 || ':' || $2, 0))",
        pool,
        str(owner_id),
    )


async def entries_of_owner(conn: Executor, pool: str, owner_id: int) -> int:
    found = await conn.fetchval(
        "SELECT count(*) FROM ladder_entries e JOIN bots b ON b.id = e.bot_id "
        "WHERE e.pool = $1 AND b.owner_id = $2",
        pool,
        owner_id,
    )
    return int(found or 0)


async def insert_entry(conn: Executor, pool: str, bot_id: int, hourly_cap: int) -> bool:
    """Enter the bot; False if it is already on this ladder (nothing changes)."""
    found = await conn.fetchval(
        "INSERT INTO ladder_entries (pool, bot_id, hourly_cap) VALUES ($1, $2, $3) "
        "ON CONFLICT ON CONSTRAINT ladder_entries_pkey DO NOTHING RETURNING bot_id",
        pool,
        bot_id,
        hourly_cap,
    )
    return found is not None


async def delete_entry(conn: Executor, pool: str, bot_id: int) -> bool:
    found = await conn.fetchval(
        "DELETE FROM ladder_entries WHERE pool = $1 AND bot_id = $2 RETURNING bot_id", pool, bot_id
    )
    return found is not None


async def delete_entries_of_bot(conn: Executor, bot_id: int) -> int:
    """A deleted bot leaves every ladder."""
    rows = await conn.fetch("DELETE FROM ladder_entries WHERE bot_id = $1 RETURNING pool", bot_id)
    return len(rows)


async def update_entry(
    conn: Executor, pool: str, bot_id: int, *, hourly_cap: int | None, resume: bool
) -> bool:
    """Change the hourly cap and/or resume a paused entry; False if there is no entry."""
    found = await conn.fetchval(
        "UPDATE ladder_entries SET hourly_cap = COALESCE($3, hourly_cap), "
        "paused_at = CASE WHEN $4 THEN NULL ELSE paused_at END, "
        "pause_cause = CASE WHEN $4 THEN NULL ELSE pause_cause END, "
        "failures_in_a_row = CASE WHEN $4 THEN 0 ELSE failures_in_a_row END "
        "WHERE pool = $1 AND bot_id = $2 RETURNING bot_id",
        pool,
        bot_id,
        hourly_cap,
        resume,
    )
    return found is not None


async def record_outcome(
    conn: Executor, pool: str, bot_id: int, *, failed: str | None, pause_after: int
) -> bool:
    """After a ladder match: ``failed`` (a walkover's or forfeit's cause) counts one more
    failure in a row and pauses the entry at ``pause_after``; a played match resets the count.
    True when this pauses it."""
    if failed is None:
        await conn.execute(
            "UPDATE ladder_entries SET failures_in_a_row = 0 WHERE pool = $1 AND bot_id = $2",
            pool,
            bot_id,
        )
        return False
    paused = await conn.fetchval(
        "UPDATE ladder_entries SET failures_in_a_row = failures_in_a_row + 1, "
        "paused_at = CASE WHEN paused_at IS NULL AND failures_in_a_row + 1 >= $4 "
        "THEN now() ELSE paused_at END, "
        "pause_cause = CASE WHEN paused_at IS NULL AND failures_in_a_row + 1 >= $4 "
        "THEN $3 ELSE pause_cause END "
        "WHERE pool = $1 AND bot_id = $2 "
        "RETURNING paused_at IS NOT NULL AND failures_in_a_row = $4",
        pool,
        bot_id,
        failed,
        pause_after,
    )
    if paused:  # its resume waits longer for each pause within a week (migration 0033)
        await conn.execute(
            "INSERT INTO ladder_tallies (pool, bot_id, pauses, last_paused_at) "
            "VALUES ($1, $2, 1, now()) ON CONFLICT ON CONSTRAINT ladder_tallies_pkey "
            "DO UPDATE SET pauses = CASE WHEN ladder_tallies.last_paused_at "
            "> now() - make_interval(secs => $3) THEN ladder_tallies.pauses + 1 ELSE 1 END, "
            "last_paused_at = now()",
            pool,
            bot_id,
            MEMORY_S,
        )
    return bool(paused)


async def pause_record(conn: Executor, pool: str, bot_id: int) -> tuple[int, datetime | None]:
    """(its pauses in a row within a week, the latest pause's time) on this ladder."""
    row = await conn.fetchrow(
        "SELECT pauses, last_paused_at FROM ladder_tallies WHERE pool = $1 AND bot_id = $2",
        pool,
        bot_id,
    )
    return (0, None) if row is None else (int(row["pauses"]), row["last_paused_at"])


TABLE = """
WITH recent AS (
    SELECT me.bot_id, count(*)::int AS last_hour,
           count(*) FILTER (WHERE m.ladder_reason = 'placing')::int AS last_hour_placing
    FROM matches m JOIN match_entrants me ON me.match_id = m.id
    WHERE m.ladder_pool = $1 AND m.created_at > $2::timestamptz - interval '1 hour'
    GROUP BY me.bot_id
), open AS (
    SELECT me.bot_id, count(*)::int AS in_play,
           count(*) FILTER (WHERE m.ladder_pool = $1)::int AS here
    FROM matches m JOIN match_entrants me ON me.match_id = m.id
    WHERE m.ladder_pool IS NOT NULL AND m.status IN ('pending', 'queued', 'running')
    GROUP BY me.bot_id
)
SELECT e.bot_id, b.name AS bot_name, b.owner_id, a.name AS owner_name, b.status AS bot_status,
       b.last_ok_at IS NOT NULL AS answered,
       e.joined_at, e.hourly_cap, e.paused_at, e.pause_cause,
       r.rating AS elo, coalesce(r.matches, 0) AS rated_games, i.games AS fit_games,
       i.rating, i.low, i.high,
       i.adjusted_rating, i.adjusted_low, i.adjusted_high,
       i.ladder_los AS los_next, i.ladder_next_bot_id AS los_next_bot,
       coalesce(t.rated, 0) AS matches,
       coalesce(rc.last_hour, 0) AS last_hour,
       coalesce(o.here, 0) > 0 AS playing,
       coalesce(o.in_play, 0) AS in_play,
       t.last_started,
       coalesce(rc.last_hour_placing, 0) AS last_hour_placing,
       t.last_paced, t.first_about
FROM ladder_entries e
JOIN bots b ON b.id = e.bot_id
JOIN accounts a ON a.id = b.owner_id
LEFT JOIN ladder_tallies t ON t.pool = e.pool AND t.bot_id = e.bot_id
LEFT JOIN recent rc ON rc.bot_id = e.bot_id
LEFT JOIN open o ON o.bot_id = e.bot_id
LEFT JOIN ratings r ON r.bot_id = e.bot_id AND r.mode = e.pool
LEFT JOIN rating_intervals i ON i.bot_id = e.bot_id AND i.mode = e.pool
WHERE e.pool = $1
ORDER BY i.rating DESC NULLS LAST, e.joined_at, e.bot_id
"""
"""The ladder's table (``$1`` the pool, ``$2`` now). Nothing in it reads a bot's older
history: its rated matches, latest start and latest paced start are kept as they happen
(``ladder_tallies``, migration 0030: :func:`note_started`, :func:`note_rated`), the last hour's
matches are read through ``matches_ladder_recent`` and the open ones through
``matches_ladder_open``. So it costs the same at 100 or 100,000 ladder matches
(``tests/services/db/test_ladder_reads.py``, ``make bench`` line ``ladder_history``)."""


async def table(conn: Executor, pool: str, now: datetime) -> list[LadderRow]:
    """Every bot on the ladder, best fitted rating first (bots not yet rated last)."""
    rows = await conn.fetch(TABLE, pool, now)
    return [LadderRow(**dict(r)) for r in rows]


async def note_started(conn: Executor, pool: str, bot_ids: Sequence[int], *, placing: bool) -> None:
    """Ladder matches of ``bot_ids`` were made now (in this transaction): their latest start,
    and their latest paced start unless the match was chosen to place a bot."""
    await conn.execute(
        "INSERT INTO ladder_tallies (pool, bot_id, last_started, last_paced) "
        "SELECT $1, unnest($2::bigint[]), now(), CASE WHEN $3 THEN NULL ELSE now() END "
        "ON CONFLICT ON CONSTRAINT ladder_tallies_pkey DO UPDATE SET "
        "last_started = now(), "
        "last_paced = CASE WHEN $3 THEN ladder_tallies.last_paced ELSE now() END",
        pool,
        sorted(set(bot_ids)),
        placing,
    )


async def note_rated(conn: Executor, pool: str, bot_ids: Sequence[int], change: int = 1) -> None:
    """``bot_ids`` have ``change`` more rated ladder matches in ``pool`` (minus: annulled)."""
    await conn.execute(
        "INSERT INTO ladder_tallies (pool, bot_id, rated) "
        "SELECT $1, unnest($2::bigint[]), greatest($3, 0) "
        "ON CONFLICT ON CONSTRAINT ladder_tallies_pkey DO UPDATE SET "
        "rated = greatest(ladder_tallies.rated + $3, 0)",
        pool,
        sorted(set(bot_ids)),
        change,
    )


async def note_annulled(conn: Executor, pool: str, counts: dict[int, int]) -> None:
    """Each bot's ``counts[bot]`` rated ladder matches of ``pool`` were annulled."""
    if not counts:
        return
    bots = sorted(counts)
    await conn.execute(
        "UPDATE ladder_tallies t SET rated = greatest(t.rated - f.n, 0) "
        "FROM unnest($2::bigint[], $3::int[]) AS f(bot, n) WHERE t.pool = $1 AND t.bot_id = f.bot",
        pool,
        bots,
        [counts[b] for b in bots],
    )


async def keep_first_estimates(conn: Executor, pool: str, estimates: dict[int, int]) -> None:
    """Keep each bot's placement estimate at its 10th rated match (once: a kept one stays)."""
    if not estimates:
        return
    bots = sorted(estimates)
    await conn.execute(
        "UPDATE ladder_tallies t SET first_about = f.about FROM unnest($2::bigint[], $3::int[]) "
        "AS f(bot, about) WHERE t.pool = $1 AND t.bot_id = f.bot AND t.first_about IS NULL",
        pool,
        bots,
        [estimates[b] for b in bots],
    )


async def in_flight(conn: Executor, pool: str) -> int:
    """Ladder matches of the pool not finished yet."""
    found = await conn.fetchval(
        "SELECT count(*) FROM matches WHERE ladder_pool = $1 "
        "AND status IN ('pending', 'queued', 'running')",
        pool,
    )
    return int(found or 0)


@dataclass(frozen=True, slots=True)
class Waiting:
    """Tournament, challenge and test matches queued and not yet playing: ``for_workers``,
    those that wait for a worker (none of their bots plays as many matches as a bot may at
    once); ``bots``, every bot of a queued one."""

    for_workers: int
    bots: frozenset[int]


async def others_waiting(conn: Executor, bot_cap: int) -> Waiting:
    """What the ladder yields to (issue 33, item 5). A queued match whose bot already plays
    ``bot_cap`` matches (``TRUCO_BOT_MAX_MATCHES``) waits for that bot, not for a worker: a
    ladder match started meanwhile takes nothing from it, so it does not hold the ladder back
    (one account's own slow bot must not freeze every ladder); its bots, and the bots of every
    other queued match, get no ladder match until it has started."""
    row = await conn.fetchrow(
        """
        WITH queued AS (
            SELECT e.match_id, e.bot_id FROM matches m
            JOIN match_entrants e ON e.match_id = m.id
            WHERE m.status = 'queued' AND m.ladder_pool IS NULL AND NOT m.bye
        ), busy AS (
            SELECT e.bot_id FROM matches m JOIN match_entrants e ON e.match_id = m.id
            WHERE m.status = 'running' AND e.bot_id IN (SELECT bot_id FROM queued)
            GROUP BY e.bot_id HAVING count(*) >= $1
        )
        SELECT (SELECT count(DISTINCT q.match_id) FROM queued q WHERE q.match_id NOT IN (
                    SELECT w.match_id FROM queued w JOIN busy USING (bot_id)))::int AS waiting,
               (SELECT coalesce(array_agg(DISTINCT bot_id), '{}') FROM queued) AS bots
        """,
        bot_cap,
    )
    assert row is not None
    return Waiting(int(row["waiting"]), frozenset(int(b) for b in row["bots"]))


async def met_on(conn: Executor, pool: str, day: date) -> dict[tuple[int, int], int]:
    """How often each pair of bots met in the pool's ladder matches of ``day``."""
    rows = await conn.fetch(
        "SELECT x.bot_id AS a, y.bot_id AS b, count(*)::int AS n FROM matches m "
        "JOIN match_entrants x ON x.match_id = m.id JOIN match_entrants y ON y.match_id = m.id "
        "AND x.bot_id < y.bot_id WHERE m.ladder_pool = $1 AND m.ladder_day = $2 "
        "GROUP BY x.bot_id, y.bot_id",
        pool,
        day,
    )
    return {(int(r["a"]), int(r["b"])): int(r["n"]) for r in rows}


async def day_for_update(conn: Connection, pool: str, day: date) -> LadderDay | None:
    row = await conn.fetchrow(
        "SELECT * FROM ladder_days WHERE pool = $1 AND day = $2 FOR UPDATE", pool, day
    )
    return None if row is None else LadderDay(**dict(row))


async def get_day(conn: Executor, pool: str, day: date) -> LadderDay | None:
    row = await conn.fetchrow("SELECT * FROM ladder_days WHERE pool = $1 AND day = $2", pool, day)
    return None if row is None else LadderDay(**dict(row))


async def insert_day(
    conn: Connection, pool: str, day: date, master_seed: bytes, commitment: str
) -> None:
    await conn.execute(
        "INSERT INTO ladder_days (pool, day, master_seed, commitment) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT ON CONSTRAINT ladder_days_pkey DO NOTHING",
        pool,
        day,
        master_seed,
        commitment,
    )


async def take_numbers(conn: Connection, pool: str, day: date, count: int) -> int:
    """Reserve ``count`` match numbers of the day (the day's row is locked); the first."""
    first = await conn.fetchval(
        "UPDATE ladder_days SET matches = matches + $3 WHERE pool = $1 AND day = $2 "
        "RETURNING matches - $3",
        pool,
        day,
        count,
    )
    return int(first)


async def reveal_days(conn: Executor, pool: str, before: date) -> list[date]:
    """Reveal every day before ``before`` none of whose matches is still open."""
    rows = await conn.fetch(
        "UPDATE ladder_days d SET revealed_at = now() WHERE d.pool = $1 AND d.day < $2 "
        "AND d.revealed_at IS NULL AND NOT EXISTS (SELECT 1 FROM matches m "
        "WHERE m.ladder_pool = d.pool AND m.ladder_day = d.day "
        "AND m.status IN ('pending', 'queued', 'running')) RETURNING d.day",
        pool,
        before,
    )
    return sorted(r["day"] for r in rows)


async def days(conn: Executor, pool: str, limit: int = 60) -> list[LadderDay]:
    rows = await conn.fetch(
        "SELECT * FROM ladder_days WHERE pool = $1 ORDER BY day DESC LIMIT $2", pool, limit
    )
    return [LadderDay(**dict(r)) for r in rows]


async def match_ids_of_day(conn: Executor, pool: str, day: date) -> list[int]:
    rows = await conn.fetch(
        "SELECT id FROM matches WHERE ladder_pool = $1 AND ladder_day = $2 ORDER BY ladder_number",
        pool,
        day,
    )
    return [int(r["id"]) for r in rows]


@dataclass(frozen=True, slots=True)
class LadderMatchPlace:
    match_id: int
    number: int
    reason: str | None
    detail: str | None


async def places(conn: Executor, match_ids: Sequence[int]) -> dict[int, LadderMatchPlace]:
    rows = await conn.fetch(
        "SELECT id, ladder_number, ladder_reason, ladder_detail FROM matches "
        "WHERE id = ANY($1::bigint[]) AND ladder_pool IS NOT NULL",
        list(match_ids),
    )
    return {
        int(r["id"]): LadderMatchPlace(
            int(r["id"]), int(r["ladder_number"]), r["ladder_reason"], r["ladder_detail"]
        )
        for r in rows
    }


async def ladder_match(conn: Executor, match_id: int) -> bool:
    """Whether the match is a ladder match (of any pool)."""
    pool: str | None = await conn.fetchval(
        "SELECT ladder_pool FROM matches WHERE id = $1", match_id
    )
    return pool is not None


async def placing_match(conn: Executor, match_id: int) -> bool:
    """Whether the match is a ladder match chosen for a bot still placing."""
    reason: str | None = await conn.fetchval(
        "SELECT ladder_reason FROM matches WHERE id = $1", match_id
    )
    return reason == "placing"
