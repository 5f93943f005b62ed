"""The matches handed to the bot-calling workers: who plays (with the decrypted signing
secrets) and under which settings."""

from __future__ import annotations

import logging

import asyncpg

from arena.game.deals import DealsMode
from arena.match.runner import MatchSettings
from engine.rules import Rules
from services.base.secretbox import SecretBox, SecretBoxError
from services.db import matches as db_matches
from services.db import tournaments as db_tournaments
from services.domain.match_order import EntrantOrder, MatchOrder
from services.domain.tournament_settings import TournamentSettings

logger = logging.getLogger("services.flow")


def match_settings(
    rules: Rules,
    games_per_match: int,
    deals: DealsMode,
    event: TournamentSettings,
    *,
    anonymous: bool = False,
) -> MatchSettings:
    """The settings a match is played under: its own rules, games and deals, and its event's
    time limits and fault limit (a challenge's, a test's or a ladder's: the defaults). The
    workers are sent these, and the sweeper's thresholds follow from them. ``anonymous``: a
    ladder match, whose ``/start`` names no opponent (docs/ladder.md)."""
    return MatchSettings(
        rules=rules,
        games_per_match=games_per_match,
        timeout_ms=event.timeout_ms,
        time_bank_ms=event.time_bank_ms,
        fault_limit=event.fault_limit,
        deals=deals,
        anonymous=anonymous,
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
        events: dict[int, TournamentSettings] = {}
        for tid in sorted({m.tournament_id for m in rows.values() if m.tournament_id}):
            tournament = await db_tournaments.get_tournament(conn, tid)
            assert tournament is not None
            events[tid] = tournament.settings
    specs = []
    for match_id in match_ids:
        match = rows.get(match_id)
        if match is None or match.bot1 is None:
            continue
        event = events.get(match.tournament_id or 0, TournamentSettings())
        settings = match_settings(
            match.rules,
            match.games_per_match,
            match.deals,
            event,
            anonymous=match.ladder_pool is not None,
        )
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
