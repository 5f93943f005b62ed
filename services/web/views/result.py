"""How a finished match reads on the pages: who won, the games with the winner's first, and why
when the games did not decide it (tantos, a walkover, a forfeit, a withdrawal, the seed).

The words and their order come from the one shared function the API and the CLI use too
(:func:`services.tournaments.outcome.match_outcome`); here they are only put into the page's
language, through the catalogue.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.db.page_reads import MatchRow
from services.tournaments.outcome import match_outcome
from services.web.i18n import N_
from services.web.i18n import gettext as _
from services.web.views.common import Outcome

WHY = {
    "forfeit": N_("by forfeit"),
    "walkover": N_("by walkover"),
    "withdrawn": N_("a bot withdrew"),
    "seed": N_("through on seed"),
}
"""Why a match was decided when not on games, in a few words (``DecidedBy``)."""
PLAYED_OUT = ("games", "tantos", "draw", "seed")


@dataclass(frozen=True, slots=True)
class ResultWords:
    winner_side: int | None
    score: str  # the games, the winner's first ("2-1"); level: "1-1"; not played out: ""
    why: str  # "" when the games decided it; else a few words: "on tantos 45-38", "by walkover"


def result_words(match: MatchRow, out: Outcome | None) -> ResultWords | None:
    """``match``'s result in words (None while it is not over, or when there is nothing to
    tell: a match given up on). ``out`` supplies the games of an older row whose stored result
    lacks them (read from its replay)."""
    if out is None or not match.entrants:
        return None
    told = match_outcome(
        status=match.status,
        bye=len({e.side for e in match.entrants}) < 2,
        seats=match.entrants,
        winner_side=match.winner_side,
        result=match.result,
        bracket_match=match.bracket_match,
    )
    if told is None or told.decided_by == "bye":
        return None
    first, second = told.sides
    games = (first.games, second.games)
    if match.result is None and out.games is not None:  # an older row: the replay's games
        w = told.winner_side if told.winner_side is not None else 0
        games = (out.games[w], out.games[1 - w])
    score = f"{games[0]}-{games[1]}" if told.decided_by in PLAYED_OUT else ""
    why = ""
    if told.decided_by == "tantos":
        why = _("on tantos %(won)d-%(lost)d") % {"won": first.tantos, "lost": second.tantos}
    elif told.decided_by in WHY:
        why = _(WHY[told.decided_by])
    return ResultWords(told.winner_side, score, why)
