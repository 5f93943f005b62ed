"""The words the ``/play`` table says besides the table's own
(:mod:`services.web.views.table_words`): the calls on its buttons, whose turn it is, the clock,
the end of the match, and how the person and their partner are named (``static/play.js``
reads them from the page; docs/play.md)."""

from __future__ import annotations

from engine.actions import WORDS
from services.web.i18n import gettext as _
from services.web.views.common import canto_name
from services.web.views.table_words import Words


def play_words() -> Words:
    """The calls' labels and the board's sentences, translated."""
    return {
        "actions": {word: canto_name(word) for word in WORDS if word != "play"},
        "your_turn": _("Your turn: %(s)s s left"),
        "their_turn": _("%(who)s is thinking…"),
        "waiting": _("Waiting for the match to start."),
        "play_card": _("Play the %(card)s (key %(n)d)"),
        "your_cards": _("Your cards"),
        "turn_you": _("your turn"),
        "turn_bot": _("thinking"),
        "you": _("You"),
        "us": _("Us"),
        "them": _("Them"),
        "partner": _("%(name)s (partner)"),
        "continue": _("Continue"),
        "won": _("You won the match."),
        "lost": _("You lost the match."),
        "draw": _("The match ended without a winner."),
        "abandoned": _("The match was abandoned."),
        "replay": _("See the replay"),
        "again": _("Play again"),
        "game": _("Game %(n)s of %(of)s"),
        "versus": _("%(us)s against %(them)s"),
        "no_token": _("This page cannot act for this match: it was started in another browser."),
        "error": _("Something went wrong: %(detail)s"),
        "partner_sena": _("Your partner signalled: %(sena)s"),
        "sena_caught": _("%(who)s signalled: %(sena)s"),
        "no_sena": _("No seña"),
    }
