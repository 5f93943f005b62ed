"""The stored replays a page shows, decoded; one that is not a valid replay is left out."""

from __future__ import annotations

from collections.abc import Mapping

import asyncpg

from arena.match.replay import Replay, VerifyError, load_replay
from services.db import page_reads as db


async def replays(pool: asyncpg.Pool, match_ids: list[int]) -> dict[int, Replay]:
    """The stored replays of these matches, decoded; one that is unreadable is left out (its
    match is shown without a viewer)."""
    return decoded(await db.replays(pool, match_ids))


def decoded(documents: Mapping[int, bytes | None]) -> dict[int, Replay]:
    """Replay documents decoded by match id; one that is not a valid replay is left out."""
    found: dict[int, Replay] = {}
    for match_id, document in documents.items():
        if document is None:
            continue
        try:
            found[match_id] = load_replay(document)
        except VerifyError:
            continue
    return found
