"""SPRT tests on the platform: "is bot A stronger than bot B?" played through the workers.

:func:`create_test` stores the test and its first pairs (unrated matches of two games, seats
swapped: ``arena.sprt.pair``) and returns their ids to queue; what each stored pair does next
is :mod:`services.flow.sprt_pairs`. The owner may cancel a running test (:func:`cancel_test`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg

from arena.game.deals import INDEPENDENT, DealsMode
from arena.sprt.pair import GAMES_PER_PAIR
from engine.rules import Rules
from services.db import sprt_tests as db_sprt
from services.db.accounts import Connection
from services.domain import Mode, sprt_runs
from services.flow import (
    FlowError,
    NotFound,
    SameBot,
    TournamentSettings,
    check_duration,
    mode_rules,
)
from services.flow.head_to_head import check_bots
from services.flow.sprt_pairs import start_pairs


class SprtNotFound(NotFound):
    """No such test."""


class NotYourTest(FlowError):
    """Another account's test (only its owner may stop it)."""


class SprtStateError(FlowError):
    """The test is not running (cancelling a finished test)."""


async def create_test(
    pool: asyncpg.Pool,
    *,
    owner_id: int,
    bot_a: int,
    bot_b: int,
    mode: Mode,
    rules: dict[str, Any],
    params: sprt_runs.SprtParams,
    deals: DealsMode = INDEPENDENT,
    check: Callable[[Connection], Awaitable[None]] | None = None,
) -> tuple[int, list[int]]:
    """A running test and its first pairs: returns (test id, match ids to queue).

    ``check(conn)`` runs in the inserting transaction (``services.flow.sprt_quota``) and may raise
    to refuse. Raises :class:`~services.flow.SameBot`, ``BotNotFound``, ``BotUnavailable``,
    RulesError, ``SettingsTooLong``, ``MirroredDealsRefused``, ValueError (bad
    hypotheses or error rates: ``arena.sprt.stats``)."""
    if bot_a == bot_b:
        raise SameBot("a test needs two different bots")
    sprt_runs.sprt_of(params, ())  # raises ValueError on elo0 >= elo1 or bad alpha, beta
    parsed: Rules = mode_rules(mode, rules)
    check_duration(TournamentSettings(games_per_match=GAMES_PER_PAIR), parsed)
    async with pool.acquire() as conn, conn.transaction():
        await check_bots(conn, bot_a, bot_b, deals)
        if check is not None:
            await check(conn)
        test_id = await db_sprt.insert_test(
            conn,
            owner_id=owner_id,
            bot_a=bot_a,
            bot_b=bot_b,
            mode=mode,
            rules=parsed,
            deals=deals,
            params=params,
        )
        test = await db_sprt.get_test(conn, test_id, for_update=True)
        assert test is not None
        return test_id, await start_pairs(conn, test, open_pairs=0)


async def cancel_test(pool: asyncpg.Pool, test_id: int, owner_id: int) -> list[int]:
    """The owner stops a running test: no pair is started any more, the unplayed ones are
    cancelled (a result arriving later for one is not stored). Returns their ids. Raises
    :class:`SprtNotFound`, :class:`NotYourTest` or :class:`SprtStateError`."""
    async with pool.acquire() as conn, conn.transaction():
        test = await db_sprt.get_test(conn, test_id, for_update=True)
        if test is None:
            raise SprtNotFound(f"there is no test {test_id}")
        if test.owner_id != owner_id:
            raise NotYourTest(f"test {test_id} is another account's; only its owner stops it")
        if test.status != "running":
            raise SprtStateError(f"test {test_id} is {test.status}; only a running test stops")
        return await db_sprt.finish_test(conn, test_id, status="cancelled")
