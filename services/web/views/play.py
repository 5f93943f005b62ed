"""The words the ``/play`` board shows, in the page's language: every card's name (as the
replay names them), every action and seña, and the board's sentences (``static/play.js``
reads them from the page; docs/play.md)."""

from __future__ import annotations

import msgspec

from engine.actions import SENAS, WORDS
from engine.cards import RANK
from services.web.i18n import gettext as _
from services.web.views.common import canto_name, card_name, sena_name


class PlayWords(msgspec.Struct, frozen=True):
    """The board's words: card names, action labels, seña names, sentences by key."""

    cards: dict[str, str]
    actions: dict[str, str]
    senas: dict[str, str]
    text: dict[str, str]


def play_words() -> PlayWords:
    """Card names, action labels, seña names and the board's sentences, translated."""
    return PlayWords(
        cards={card: card_name(card) for card in RANK},
        actions={word: canto_name(word) for word in WORDS if word != "play"},
        senas={sena: sena_name(sena) for sena in SENAS},
        text={
            "your_turn": _("Your turn: choose a card or a call."),
            "their_turn": _("The bot is thinking."),
            "waiting": _("Waiting for the match to start."),
            "play_card": _("Play %(card)s"),
            "you": _("You"),
            "bot": _("Bot"),
            "score": _("Score: you %(you)s, %(bot)s %(them)s"),
            "clock": _("%(s)s s left"),
            "won": _("You won the match."),
            "lost": _("You lost the match."),
            "draw": _("The match ended without a winner."),
            "abandoned": _("The match was abandoned."),
            "replay": _("See the replay"),
            "again": _("Play again"),
            "round": _("Round %(n)s"),
            "game": _("Game %(n)s of %(of)s"),
            "no_token": _(
                "This page cannot act for this match: it was started in another browser."
            ),
            "error": _("Something went wrong: %(detail)s"),
            "envido_points": _("Your envido: %(n)s"),
            "has_flor": _("You have flor."),
            "played": _("%(who)s played %(card)s"),
            "said": _("%(who)s: %(word)s"),
            "hand_start": _("A new hand: you hold %(cards)s."),
            "partner": _("Partner"),
            "partner_sena": _("Your partner signalled: %(sena)s"),
            "sena_caught": _("%(who)s signalled: %(sena)s"),
            "no_sena": _("No seña"),
        },
    )
