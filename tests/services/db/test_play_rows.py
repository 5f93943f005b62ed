"""``play_matches`` rows typed where they are read: a result stored before issue 34 (the
runner's MatchResult, without per-game scores) still reads as a StoredResult."""

from __future__ import annotations

import asyncpg
import msgspec
import pytest

from arena.match.replay import MatchResult
from engine.rules import Rules
from services.db import play_matches as db_play
from services.domain.result import StoredResult
from tests.services.helpers.flow_helpers import make_account, make_bot

pytestmark = pytest.mark.anyio


async def test_an_older_rows_result_reads_as_the_stored_result(flow_pool: asyncpg.Pool) -> None:
    pool = flow_pool
    bot_id = await make_bot(pool, await make_account(pool))
    stored = await db_play.create_play_match(
        pool, bot_id=bot_id, account_id=None, person_side=0, rules=Rules(points_to_win=15),
        games=1, seed=7, token_hash=b"t", address_key=b"a",
    )  # fmt: skip
    old = MatchResult(games_won=(1, 0), tantos=(15, 9), winner=0, reason="games")
    await pool.execute(
        "UPDATE play_matches SET status = 'finished', result = $2 WHERE id = $1",
        stored.id,
        msgspec.to_builtins(old),
    )
    row = await db_play.get_play_match(pool, stored.id)
    assert row is not None and row.rules == Rules(points_to_win=15)
    assert row.result == StoredResult(
        games=(), games_won=(1, 0), tantos=(15, 9), reason="games", forfeit=None,
        walkover=(), faults=(0, 0), causes=(),
    )  # fmt: skip
