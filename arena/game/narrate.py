"""Engine events in words: the one narration of a game, for every reader.

Two renderings share the vocabulary here (card names, declarations, who scores): the sentences
of the replay page (:func:`describe` for the caption and the timeline, :func:`points_gained`,
:func:`hand_note` for the list of hands), and the indented log of ``truco demo``
(:func:`log_line`). ``seats`` are the names of the players by seat; ``teams`` the names of the
two teams. Nothing here decides what a viewer may see: pass events already filtered by
``engine.observe`` when the reader must not see everything.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from engine.cards import RANK, SUIT, SUIT_NAMES
from engine.events import (
    ActionTaken,
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
from engine.spoken import named, said


class CouldNotStart(Protocol):
    """A seat whose bot could not start a game: what a sentence names of it. The match record's
    ``arena.match.replay.StartFault`` is one; the words do not need the record itself."""

    @property
    def seat(self) -> int: ...

    @property
    def fault(self) -> str: ...

    @property
    def detail(self) -> str: ...


Translate = Callable[[str], str]
"""A gettext: the English message in the reader's language."""


def untranslated(message: str) -> str:
    """The English message itself (the default reader, and ``truco demo``)."""
    return message


N_ = untranslated  # marks a word for the pages' catalogues (pybabel's N_ keyword)

WORDS = {
    "rounds": N_("rounds"),
    "no_quiero": N_("no quiero"),
    "mazo": N_("mazo"),
    "game_over": N_("game over"),
    "alone": N_("alone"),
    "quiero": N_("quiero"),
    "achico": N_("achico"),
    "flor": N_("flor"),
    "flor_sung": N_("flor sung"),
}
"""The words events carry (a hand's end, a flor's outcome, why an envido was cancelled)."""


def _word(word: str, gettext: Translate) -> str:
    return gettext(WORDS[word]) if word in WORDS else word.replace("_", " ")


def card_name(card: str) -> str:
    """``"4E"`` -> ``"4 de Espadas"``."""
    return f"{RANK[card]} de {SUIT_NAMES[SUIT[card]]}"


def seat_name(seats: Sequence[str], seat: int) -> str:
    return seats[seat] if seat < len(seats) else f"seat {seat}"


def declarations(event: EnvidoSettled, seats: Sequence[str]) -> str:
    """What was declared at a settled envido: ``"ana 27, beto son buenas"``."""
    return ", ".join(
        f"{seat_name(seats, d.seat)} {d.points if d.points is not None else 'son buenas'}"
        for d in event.declarations
    )


# --------------------------------------------------------------------------- sentences


def describe(
    event: Event | CouldNotStart,
    seats: Sequence[str],
    teams: tuple[str, str],
    gettext: Translate = untranslated,
    card: Callable[[str], str] = card_name,
) -> str:
    """One sentence for any event of a game (the replay page's caption and timeline).

    ``gettext`` translates the English sentence (the pages pass their gettext; the messages are in
    their catalogues) and ``card`` names a card ("ancho de espadas" on the Spanish pages)."""
    if isinstance(event, HandStarted):
        return gettext("Hand %(hand)d: cards dealt, %(mano)s is mano") % {
            "hand": event.hand + 1,
            "mano": seat_name(seats, event.mano),
        }
    if isinstance(event, ActionTaken):
        who = seat_name(seats, event.seat)
        if event.action == "play" and event.card:
            return gettext("%(who)s plays the %(card)s") % {"who": who, "card": card(event.card)}
        return f"{who}: {gettext(said(event.action))}"
    if isinstance(event, RoundEnded):
        if event.winner is None:
            return gettext("Round %(round)d: parda") % {"round": event.round + 1}
        return gettext("Round %(round)d to %(team)s") % {
            "round": event.round + 1,
            "team": teams[event.winner],
        }
    if isinstance(event, EnvidoSettled):
        stated = declarations(event, seats)
        return gettext("%(chain)s %(answer)s: %(points)d to %(team)s%(stated)s") % {
            "chain": " + ".join(gettext(named(c)) for c in event.chain),
            "answer": "querido" if event.querido else "no querido",
            "points": event.points,
            "team": teams[event.winner],
            "stated": f" ({stated})" if stated else "",
        }
    if isinstance(event, EnvidoCancelled):
        return gettext("Envido cancelled (%(reason)s)") % {"reason": _word(event.reason, gettext)}
    if isinstance(event, FlorSettled):
        return gettext("%(bet)s (%(outcome)s): %(points)d to %(team)s") % {
            "bet": gettext(named(event.bet)),
            "outcome": _word(event.outcome, gettext),
            "points": event.points,
            "team": teams[event.winner],
        }
    if isinstance(event, TrucoSettled):
        return gettext("%(level)s %(answer)s by %(who)s") % {
            "level": gettext(named(event.level)),
            "answer": "querido" if event.querido else "no querido",
            "who": seat_name(seats, event.seat),
        }
    if isinstance(event, HandEnded):
        if event.winner is None:
            return gettext("Hand %(hand)d ends: the game is over") % {"hand": event.hand + 1}
        return gettext("Hand %(hand)d to %(team)s: %(points)d (%(reason)s)") % {
            "hand": event.hand + 1,
            "team": teams[event.winner],
            "points": event.points,
            "reason": _word(event.reason, gettext),
        }
    if isinstance(event, GameEnded):
        return gettext("Game over: %(team)s wins %(a)d-%(b)d") % {
            "team": teams[event.winner],
            "a": event.score[0],
            "b": event.score[1],
        }
    return gettext("%(who)s could not start: %(fault)s (%(detail)s)") % {
        "who": seat_name(seats, event.seat),
        "fault": event.fault,
        "detail": event.detail,
    }


