"""An event's settings: the ``tournaments.settings`` document, typed once where the row is read
(``services.db.tournaments``) and written back as this struct, so no reader sees a dict."""

from __future__ import annotations

from typing import Annotated, Final

import msgspec

from arena.game.deals import INDEPENDENT, DealsMode
from arena.match.runner import default_games_per_match
from engine.rules import Rules

DEFAULT_TIMEOUT_MS: Final = 1000
DEFAULT_TIME_BANK_MS: Final = 30_000
DEFAULT_FAULT_LIMIT: Final = 5
"""The time limits of a match outside any event (a challenge, an SPRT pair, a ladder match),
and an event's unless it says (migration 0027's column defaults are these)."""


class TournamentSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The ``tournaments.settings`` document.

    ``rounds`` is the Swiss round count (None: :func:`services.tournaments.swiss.format.default_swiss_rounds`
    of the field at start, stored then); other formats ignore it (their size fixes it).
    ``rules`` is the engine's rules object, normalised for the mode
    (:func:`services.flow.settings.mode_rules`).
    """

    rules: Rules = msgspec.field(default_factory=Rules)
    rounds: Annotated[int, msgspec.Meta(ge=1, le=64)] | None = None
    games_per_match: Annotated[int, msgspec.Meta(ge=1, le=100)] = default_games_per_match(2)
    timeout_ms: Annotated[int, msgspec.Meta(ge=10, le=60_000)] = DEFAULT_TIMEOUT_MS
    time_bank_ms: Annotated[int, msgspec.Meta(ge=10, le=3_600_000)] = DEFAULT_TIME_BANK_MS
    fault_limit: Annotated[int, msgspec.Meta(ge=1, le=1000)] = DEFAULT_FAULT_LIMIT
    third_place: bool = False
    deals: DealsMode = INDEPENDENT
    rated: bool = True


def decode_settings(document: object) -> TournamentSettings:
    """The settings of a stored row's JSON document (rules as the engine checks them)."""
    return msgspec.convert(document, TournamentSettings)
