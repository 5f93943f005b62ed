"""Data of the size the page-weight tests measure: a 100-bot Swiss of 7 rounds played for real
through the platform's own flow (pairings, results, ratings), and a casual match whose first
game runs to 30 points over 30 hands or more. In a database of its own, so the other page
tests keep their small, exact data."""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import asyncpg
import msgspec

from arena.client.connection import InProcessBot
from arena.match.replay import EntrantRecord, Replay
from arena.match.runner import MatchSettings, run_match
from arena.sdk import strategy_decider
from engine.events import HandStarted
from engine.rules import Rules
from services import flow
from services.db.pool import create_pool
from services.domain.result import played_result
from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_tournament

SWISS_BOTS = 100
SWISS_ROUNDS = 7
LONG_HANDS = 30


@dataclass(frozen=True)
class Large:
    swiss_id: int
    bot_id: int  # one of the Swiss's bots
    long_match: int  # a finished match whose first game has LONG_HANDS hands or more
    long_hands: int


def hands(replay: Replay, game: int = 0) -> int:
    return sum(isinstance(e, HandStarted) for e in replay.games[game].events)


async def long_replay(names: tuple[str, str]) -> Replay:
    """A real match to 30 points whose first game lasts LONG_HANDS hands or more (bots that
    always take the first legal word score slowly); the first seed from 1 that gives one."""
    settings = MatchSettings(rules=Rules(points_to_win=30), games_per_match=2)
    for seed in range(1, 200):
        bots = [
            (
                EntrantRecord(name, f"builtin:{name}"),
                InProcessBot(name, strategy_decider("first", seed + k)),
            )
            for k, name in enumerate(names)
        ]
        replay = await run_match(f"long-{seed}", seed, settings, bots)
        if hands(replay) >= LONG_HANDS:
            return replay
    raise AssertionError(f"no seed below 200 gives a game of {LONG_HANDS} hands")


async def seed_large(url: str) -> Large:
    pool = await create_pool(url, min_size=1, max_size=8)
    try:
        tid, bots = await make_tournament(pool, "swiss", SWISS_BOTS, rounds=SWISS_ROUNDS)
        async with pool.acquire() as conn:  # names as long as people give them
            await conn.execute(
                "UPDATE bots SET name = 'contender-' || lpad(id::text, 3, '0') || '-heuristic-v2'"
            )
        await InProcessSender(in_process({}))(pool, await flow.start_tournament(pool, tid))
        async with pool.acquire() as conn:
            long_match = await _casual_match(conn, bots[0], bots[1])
            replay_hands = hands(
                msgspec.json.decode(
                    zlib.decompress(
                        await conn.fetchval(
                            "SELECT data FROM replays WHERE match_id = $1", long_match
                        )
                    ),
                    type=Replay,
                )
            )
        return Large(tid, bots[0], long_match, replay_hands)
    finally:
        await pool.close()


async def _casual_match(conn: asyncpg.Connection, a: int, b: int) -> int:
    """A finished casual match between bots ``a`` and ``b``, stored like the workers store one."""
    names = await conn.fetch("SELECT id, name FROM bots WHERE id = ANY($1::bigint[])", [a, b])
    by_id = {r["id"]: r["name"] for r in names}
    replay = await long_replay((by_id[a], by_id[b]))
    mid: int = await conn.fetchval(
        """INSERT INTO matches (mode, status, seed, games_per_match, rules, winner_side,
               started_at, finished_at)
           VALUES ('1v1', 'done', 1, 2, $1, $2, now(), now()) RETURNING id""",
        {"points_to_win": 30},  # the pool's codec encodes JSON itself
        replay.result.winner,
    )
    for side, bot in enumerate((a, b)):
        await conn.execute(
            "INSERT INTO match_entrants (match_id, slot, bot_id, side) VALUES ($1, $2, $3, $4)",
            mid,
            side,
            bot,
            side,
        )
    data = msgspec.json.encode(replay)
    await conn.execute(
        "INSERT INTO replays (match_id, compression, data, size_bytes) VALUES ($1, 'zlib', $2, $3)",
        mid,
        zlib.compress(data),
        len(data),
    )
    await conn.execute(
        "INSERT INTO match_results (match_id, winner_side, result) VALUES ($1, $2, $3)",
        mid,
        replay.result.winner,
        played_result(replay),
    )
    return mid
