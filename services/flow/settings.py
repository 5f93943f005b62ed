"""The checks every match created under an event's settings passes: the mode's rules, the games
per match, a duration the worker allows, a partnership the format offers. The settings document
itself is :class:`services.domain.tournament_settings.TournamentSettings`."""

from __future__ import annotations

from typing import Any

import msgspec

from arena.match.runner import MatchSettings, default_games_per_match
from engine.errors import RulesError
from engine.rules import Rules
from services.base import limits
from services.domain import INDIVIDUAL, PARTNERSHIPS, PLAYERS, Mode
from services.domain.tournament_settings import TournamentSettings
from services.flow.errors import BadPartnership, SettingsTooLong
from services.tournaments.formats import get_format


def mode_rules(mode: Mode, rules: Rules | dict[str, Any] | None) -> Rules:
    """The engine rules for ``mode``: ``players`` follows the mode unless a request's rules
    (the dict it sent) name it, and then it must agree; rules already typed take the mode's.
    Raises :class:`~engine.errors.RulesError` naming the key."""
    if isinstance(rules, Rules):
        return msgspec.structs.replace(rules, players=PLAYERS[mode])
    parsed = Rules.from_dict(rules)
    wanted = PLAYERS[mode]
    if rules and "players" in rules and parsed.players != wanted:
        raise RulesError(
            f"rules.players must be {wanted} in {mode} mode, not {parsed.players}", "players"
        )
    return msgspec.structs.replace(parsed, players=wanted)


def default_games(mode: Mode) -> int:
    """Games per match when a tournament or challenge does not say (by mode)."""
    return default_games_per_match(PLAYERS[mode])


def check_duration(settings: TournamentSettings, rules: Rules, entrants: int = 2) -> None:
    """Raise :class:`SettingsTooLong` when a match's worst case (every bot using all its time;
    ``entrants`` time banks: 4 in individual 2v2) is longer than the worker lets a match run
    (``services.base.limits``)."""
    match = MatchSettings(
        rules=rules,
        games_per_match=settings.games_per_match,
        timeout_ms=settings.timeout_ms,
        time_bank_ms=settings.time_bank_ms,
        fault_limit=settings.fault_limit,
    )
    if not limits.fits(match, entrants):
        worst = limits.match_worst_case_s(match, entrants)
        raise SettingsTooLong(
            f"a match could take up to {worst:.0f} s (games_per_match {settings.games_per_match}"
            f" x {entrants} time banks of {settings.time_bank_ms} ms plus calls of up to "
            f"{settings.timeout_ms} ms); matches are cut at {limits.MAX_MATCH_S} s: play fewer "
            "games per match or use a shorter timeout"
        )


def check_partnership(format: str, mode: str, partnership: str) -> None:
    if partnership not in PARTNERSHIPS:
        raise BadPartnership(f"unknown partnership {partnership!r}: team or individual")
    if partnership == INDIVIDUAL and mode != "2v2":
        raise BadPartnership("partnership individual exists only in 2v2 mode")
    if partnership == INDIVIDUAL and not get_format(format).individual:
        raise BadPartnership(
            "individual 2v2 is played as swiss or round_robin (partners change every round)"
        )
