"""Which accounts are linked (migration 0032): each account keeps a keyed digest of the address
it was made from (an IPv4 address, or an IPv6 /64: never the address itself), and two accounts
made from one such address within ``window_s`` of each other are linked; the ladder never pairs
their bots (:mod:`services.ladder.links`)."""

from __future__ import annotations

from collections.abc import Sequence

from services.db.accounts import Executor
from services.ladder.links import OwnerPair, owner_pair


async def note_created_from(conn: Executor, account_id: int, digest: bytes) -> None:
    """Keep the digest of the address ``account_id`` was made from."""
    await conn.execute("UPDATE accounts SET created_from = $2 WHERE id = $1", account_id, digest)


async def links_among(
    conn: Executor, owner_ids: Sequence[int], window_s: float
) -> frozenset[OwnerPair]:
    """The linked pairs among ``owner_ids``."""
    if len(owner_ids) < 2 or window_s <= 0:
        return frozenset()
    rows = await conn.fetch(
        "SELECT x.id AS a, y.id AS b FROM accounts x JOIN accounts y "
        "ON y.created_from = x.created_from AND y.id > x.id "
        "AND abs(extract(epoch FROM y.created_at - x.created_at)) <= $2 "
        "WHERE x.created_from IS NOT NULL AND x.id = ANY($1::bigint[]) "
        "AND y.id = ANY($1::bigint[])",
        list(owner_ids),
        float(window_s),
    )
    return frozenset(owner_pair(int(r["a"]), int(r["b"])) for r in rows)
