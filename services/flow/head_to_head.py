"""The bots of a head-to-head (a challenge, an SPRT test) checked in the inserting transaction."""

from __future__ import annotations

from arena.game.deals import MIRRORED, DealsMode
from services.db import bots as db_bots
from services.db.accounts import Connection
from services.flow.errors import (
    MIRRORED_ONLY_ONE_OWNER,
    BotNotFound,
    BotUnavailable,
    MirroredDealsRefused,
)


async def check_bots(conn: Connection, bot_a: int, bot_b: int, deals: DealsMode) -> None:
    """Both bots exist and are active, and mirrored deals pair bots of one owner.

    Raises :class:`BotNotFound`, :class:`BotUnavailable`, :class:`MirroredDealsRefused`."""
    owners = set()
    for bot_id in (bot_a, bot_b):
        bot = await db_bots.get_bot(conn, bot_id)
        if bot is None:
            raise BotNotFound(f"there is no bot {bot_id}")
        if bot.status != "active":
            raise BotUnavailable(f"bot {bot_id} is {bot.status}")
        owners.add(bot.owner_id)
    if deals == MIRRORED and len(owners) > 1:
        raise MirroredDealsRefused(
            f"bots {bot_a} and {bot_b} have different owners; {MIRRORED_ONLY_ONE_OWNER}"
        )
