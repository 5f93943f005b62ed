"""The tournament and match workflow over the database.

Used by the API (create, enter, start, challenge) and by the Celery workers (``match_specs``
before running matches, ``record_result`` after, ``withdraw_bot`` and ``due_tournaments`` from
beat), always as ``flow.NAME``: this package's modules hold one idea each and the names below
are their public face. The pairing, standings and Elo arithmetic are the pure modules
(:mod:`services.tournaments.played`, :mod:`services.tournaments`, :mod:`services.domain.ratings`); all SQL
is in :mod:`services.db`.

* :mod:`.errors`: what the API turns into 404, 409 and 422 problems;
* :mod:`.settings`: an event's settings and the checks a match's settings pass;
* :mod:`.tournaments`: create, enter, start, cancel, due tournaments, withdraw a bot;
* :mod:`.advance`: the format's next step stored (new matches, rounds done, the end, forfeits);
* :mod:`.event`: a stored event read back, and its standings;
* :mod:`.matches`: the matches handed to the bot-calling workers;
* :mod:`.results`: a result, its replay and its Elo change stored in one transaction;
* :mod:`.challenges`: a casual match outside tournaments;
* :mod:`.head_to_head`: the two bots of a challenge or an SPRT test checked.

Life of a tournament: ``registering`` (entries) -> :func:`start_tournament` (seeds by rating,
round 1 or the first bracket matches) -> ``running``: every :func:`record_result` stores the
result, the replay and the Elo change in one transaction and, when that completes a round
(Swiss, round robin) or makes bracket matches ready, creates the next matches and returns
their ids for the caller to queue -> ``finished`` after the last round or when the bracket
has a champion. The organiser may cancel it while registering or running
(:func:`cancel_tournament`); a scheduled one that reaches its start time with fewer than two
available bots is cancelled by :func:`due_tournaments`.

Concurrency: each call is one transaction. Tournament rows (and SPRT tests' rows,
:mod:`services.flow.sprt_pairs`) are locked before match rows,
match rows before rating rows (rating rows in bot id order), so concurrent results of one
round are serialised on the tournament and never deadlock; the round is paired exactly once.
"""

from __future__ import annotations

from services.domain.tournament_settings import TournamentSettings
from services.flow.advance import advance
from services.flow.challenges import create_challenge
from services.flow.errors import (
    AlreadyEntered,
    BadPartnership,
    BotNotFound,
    BotUnavailable,
    EntryWithdrawn,
    FlowError,
    MatchNotFound,
    MirroredDealsRefused,
    NotEnoughEntrants,
    NotEntered,
    NotFound,
    NotOrganiser,
    ResultMismatch,
    SameBot,
    SettingsTooLong,
    TournamentFull,
    TournamentNotFound,
    TournamentStateError,
)
from services.flow.event import event_state, standings
from services.flow.fair_play import (
    ENTRY_RETRY_AFTER_S,
    EntryQuotaExceeded,
    Floors,
    SettingsRefused,
    floors_of,
    open_entry_quota,
)
from services.flow.matches import match_specs
from services.flow.results import Recorded, mark_running, match_stopped, record_result
from services.flow.settings import (
    check_duration,
    check_partnership,
    default_games,
    mode_rules,
)
from services.flow.tournaments import (
    Withdrawal,
    bot_closed,
    cancel_tournament,
    create_tournament,
    due_tournaments,
    enter_tournament,
    start_tournament,
    withdraw_bot,
    withdraw_entry,
)

__all__ = [
    "ENTRY_RETRY_AFTER_S",
    "AlreadyEntered",
    "BadPartnership",
    "BotNotFound",
    "BotUnavailable",
    "EntryQuotaExceeded",
    "EntryWithdrawn",
    "Floors",
    "FlowError",
    "MatchNotFound",
    "MirroredDealsRefused",
    "NotEnoughEntrants",
    "NotEntered",
    "NotFound",
    "NotOrganiser",
    "Recorded",
    "ResultMismatch",
    "SameBot",
    "SettingsRefused",
    "SettingsTooLong",
    "TournamentFull",
    "TournamentNotFound",
    "TournamentSettings",
    "TournamentStateError",
    "Withdrawal",
    "advance",
    "bot_closed",
    "cancel_tournament",
    "check_duration",
    "check_partnership",
    "create_challenge",
    "create_tournament",
    "default_games",
    "due_tournaments",
    "enter_tournament",
    "event_state",
    "floors_of",
    "mark_running",
    "match_specs",
    "match_stopped",
    "mode_rules",
    "open_entry_quota",
    "record_result",
    "standings",
    "start_tournament",
    "withdraw_bot",
    "withdraw_entry",
]
