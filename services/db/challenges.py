"""Open challenges (unfinished matches outside tournaments), counted under locks for quotas.

A challenge is a match without a tournament and outside SPRT tests (``services.flow.sprt``);
its challenger's bot is on side 0 and the challenged bot on side 1
(``services.flow.create_challenge``). It is open while pending, queued or running.
"""

from __future__ import annotations

from services.db.accounts import Connection

_OPEN = (
    "m.tournament_id IS NULL AND m.sprt_test_id IS NULL AND m.ladder_pool IS NULL "
    "AND m.status IN ('pending', 'queued', 'running')"
)


async def lock_challenges(conn: Connection, account_id: int, target_bot_id: int) -> None:
    """Serialise new challenges by this account and against this bot until the transaction
    ends, so concurrent requests cannot all see the same count (account first, then bot:
    one order for everyone, no deadlock)."""
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('truco:challenges:account:' || $1, 0))",
        str(account_id),
    )
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended('truco:challenges:bot:' || $1, 0))",
        str(target_bot_id),
    )


async def open_by_account(conn: Connection, account_id: int) -> int:
    """Open challenges sent by ``account_id``'s bots."""
    found = await conn.fetchval(
        "SELECT count(DISTINCT m.id) FROM matches m "
        "JOIN match_entrants e ON e.match_id = m.id AND e.side = 0 "
        f"JOIN bots b ON b.id = e.bot_id WHERE {_OPEN} AND b.owner_id = $1",
        account_id,
    )
    return int(found or 0)


async def open_against(conn: Connection, bot_id: int, owner_id: int) -> int:
    """Open challenges against ``bot_id`` sent by other accounts' bots than ``owner_id``'s."""
    found = await conn.fetchval(
        "SELECT count(DISTINCT m.id) FROM matches m "
        "JOIN match_entrants t ON t.match_id = m.id AND t.side = 1 AND t.bot_id = $1 "
        "JOIN match_entrants c ON c.match_id = m.id AND c.side = 0 "
        f"JOIN bots cb ON cb.id = c.bot_id WHERE {_OPEN} AND cb.owner_id <> $2",
        bot_id,
        owner_id,
    )
    return int(found or 0)