def points_gained(event: Event | CouldNotStart, teams: tuple[str, str]) -> str | None:
    """``"+3 ana & beto"`` for an event that scores, else None."""
    if isinstance(event, EnvidoSettled | FlorSettled):
        return f"+{event.points} {teams[event.winner]}"
    if isinstance(event, HandEnded) and event.winner is not None:
        return f"+{event.points} {teams[event.winner]}"
    return None


def hand_note(event: Event | CouldNotStart, teams: tuple[str, str]) -> str | None:
    """A short note on what a hand's bets came to (``"envido 2 → ana"``), else None."""
    if isinstance(event, EnvidoSettled):
        return f"envido {event.points} → {teams[event.winner]}"
    if isinstance(event, FlorSettled):
        return f"flor {event.points} → {teams[event.winner]}"
    if isinstance(event, TrucoSettled):
        return f"{event.level.replace('_', ' ')} {'quiero' if event.querido else 'no quiero'}"
    return None


# --------------------------------------------------------------------------- the play log


def _team(team: int | None) -> str:
    return "nobody" if team is None else f"team {team}"


def log_line(event: Event, seats: Sequence[str]) -> str | None:
    """The event as a line of a printed game log (``truco demo``), or None for events that
    need no line of their own. Teams are "team 0" and "team 1"; cards keep their short codes."""
    indent = f"   {'':>10}  · "
    if isinstance(event, HandStarted):
        hands = "   ".join(f"{seats[s]}: {' '.join(c)}" for s, c in enumerate(event.deal))
        return (
            f"\n── Hand {event.hand + 1} · mano {seats[event.mano]} · "
            f"score {event.score[0]}-{event.score[1]}\n   {hands}"
        )
    if isinstance(event, ActionTaken):
        text = f"plays {event.card}" if event.action == "play" else said(event.action)
        extra = f"  “{event.say}”" if event.say else ""
        sena = f"  [seña: {event.sena}]" if event.sena else ""
        return f"   {seats[event.seat]:>10}  {text}{extra}{sena}"
    if isinstance(event, RoundEnded):
        won = "parda" if event.winner is None else f"won by {seats[event.next_leader]}"
        return f"{indent}round {event.round + 1} {won}"
    if isinstance(event, EnvidoSettled):
        result = f"querido ({declarations(event, seats)})" if event.querido else "no querido"
        return f"{indent}envido {result}: {event.points} to {_team(event.winner)}"
    if isinstance(event, EnvidoCancelled):
        return f"{indent}the envido is cancelled by a flor"
    if isinstance(event, FlorSettled):
        return f"{indent}flor ({event.outcome}): {event.points} to {_team(event.winner)}"
    if isinstance(event, HandEnded):
        if event.winner is None:
            return f"{indent}the game ends in the middle of the hand"
        return (
            f"{indent}hand to {_team(event.winner)} ({event.reason}): +{event.points}"
            f" → {event.score[0]}-{event.score[1]}"
        )
    if isinstance(event, GameEnded):
        return f"\n{_team(event.winner).capitalize()} wins {event.score[0]}-{event.score[1]}."
    return None  # TrucoSettled: the answer's own line says it
