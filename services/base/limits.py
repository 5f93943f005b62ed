"""Time limits of the worker's tasks and of a match. Every hard limit is below the broker's
visibility timeout. Pure arithmetic, so the workflow (which refuses tournament settings whose
matches could not finish) and the workers share it without importing each other.

Redis has no real acknowledgements: a message a worker took is handed to another worker when it
has not been acknowledged within the visibility timeout. Tasks are acknowledged late (after
they ran), so a task that may run longer than the visibility timeout would run twice at the
same time. Hence: soft limit < hard limit < visibility timeout, for every task (a test checks).

A match's longest possible duration follows from its settings and its number of entrants (time
banks are per entrant and game: two entrants, or four in individual 2v2; every other call has
the per-call timeout), so :func:`match_deadline_s` gives each match
its own limits; :data:`MAX_MATCH_S` is the most any match may take (the API should refuse
tournament settings whose :func:`match_deadline_s` is above it).
"""

from __future__ import annotations

import math

from arena.match.runner import MatchSettings

VISIBILITY_TIMEOUT_S = 2 * 3600
"""Redis redelivers a message not acknowledged within this time."""

MATCH_HARD_LIMIT_S = 3600
"""The hard limit of the longest match task (the process running it is killed)."""
MATCH_SOFT_LIMIT_S = MATCH_HARD_LIMIT_S - 20
MAX_MATCH_S = MATCH_HARD_LIMIT_S - 60
"""The most a match may take: :func:`match_deadline_s` is capped by it."""
STORE_SOFT_LIMIT_S = 60
STORE_HARD_LIMIT_S = 90
SHORT_SOFT_LIMIT_S = 120  # beat tasks, health probes
SHORT_HARD_LIMIT_S = 150
FIT_SOFT_LIMIT_S = 900  # the rating fit of every pool (about a minute at 10,000 bots)
FIT_HARD_LIMIT_S = 960

_MARGIN_S = 30.0  # engine time, connection set-up, sending the result


def match_worst_case_s(settings: MatchSettings, entrants: int = 2) -> float:
    """The longest a match under ``settings`` can take when every bot uses all its time."""
    seats = settings.rules.players
    call_s = settings.timeout_ms / 1000.0
    bank_s = settings.time_bank_ms / 1000.0
    per_game = entrants * bank_s + 2 * seats * call_s  # every bank; /start and /end per seat
    return settings.games_per_match * per_game + entrants * call_s  # plus the handshakes


def match_deadline_s(settings: MatchSettings, entrants: int = 2) -> int:
    """The time a match task gets before it is cut (whole seconds, at most MAX_MATCH_S)."""
    return min(MAX_MATCH_S, math.ceil(match_worst_case_s(settings, entrants) + _MARGIN_S))


def match_task_limits(settings: MatchSettings, entrants: int = 2) -> tuple[int, int]:
    """(soft, hard) time limits of one match's task: after its own deadline, within the cap."""
    hard = min(MATCH_HARD_LIMIT_S, match_deadline_s(settings, entrants) + 60)
    return hard - 20, hard


def fits(settings: MatchSettings, entrants: int = 2) -> bool:
    """Whether a match under ``settings`` always finishes within :data:`MAX_MATCH_S`."""
    return match_worst_case_s(settings, entrants) + _MARGIN_S <= MAX_MATCH_S
