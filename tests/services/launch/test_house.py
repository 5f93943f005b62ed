"""``services.launch.house``: the production house bots are ``builtin:`` bots stored by the platform,
kept across runs, replaced when gone, and only for the house account's own key."""

from __future__ import annotations

import secrets

import asyncpg
import pytest

from services.api.auth import hash_api_key, new_api_key
from services.base.config import Secret
from services.db import accounts as db_accounts
from services.db import bots as db_bots
from services.launch.house import HouseError, store_builtin_bots

pytestmark = pytest.mark.anyio
KEY = Secret("h" * 48)


async def test_builtin_bots_are_stored_once_and_replaced_when_deleted(database_url: str) -> None:
    api_key = new_api_key()
    conn = await asyncpg.connect(database_url)
    try:
        account = await db_accounts.create_account(
            conn, f"house-{secrets.token_hex(3)}", hash_api_key(api_key)
        )
        suffix = secrets.token_hex(2)
        wanted = [(f"h-heuristic-{suffix}", "heuristic"), (f"h-random-{suffix}", "random")]
        first = await store_builtin_bots(database_url, KEY, api_key, wanted, {})
        assert set(first) == {name for name, _ in wanted}
        for (name, strategy), bot_id in zip(wanted, first.values(), strict=True):
            bot = await db_bots.get_bot(conn, bot_id)
            assert bot is not None and bot.owner_id == account.id
            assert (bot.name, bot.url) == (name, f"builtin:{strategy}")
            assert bot.open  # anyone may enter a house bot into their tournament
        # one stored before bots could be open is opened on the next run
        await db_bots.update_bot(conn, first[wanted[1][0]], open=False)
        assert await store_builtin_bots(database_url, KEY, api_key, wanted, first) == first
        reopened = await db_bots.get_bot(conn, first[wanted[1][0]])
        assert reopened is not None and reopened.open
        await db_bots.soft_delete_bot(conn, first[wanted[0][0]])
        again = await store_builtin_bots(database_url, KEY, api_key, wanted, first)
        assert again[wanted[1][0]] == first[wanted[1][0]]
        assert again[wanted[0][0]] != first[wanted[0][0]]
        with pytest.raises(HouseError, match="not in this database"):
            await store_builtin_bots(database_url, KEY, new_api_key(), wanted, {})
        with pytest.raises(HouseError, match="no built-in strategy"):
            await store_builtin_bots(database_url, KEY, api_key, [("x", "nope")], {})
    finally:
        await conn.close()
