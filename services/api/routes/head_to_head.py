"""The two bots of a head-to-head request (a challenge, an SPRT test) checked for the caller."""

from __future__ import annotations

import asyncpg

from services.api.auth import require_owner
from services.api.problems import ProblemError
from services.db import bots as db_bots
from services.db.accounts import Account
from services.db.bots import Bot


async def caller_may_pit(
    pool: asyncpg.Pool, account: Account, bot_a: int, bot_b: int, *, refused: str
) -> Bot:
    """``bot_b``, once ``bot_a`` is the caller's and ``bot_b`` takes the caller on.

    A missing bot is a 404 (``/problems/bot-not-found``); ``bot_a`` of another account, or a
    ``bot_b`` whose owner set ``challenges: owner_only`` when the caller is someone else, is a
    403 (``refused`` says the latter)."""
    bot = await db_bots.get_bot(pool, bot_a)
    if bot is None:
        raise ProblemError(404, f"there is no bot {bot_a}", slug="bot-not-found")
    require_owner(account, bot.owner_id, "bot_a must be one of your bots")
    target = await db_bots.get_bot(pool, bot_b)
    if target is None:
        raise ProblemError(404, f"there is no bot {bot_b}", slug="bot-not-found")
    if target.challenges == "owner_only" and target.owner_id != account.id:
        raise ProblemError(403, refused)
    return target
