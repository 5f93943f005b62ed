"""A ladder day as one document (``GET /v1/ladders/{pool}/days/{day}/export``), for
``truco verify ladder POOL DAY``: the day's commitment and, once revealed, its master seed,
then every ladder match of the day (:func:`services.flow.export.match_json`, the same match
records as a tournament's export)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, date, datetime

import asyncpg
import msgspec

from services.db import ladder as db_ladder
from services.db import matches as db_matches
from services.db import ratings as db_ratings
from services.flow.errors import NotFound
from services.flow.export import match_json
from services.tournaments.files.export_document import LadderDayExport

BATCH = 100


class LadderDayNotFound(NotFound):
    """The ladder had no match that day."""


async def day_chunks(pool: asyncpg.Pool, ladder: str, day: date) -> AsyncIterator[bytes]:
    """The document in pieces that concatenate to one JSON object."""
    async with pool.acquire() as conn:
        found = await db_ladder.get_day(conn, ladder, day)
        if found is None:
            raise LadderDayNotFound(f"the {ladder} ladder played no match on {day}")
        ids = await db_ladder.match_ids_of_day(conn, ladder, day)
        places = await db_ladder.places(conn, ids)
    head = LadderDayExport(
        pool=ladder,
        day=day.isoformat(),
        commitment=found.commitment,
        master_seed=found.master_seed.hex() if found.revealed_at is not None else None,
        exported_at=datetime.now(UTC),
        numbers=[places[i].number for i in ids],
        matches=[],
    )
    encoded = msgspec.json.encode(head)
    assert encoded.endswith(b'"matches":[]}')
    yield encoded[: -len(b"]}")]
    for start in range(0, len(ids), BATCH):
        async with pool.acquire() as conn:
            matches = await db_matches.get_matches(conn, ids[start : start + BATCH])
            done = [m.id for m in matches if m.finished]
            replays = await db_matches.replays_json(conn, done)
            changes = await db_ratings.changes_of_matches(conn, done)
        by_match: dict[int, list[db_ratings.AppliedChange]] = {}
        for change in changes:
            by_match.setdefault(change.match_id, []).append(change)
        order = {m.id: m for m in matches}
        pieces = [
            match_json(order[i], replays.get(i), by_match.get(i, []))
            for i in ids[start : start + BATCH]
        ]
        yield (b"," if start else b"") + b",".join(pieces)
    yield b"]}"
