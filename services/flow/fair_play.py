"""Events that hold bots of other owners play under settings those bots accept (issue 21,
break 8: an organiser entered a victim's open bot into a rated round robin with a 10 ms
timeout, one fault and one game per match, and farmed its rating).

* A rated event that holds a bot of another owner than its organiser has floors on its
  ``timeout_ms``, ``fault_limit`` and ``games_per_match`` (:class:`Floors`, settings
  ``TRUCO_RATED_MIN_*``).
* A bot may state its own ``min_timeout_ms``: another owner may not enter it into an event
  whose ``timeout_ms`` is lower, rated or not.
* Entering checks both (a 422); starting checks them again and withdraws an entry that no
  longer fits (its owner raised its minimum, or closed it), like an unavailable bot.
* Entries of other owners' bots that the organiser makes (not those their owners make
  themselves, as in a public event) count against the organiser's quota
  (:func:`open_entry_quota`, the challenge quotas' advisory-lock check).

Farming at the floors (issue 33, 3): an open bot that needs 400 ms, entered by an organiser at
the floors (200 ms, 3 faults, 2 games), forfeited a rated match (1500 -> 1480, organiser +20),
once per event. So:

* **A bot's measured need.** Each played match stores each bot's call latency
  (``services.db.call_latency``); a bot's need is its highest 95th percentile over its 20 latest
  matches (of 10 calls or more), times :data:`NEED_MARGIN`, rounded up to 10 ms
  (:func:`needed_timeout_ms`). A rated event that holds another owner's bot needs a
  ``timeout_ms`` of at least that need: entering is refused (422) and the start leaves the
  bot out, as for the floors.
* **A bot not yet measured** (new, or never played 10 calls) cannot be refused by its need: a
  rated tournament match it forfeits on a timeout, when someone else than its owner entered
  it, is not rated (:func:`spared_forfeit`): neither side's rating moves, so the organiser gains
  nothing. (A bot its owner entered, or whose need was known, is rated as any other.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

from arena.match.replay import Replay
from services.base.config import FairPlaySettings
from services.db import call_latency
from services.db import tournaments as db_tournaments
from services.db.accounts import Connection, Executor
from services.db.matches import StoredMatch
from services.domain.tournament_settings import TournamentSettings
from services.flow.quota_check import Check, counted_check

ENTRY_RETRY_AFTER_S = 60
"""What a refused organiser is told to wait: entries free up as events finish."""
NEED_MARGIN = 1.25
"""A bot's need is its measured 95th percentile with this margin (its slow calls past the
95th, the machine's lateness)."""


def needed_timeout_ms(p95_ms: float | None) -> int | None:
    """The least per-call timeout a bot has shown it needs, from its highest recent 95th
    percentile (None: not measured)."""
    if p95_ms is None:
        return None
    return min(60_000, max(10, math.ceil(p95_ms * NEED_MARGIN / 10) * 10))


class Floors(NamedTuple):
    """The least settings of a rated event that holds another owner's bot."""

    timeout_ms: int
    fault_limit: int
    games_per_match: int


def floors_of(settings: FairPlaySettings) -> Floors:
    """The floors the platform's settings set (``TRUCO_RATED_MIN_*``)."""
    return Floors(
        timeout_ms=settings.rated_min_timeout_ms,
        fault_limit=settings.rated_min_fault_limit,
        games_per_match=settings.rated_min_games_per_match,
    )


class SettingsRefused(ValueError):
    """Another owner's bot does not accept the event's settings (API: 422)."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


class EntryQuotaExceeded(Exception):
    """Too many entries of other owners' bots (API: 429)."""


def refusal(
    settings: TournamentSettings,
    floors: Floors | None,
    bot_id: int,
    min_timeout_ms: int | None,
    needed_ms: int | None = None,
) -> SettingsRefused | None:
    """Why bot ``bot_id`` of another owner than the organiser may not play under ``settings``
    (None: it may). ``floors`` None: no floors (the caller is not the platform's API or beat,
    which pass the configured ones: a test, a bench); the bot's own minimum still holds.
    ``needed_ms``: the timeout the bot has shown it needs (:func:`needed_timeout_ms`), which a
    rated event with floors must meet."""
    if min_timeout_ms is not None and settings.timeout_ms < min_timeout_ms:
        return SettingsRefused(
            f"bot {bot_id} accepts a timeout_ms of at least {min_timeout_ms} (its owner's "
            f"min_timeout_ms); this event's is {settings.timeout_ms}",
            "timeout_ms",
        )
    if not settings.rated or floors is None:
        return None
    if needed_ms is not None and settings.timeout_ms < needed_ms:
        return SettingsRefused(
            f"bot {bot_id} has needed about {needed_ms} ms a call in its recent matches (its "
            f"measured latency); a rated event that holds it needs timeout_ms of at least "
            f"{needed_ms}; this event's is {settings.timeout_ms}",
            "timeout_ms",
        )
    for field, least in floors._asdict().items():
        value = getattr(settings, field)
        if value < least:
            return SettingsRefused(
                f"a rated event that holds another owner's bot needs {field} of at least "
                f"{least}; this event's is {value}: enter only your own bots, or create the "
                f"event with {field} {least} or more",
                field,
            )
    return None


def open_entry_quota(organiser_id: int, per_account: int) -> Check:
    """A check for the entering transaction: the entries of other owners' bots that the
    organiser made in its registering and running events stay under ``per_account``."""
    return counted_check(
        lambda conn: db_tournaments.lock_foreign_entries(conn, organiser_id),
        [
            (
                lambda conn: db_tournaments.foreign_entries_of_organiser(conn, organiser_id),
                per_account,
                EntryQuotaExceeded(
                    f"you have entered {per_account} bots of other owners into your registering "
                    "and running events, the most an account may; withdraw one or wait for an "
                    "event to finish"
                ),
            )
        ],
    )


async def needs(conn: Executor, bot_ids: Sequence[int]) -> dict[int, int]:
    """The measured need (:func:`needed_timeout_ms`) of each of these bots that has one."""
    measured = await call_latency.highest_p95(conn, bot_ids)
    return {bot: need for bot, p95 in measured.items() if (need := needed_timeout_ms(p95))}


async def record_latency(conn: Connection, match: StoredMatch, replay: Replay) -> None:
    """Keep each bot's call latency in this match (with its result, in its transaction)."""
    latency = replay.result.latency
    if not latency or len(latency) != len(match.bots):
        return
    await call_latency.record(
        conn,
        match.id,
        [
            (bot, one.calls, one.p95_ms, one.max_ms)
            for bot, one in zip(match.bots, latency, strict=True)
        ],
    )


async def spared_forfeit(conn: Connection, match: StoredMatch, replay: Replay) -> bool:
    """Whether a rated tournament match is not rated after all: a bot forfeited it on a
    timeout, and someone else than its owner (and its owner is not the organiser) entered it
    (see the module: the bot's need was not known, or it would have been left out)."""
    result = replay.result
    if match.tournament_id is None or result.reason != "forfeit":
        return False
    timed_out = {
        match.bots[cause.side]
        for cause in result.causes
        if cause.kind == "timeout" and 0 <= cause.side < len(match.bots)
    }
    if not timed_out:
        return False
    tournament = await db_tournaments.get_tournament(conn, match.tournament_id)
    if tournament is None:
        return False
    entered = await db_tournaments.foreign_entries(conn, tournament.id, tournament.organiser_id)
    return any(e.by_other and e.bot_id in timed_out for e in entered)
