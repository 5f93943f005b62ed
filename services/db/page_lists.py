"""Read-only queries behind the pages' index pages (``/tournaments``, ``/bots``): one page of
rows at a time, and whether there is a next one (a page asks for one row more than it shows)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

from services.db.accounts import Executor
from services.db.page_reads import _TOURNAMENT_SELECT, TournamentRow, _tournament

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    rows: list[T]
    more: bool  # there is a next page


async def tournaments_page(
    conn: Executor, statuses: tuple[str, ...], page: int, per_page: int
) -> Page[TournamentRow]:
    """Tournaments in ``statuses``, newest first, page ``page`` (from 1) of ``per_page``."""
    rows = await conn.fetch(
        _TOURNAMENT_SELECT
        + " WHERE t.status = ANY($1::text[]) ORDER BY t.id DESC LIMIT $2 OFFSET $3",
        list(statuses),
        per_page + 1,
        (page - 1) * per_page,
    )
    found = [_tournament(r) for r in rows]
    return Page(found[:per_page], len(found) > per_page)


@dataclass(frozen=True, slots=True)
class BotListRow:
    id: int
    name: str
    owner_name: str
    status: str
    created_at: datetime
    ratings: dict[str, tuple[float, int]]  # pool -> (rating, rated matches)


async def bots_page(conn: Executor, page: int, per_page: int) -> Page[BotListRow]:
    """Bots that are not deleted, by name, page ``page`` (from 1) of ``per_page``, with their
    rating in each pool they have played in."""
    rows = await conn.fetch(
        """
        SELECT b.id, b.name, a.name AS owner_name, b.status, b.created_at,
               COALESCE((SELECT json_object_agg(r.mode, json_build_array(r.rating, r.matches))
                         FROM ratings r WHERE r.bot_id = b.id), '{}') AS ratings
        FROM bots b JOIN accounts a ON a.id = b.owner_id
        WHERE b.status <> 'deleted'
        ORDER BY lower(b.name), b.id
        LIMIT $1 OFFSET $2
        """,
        per_page + 1,
        (page - 1) * per_page,
    )
    found = [
        BotListRow(
            id=r["id"],
            name=r["name"],
            owner_name=r["owner_name"],
            status=r["status"],
            created_at=r["created_at"],
            ratings={mode: (float(v[0]), int(v[1])) for mode, v in _object(r["ratings"]).items()},
        )
        for r in rows
    ]
    return Page(found[:per_page], len(found) > per_page)


def _object(value: object) -> dict[str, list[float]]:
    """A json column as a dict (the pool decodes json; a bare connection gives text)."""
    decoded = json.loads(value) if isinstance(value, str) else value
    return dict(decoded) if isinstance(decoded, dict) else {}
