"""Challenges: a casual match between two bots, outside tournaments."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg

from arena.game.deals import INDEPENDENT, DealsMode
from services.db import matches as db_matches
from services.db.accounts import Connection
from services.domain import MODES, Mode, seeds
from services.domain.tournament_settings import TournamentSettings
from services.flow.errors import SameBot
from services.flow.head_to_head import check_bots
from services.flow.settings import check_duration, default_games, mode_rules


async def create_challenge(
    pool: asyncpg.Pool,
    bot_a: int,
    bot_b: int,
    *,
    mode: Mode,
    rules: dict[str, Any],
    games_per_match: int | None,
    rated: bool,
    check: Callable[[Connection], Awaitable[None]] | None = None,
    deals: DealsMode = INDEPENDENT,
) -> int:
    """A casual match outside tournaments (``bot_a`` is side 0); returns its id to queue.

    ``check(conn)`` runs in the inserting transaction (``services.flow.challenge_quota``) and may
    raise to refuse. Raises :class:`SameBot`, :class:`BotNotFound`, :class:`BotUnavailable`,
    RulesError, :class:`SettingsTooLong` (a challenge plays under the default timeouts and
    time bank), :class:`MirroredDealsRefused` (mirrored deals between bots of two owners)."""
    if bot_a == bot_b:
        raise SameBot("a bot cannot challenge itself")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    parsed = mode_rules(mode, rules)
    games_per_match = games_per_match or default_games(mode)
    check_duration(TournamentSettings(games_per_match=games_per_match), parsed)
    async with pool.acquire() as conn, conn.transaction():
        await check_bots(conn, bot_a, bot_b, deals)
        if check is not None:
            await check(conn)
        master = seeds.new_master_seed()
        return await db_matches.insert_match(
            conn,
            bots=(bot_a, bot_b),
            mode=mode,
            seed=seeds.challenge_seed(master, bot_a, bot_b),
            rated=rated,
            games_per_match=games_per_match,
            rules=parsed,
            deals=deals,
            seed_scheme=seeds.DERIVED,
            master_seed=master,
        )
