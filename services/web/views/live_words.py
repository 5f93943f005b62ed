"""The words a live match page's script needs to narrate the stream's events in place
(``static/live.js``): the narration's own sentences (:func:`arena.game.narrate.describe`,
the replay viewer's ``_describe``) as templates in the page's language, the names of the cards,
calls and seats. The same catalogue entries as the server-rendered steps: nothing new to
translate, and the line the script appends reads as the line a reload would show."""

from __future__ import annotations

import msgspec

from arena.game.narrate import WORDS
from engine.cards import DECK
from engine.spoken import NAMED, SAID
from services.web.i18n import gettext as _
from services.web.i18n import ngettext, pgettext
from services.web.views.causes import FAULT_TAGS, fault_tag
from services.web.views.common import card_name
from services.web.views.hands import OpenHand, open_hand
from services.web.views.replay import ANSWERS, ReplayView, Shown
from services.web.views.steps import game_steps

TEMPLATES = {
    "hand_started": "Hand %(hand)d: cards dealt, %(mano)s is mano",
    "play": "%(who)s plays the %(card)s",
    "round_parda": "Round %(round)d: parda",
    "round_to": "Round %(round)d to %(team)s",
    "envido": "%(chain)s: %(answer)s, %(points)d to %(team)s%(stated)s",
    "envido_cancelled": "Envido cancelled (%(reason)s)",
    "flor": "%(bet)s (%(outcome)s): %(points)d to %(team)s",
    "truco": "%(level)s %(answer)s by %(who)s",
    "hand_over": "Hand %(hand)d ends: the game is over",
    "hand_to": "Hand %(hand)d to %(team)s: %(points)d (%(reason)s)",
    "game_over": "Game over: %(team)s wins %(a)d-%(b)d",
}
"""The narration's sentences by event (the msgids of ``arena/game/narrate.py`` and
``services/web/views/replay.py``; tests/services/web/test_live_words.py checks they match)."""


class LiveWords(msgspec.Struct, frozen=True):
    """What ``live.js`` needs to word a live match in the page's language: the open hand's
    summary, the sentences by event, card and canto names, fault tags, the seats and teams."""

    open_hand: OpenHand
    not_called: str
    not_wanted: str
    ended_in_hand: str
    tanto: list[str]
    seats: list[str]
    teams: list[str]
    hand: int
    t: dict[str, str]
    cards: dict[str, str]
    said: dict[str, str]
    named: dict[str, str]
    words: dict[str, str]
    faults: dict[str, str]
    answers: list[str]
    son_buenas: str
    hidden: str
    fault: str
    shows: str
    timeline: str
    hand_n: str
    round_n: str
    r_n: str


def live_words(r: ReplayView, replay: Shown) -> LiveWords:
    """Everything the script needs for the live viewer ``r`` (a spectator's) of ``replay``."""
    steps = game_steps(replay.games[r.game - 1].events)
    return LiveWords(
        open_hand=open_hand(steps, r.team_names),
        not_called=_("not called"),
        not_wanted=_("%(level)s not wanted"),
        ended_in_hand=_("the game ended in the hand"),
        tanto=[ngettext("%(num)d tanto", "%(num)d tantos", n) for n in (1, 2)],
        seats=[s.name.name for s in r.table.seats],
        teams=list(r.team_names),
        hand=r.table.hand,
        t={k: _(v) for k, v in TEMPLATES.items()},
        cards={c: card_name(c) for c in DECK},
        said={k: _(v) for k, v in SAID.items()},
        named={k: _(v) for k, v in NAMED.items()},
        words={k: _(v) for k, v in WORDS.items()},
        faults={k: fault_tag(k) for k in FAULT_TAGS},
        answers=sorted(ANSWERS),
        son_buenas=_("son buenas"),
        hidden=_("hidden card"),
        fault=_("fault:"),
        shows=_("shows"),
        timeline=_("Hand %(n)d: timeline"),
        hand_n=_("hand %(n)d"),
        round_n=pgettext("trick", "round %(n)d"),
        r_n=pgettext("trick", "R%(n)d:"),
    )
