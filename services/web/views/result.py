"""How a finished match reads on the pages: who won, the games with the winner's first, and why
when it was not decided on games (tantos, a walkover, a forfeit, a withdrawal, the seed).

The one place the pages word a result: the pairings, the match page's header and the bracket
notes read it here. The words for the CLI and the API are meant to come from one shared
function (issue 24); when it lands, :func:`result_words` is the one place to switch to it.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.db.pages import MatchRow
from services.tournaments.played import knockout_decision
from services.web.i18n import N_
from services.web.i18n import gettext as _
from services.web.views.common import Outcome

WHY = {
    "forfeit": N_("by forfeit"),
    "walkover": N_("by walkover"),
    "withdrawn": N_("a bot withdrew"),
    "error": N_("not played"),
}
"""Why a match was decided without being played out, in a few words."""


@dataclass(frozen=True, slots=True)
class ResultWords:
    winner_side: int | None
    score: str  # the games, the winner's first ("2-1"); level: "1-1"; none played: ""
    why: str  # "" when the games decided it; else a few words: "on tantos 45-38", "by walkover"


def result_words(match: MatchRow, out: Outcome | None) -> ResultWords | None:
    """``match``'s result in words (None while it is not over)."""
    if out is None:
        return None
    reason = match.result.reason if match.result is not None else out.reason
    games = out.games
    winner = out.winner_side
    score = ""
    if games is not None and (reason is None or reason in ("games", "tantos", "draw")):
        first = winner if winner is not None else 0
        score = f"{games[first]}-{games[1 - first]}"
    why = ""
    if reason in WHY:
        why = _(WHY[reason])
    elif knockout_decision(match.bracket_match, match.result) == "seed":
        why = _("through on seed")
    elif reason == "tantos" and out.tantos is not None and winner is not None:
        why = _("on tantos %(won)d-%(lost)d") % {
            "won": out.tantos[winner],
            "lost": out.tantos[1 - winner],
        }
    return ResultWords(winner, score, why)
