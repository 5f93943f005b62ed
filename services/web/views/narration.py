"""The table's narration: one sentence for each event of a game, in the page's language, the
same on every table (``/play``, a live match, a replay). The server renders it here; the
pages' script says the same words in the page (``static/table.js``, which reads
:data:`SENTENCES` and the other words from :func:`services.web.views.table_words.table_words`);
a browser test steps a replay in the page and compares each line with this module's.

Second person for the person at the table ("Jugaste el 4 de bastos", "Cantaste truco"): the
sentences with ``you`` in their key are used when the seat acting is ``Narrator.you``. Whatever
a seat declares is said ("dijo «tengo 31»", "«son buenas»"), and the cards shown at a hand's end
(R-11's proof) are named. A sentence ends without a full stop; several are joined with ". ".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.events import (
    ActionTaken,
    Declaration,
    EnvidoCancelled,
    EnvidoSettled,
    Event,
    FlorSettled,
    GameEnded,
    HandEnded,
    HandStarted,
    RoundEnded,
    TrucoSettled,
)
from engine.observe import HandShown
from engine.spoken import named
from services.web.i18n import N_, pgettext
from services.web.i18n import gettext as _
from services.web.views.common import card_name, sena_name

SENTENCES: dict[str, str] = {
    "hand": N_("Hand %(hand)d: %(dealer)s deals, %(mano)s is mano"),
    "hand_you_mano": N_("Hand %(hand)d: %(dealer)s deals, you are mano"),
    "hand_you_deal": N_("Hand %(hand)d: you deal, %(mano)s is mano"),
    "play": N_("%(who)s played the %(card)s"),
    "play_you": N_("You played the %(card)s"),
    "canto": N_("%(who)s called %(canto)s"),
    "canto_you": N_("You called %(canto)s"),
    "answer": N_("%(who)s said %(answer)s"),
    "answer_you": N_("You said %(answer)s"),
    "mazo": N_("%(who)s went to the mazo"),
    "mazo_you": N_("You went to the mazo"),
    "sena": N_("%(line)s, with a seña: %(sena)s"),
    "round": N_("Round %(round)d to %(team)s, with the %(card)s"),
    "round_parda": N_("Round %(round)d: parda"),
    "envido": N_("%(chain)s: %(answer)s"),
    "declared": N_("%(who)s declared %(points)d"),
    "declared_you": N_("You declared %(points)d"),
    "buenas": N_("%(who)s said son buenas"),
    "buenas_you": N_("You said son buenas"),
    "points_to": N_("%(points)d to %(team)s"),
    "envido_cancelled": N_("The envido is off: flor was sung"),
    "flor": N_("%(bet)s (%(outcome)s)"),
    "truco": N_("%(level)s: %(answer)s"),
    "hand_won": N_("Hand %(hand)d to %(team)s: %(points)d (%(reason)s)"),
    "hand_over": N_("Hand %(hand)d ends: the game is over"),
    "shows": N_("%(who)s showed %(cards)s"),
    "shows_you": N_("You showed %(cards)s"),
    "game": N_("Game over: %(team)s wins %(a)d-%(b)d"),
    "game_we": N_("Game over: we won %(a)d-%(b)d"),
    "game_they": N_("Game over: they won %(a)d-%(b)d"),
}
"""Every sentence of the narration by key (English msgids; the script gets them translated)."""

ANSWERS = frozenset({"quiero", "no_quiero", "con_flor_quiero", "con_flor_me_achico"})

REASONS = {
    "rounds": N_("rounds"),
    "no_quiero": N_("no quiero"),
    "mazo": N_("mazo"),
    "game_over": N_("game over"),
}
"""Why a hand ended (``HandEnded.reason``), as the hand's sentence says it."""


def flor_outcomes() -> dict[str, str]:
    """How a flor was settled (``FlorSettled.outcome``), in the page's language."""
    return {
        "alone": pgettext("flor", "alone"),
        "quiero": pgettext("flor", "accepted"),
        "achico": pgettext("flor", "refused"),
    }


def said_sentence(key: str, values: dict[str, object]) -> str:
    return _(SENTENCES[key]) % values


def joined(parts: Sequence[str]) -> str:
    """Sentences joined as the narration joins them."""
    return ". ".join(p for p in parts if p)


