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
"""

from __future__ import annotations

from typing import NamedTuple

from services.base.config import FairPlaySettings
from services.db import tournaments as db_tournaments
from services.domain.tournament_settings import TournamentSettings
from services.flow.quota_check import Check, counted_check

ENTRY_RETRY_AFTER_S = 60
"""What a refused organiser is told to wait: entries free up as events finish."""


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
    settings: TournamentSettings, floors: Floors | None, bot_id: int, min_timeout_ms: int | None
) -> SettingsRefused | None:
    """Why bot ``bot_id`` of another owner than the organiser may not play under ``settings``
    (None: it may). ``floors`` None: no floors (the caller is not the platform's API or beat,
    which pass the configured ones: a test, a bench); the bot's own minimum still holds."""
    if min_timeout_ms is not None and settings.timeout_ms < min_timeout_ms:
        return SettingsRefused(
            f"bot {bot_id} accepts a timeout_ms of at least {min_timeout_ms} (its owner's "
            f"min_timeout_ms); this event's is {settings.timeout_ms}",
            "timeout_ms",
        )
    if not settings.rated or floors is None:
        return None
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
