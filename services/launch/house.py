"""The house bots in production: built-in strategies that the platform stores itself.

In local mode the launcher serves the house bots over HTTP on loopback and registers them
through the API like anyone's bots. Production refuses loopback bots, and a house bot needs no
server: its URL is ``builtin:NAME`` and the bot-calling worker plays the strategy in process
(``services.worker.matches.play_match.bot_connection``), with no connection and no exception to the
egress guard. The API accepts only ``http(s)://`` URLs, so no user can register or switch a bot
to ``builtin:``; only this module (run by the launcher, with the database) stores one.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

import asyncpg

from arena.bots import BUILTINS
from arena.client.signing import generate_secret
from arena.match.entrants import BUILTIN_PREFIX
from services.api.auth import hash_api_key
from services.base.config import Secret
from services.base.secretbox import SecretBox
from services.db import accounts as db_accounts
from services.db import bots as db_bots


class HouseError(RuntimeError):
    """The house account is not in the database (its key is stale) or a strategy is unknown."""


def builtin_url(strategy: str) -> str:
    if strategy not in BUILTINS:
        raise HouseError(f"no built-in strategy {strategy!r}")
    return BUILTIN_PREFIX + strategy


async def store_builtin_bots(
    database_url: str,
    secret_key: Secret,
    api_key: str,
    wanted: Sequence[tuple[str, str]],
    known: dict[str, int],
) -> dict[str, int]:
    """Make sure the account of ``api_key`` owns a live ``builtin:STRATEGY`` bot for each
    ``(name, strategy)`` of ``wanted``; ``known`` maps names to the ids stored last time.

    Returns name -> bot id. A bot id from ``known`` is kept while it is live, owned by the
    account and still built-in; otherwise a new bot is stored (with a suffix if the name is
    taken). Its signing secret is random and never used: nothing is sent to a built-in bot.
    """
    box = SecretBox(secret_key)
    conn = await asyncpg.connect(database_url)
    try:
        account = await db_accounts.account_by_key_hash(conn, hash_api_key(api_key))
        if account is None:
            raise HouseError("the house account's key is not in this database")
        stored: dict[str, int] = {}
        for name, strategy in wanted:
            url = builtin_url(strategy)
            bot_id = known.get(name)
            bot = await db_bots.get_bot(conn, bot_id) if bot_id is not None else None
            live = bot is not None and bot.status != "deleted"
            if live and bot is not None and bot.owner_id == account.id and bot.url == url:
                if not bot.open:  # stored before bots could be open
                    await db_bots.update_bot(conn, bot.id, open=True)
                stored[name] = bot.id
                continue
            stored[name] = await _create(conn, box, account.id, name, url)
        return stored
    finally:
        await conn.close()


async def _create(
    conn: asyncpg.Connection, box: SecretBox, owner_id: int, name: str, url: str
) -> int:
    secret = generate_secret()
    for shown in (name, f"{name}-{secrets.token_hex(2)}"):
        try:
            bot = await db_bots.create_bot(
                conn,
                owner_id=owner_id,
                name=shown,
                url=url,
                encrypt_secret=lambda bot_id: box.encrypt(secret, bot_id),
                key_id=box.key_id,
                open=True,  # anyone may enter a house bot into their tournament (issue 12)
            )
        except db_accounts.DuplicateName:
            continue
        return bot.id
    raise HouseError(f"the bot name {name!r} and a suffixed one are both taken")