@dataclass(frozen=True, slots=True)
class Narrator:
    """The narration of one table: ``seats`` names each seat as a sentence names it, ``teams``
    each team ("nosotros" and "ellos" at a person's table), ``you`` the person's seat."""

    seats: Sequence[str]
    teams: tuple[str, str]
    you: int | None = None

    def who(self, seat: int) -> str:
        return self.seats[seat] if 0 <= seat < len(self.seats) else f"#{seat}"

    def _by(self, key: str, seat: int, values: dict[str, object]) -> str:
        """Sentence ``key`` said by ``seat``: its second-person form for the person."""
        if seat == self.you:
            return said_sentence(f"{key}_you", values)
        return said_sentence(key, {**values, "who": self.who(seat)})

    def declarations(self, found: Sequence[Declaration]) -> list[str]:
        return [
            self._by("buenas", d.seat, {})
            if d.points is None
            else self._by("declared", d.seat, {"points": d.points})
            for d in found
        ]

    def line(self, event: Event | HandShown) -> str:
        """The sentence(s) for ``event``."""
        if isinstance(event, HandStarted | HandShown):
            return self.hand_started(event.hand, event.mano)
        if isinstance(event, ActionTaken):
            return self.action(event)
        if isinstance(event, RoundEnded):
            if event.winner is None:
                return said_sentence("round_parda", {"round": event.round + 1})
            card = next((c for s, c in event.plays if s == event.next_leader), "")
            return said_sentence(
                "round",
                {
                    "round": event.round + 1,
                    "team": self.teams[event.winner],
                    "card": card_name(card),
                },
            )
        if isinstance(event, EnvidoSettled):
            chain = [_(named(c)) for c in event.chain]
            head = said_sentence(
                "envido",
                {
                    "chain": ", ".join([chain[0], *(c.lower() for c in chain[1:])]),
                    "answer": "querido" if event.querido else "no querido",
                },
            )
            return joined(
                [
                    head,
                    *self.declarations(event.declarations),
                    self._points(event.points, event.winner),
                ]
            )
        if isinstance(event, EnvidoCancelled):
            return said_sentence("envido_cancelled", {})
        if isinstance(event, FlorSettled):
            head = said_sentence(
                "flor",
                {
                    "bet": _(named(event.bet)),
                    "outcome": flor_outcomes().get(event.outcome, event.outcome),
                },
            )
            return joined(
                [
                    head,
                    *self.declarations(event.declarations),
                    self._points(event.points, event.winner),
                ]
            )
        if isinstance(event, TrucoSettled):
            return said_sentence(
                "truco",
                {
                    "level": _(named(event.level)),
                    "answer": "querido" if event.querido else "no querido",
                },
            )
        if isinstance(event, HandEnded):
            return self.hand_ended(event)
        if isinstance(event, GameEnded):
            return self.game_ended(event)
        return ""

    def hand_started(self, hand: int, mano: int) -> str:
        dealer = (mano - 1) % max(1, len(self.seats))
        values: dict[str, object] = {"hand": hand + 1}
        if mano == self.you:
            return said_sentence("hand_you_mano", {**values, "dealer": self.who(dealer)})
        if dealer == self.you:
            return said_sentence("hand_you_deal", {**values, "mano": self.who(mano)})
        return said_sentence("hand", {**values, "dealer": self.who(dealer), "mano": self.who(mano)})

    def action(self, event: ActionTaken) -> str:
        word = event.action
        if word == "play" and event.card:
            line = self._by("play", event.seat, {"card": card_name(event.card)})
        elif word == "mazo":
            line = self._by("mazo", event.seat, {})
        elif word in ANSWERS:
            line = self._by("answer", event.seat, {"answer": _(named(word)).lower()})
        else:
            line = self._by("canto", event.seat, {"canto": _(named(word)).lower()})
        if event.sena:
            line = said_sentence("sena", {"line": line, "sena": sena_name(event.sena)})
        return line

    def _points(self, points: int, team: int) -> str:
        return said_sentence("points_to", {"points": points, "team": self.teams[team]})

    def hand_ended(self, event: HandEnded) -> str:
        if event.winner is None:
            head = said_sentence("hand_over", {"hand": event.hand + 1})
        else:
            reason = REASONS.get(event.reason)
            head = said_sentence(
                "hand_won",
                {
                    "hand": event.hand + 1,
                    "team": self.teams[event.winner],
                    "points": event.points,
                    "reason": _(reason) if reason else event.reason,
                },
            )
        shows = [
            self._by("shows", s.seat, {"cards": ", ".join(card_name(c) for c in s.cards)})
            for s in event.shown
        ]
        return joined([head, *shows])

    def game_ended(self, event: GameEnded) -> str:
        if self.you is None:
            return said_sentence(
                "game",
                {"team": self.teams[event.winner], "a": event.score[0], "b": event.score[1]},
            )
        won, lost = event.score[event.winner], event.score[1 - event.winner]
        key = "game_we" if event.winner == self.you % 2 else "game_they"
        return said_sentence(key, {"a": won, "b": lost})
