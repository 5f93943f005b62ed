"""The matches handed to the bot-calling workers: who plays (with the decrypted signing
secrets) and under which settings."""

from __future__ import annotations

import logging
from typing import Protocol

import asyncpg

from arena.game.deals import DealsMode
from arena.match.runner import MatchSettings
from engine.rules import Rules
from services.base.secretbox import SecretBox, SecretBoxError
from services.db import matches as db_matches
from services.domain.match_order import EntrantOrder, MatchOrder

logger = logging.getLogger("services.flow")


class Playable(Protocol):
    """What a match's row says of how it is played (a stored match, an open one the sweeper
    looks at)."""

    @property
    def rules(self) -> Rules: ...
    @property
    def games_per_match(self) -> int: ...
    @property
    def deals(self) -> DealsMode: ...
    @property
    def timeout_ms(self) -> int: ...
    @property
    def time_bank_ms(self) -> int: ...
    @property
    def fault_limit(self) -> int: ...
    @property
    def ladder_pool(self) -> str | None: ...


def match_settings(match: Playable) -> MatchSettings:
    """The settings a match is played under, all from its own row (migration 0027: its event's
    time limits and fault limit; a challenge's, a test's or a ladder's are the defaults). The
    workers are sent these, and the sweeper's thresholds follow from them. A ladder match is
    played anonymous: its ``/start`` names no opponent (docs/ladder.md)."""
    return MatchSettings(
        rules=match.rules,
        games_per_match=match.games_per_match,
        timeout_ms=match.timeout_ms,
        time_bank_ms=match.time_bank_ms,
        fault_limit=match.fault_limit,
        deals=match.deals,
        anonymous=match.ladder_pool is not None,
    )


async def match_specs(
    pool: asyncpg.Pool, match_ids: list[int], *, secret_box: SecretBox
) -> list[MatchOrder]:
    """Specs of the open matches among ``match_ids`` (in that order), marked ``queued``
    (``attempts`` + 1). Finished or unknown ids are left out. ``secret_box`` decrypts the
    bots' signing secrets."""
    async with pool.acquire() as conn, conn.transaction():
        queued = set(await db_matches.mark_queued(conn, list(match_ids)))
        rows = {m.id: m for m in await db_matches.get_matches(conn, sorted(queued))}
        bots = await db_matches.entrant_secrets(
            conn, sorted({b for m in rows.values() for b in m.bots})
        )
    specs = []
    for match_id in match_ids:
        match = rows.get(match_id)
        if match is None or match.bot1 is None:
            continue
        settings = match_settings(match)
        entrants = []
        try:
            for bot_id in match.bots:
                bot = bots[bot_id]
                previous = (
                    None
                    if bot.previous_enc is None
                    else secret_box.decrypt(bot.previous_enc, bot_id)
                )
                secret = secret_box.decrypt(bot.secret_enc, bot_id)
                entrants.append(EntrantOrder(bot_id, bot.name, bot.url, secret, previous))
        except SecretBoxError as exc:
            # one bot's secret sealed under another key must not hold every other match back:
            # this one stays queued, and the sweeper gives up on it after its attempts
            logger.error("match %s not sent: a bot's signing secret: %s", match.id, exc)
            continue
        specs.append(MatchOrder(match.id, match.seed, settings, entrants))
    return specs
