"""Actions: the exact words of R-10, as data.

An :class:`Action` is what a seat does: a word, the card for ``play``, and optionally ``say``
(free text, never interpreted) and ``sena`` (2v2 only, R-9). The engine lists legal actions as
``Action`` values without ``say``/``sena``; a chosen action may add them.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.cards import DECK, Card, parse_card
from engine.errors import CardError, InvalidAction
from engine.events import TrucoLevel

PLAY = "play"
TRUCO_WORDS: tuple[TrucoLevel, ...] = ("truco", "retruco", "vale_cuatro")
ENVIDO_WORDS = ("envido", "real_envido", "falta_envido")
FLOR_WORDS = ("flor", "contraflor", "contraflor_al_resto", "con_flor_quiero", "con_flor_me_achico")
ANSWER_WORDS = ("quiero", "no_quiero")
MAZO = "mazo"
WORDS: tuple[str, ...] = (PLAY, *TRUCO_WORDS, *ENVIDO_WORDS, *FLOR_WORDS, *ANSWER_WORDS, MAZO)
WORD_SET = frozenset(WORDS)

SENAS = (
    "ancho_espada",
    "ancho_basto",
    "siete",
    "tres",
    "dos",
    "ancho_falso",
    "buen_envido",
    "nada",
)
SENA_SET = frozenset(SENAS)
MAX_SAY = 280


class Action(msgspec.Struct, frozen=True, omit_defaults=True, forbid_unknown_fields=True):
    """One decision. ``card`` only with ``play``; ``say`` ≤ 280 characters; ``sena`` in 2v2."""

    action: str
    card: str | None = None
    say: str | None = None
    sena: str | None = None

    @property
    def key(self) -> tuple[str, str | None]:
        """What legality depends on: the word and the card."""
        return (self.action, self.card)

    def __str__(self) -> str:
        return f"{self.action} {self.card}" if self.card else self.action


def validate_action(action: Action) -> Action:
    """Check an action's form (not its legality); return it unchanged or raise."""
    if not isinstance(action, Action):
        raise InvalidAction(f"an action must be an Action, not {type(action).__name__}")
    word = action.action
    if word not in WORD_SET:
        raise InvalidAction(f"unknown action word {word!r}; the words are: {', '.join(WORDS)}")
    card = action.card
    if word == PLAY:
        if card is None:
            raise InvalidAction("'play' needs a card, e.g. {'action': 'play', 'card': '7O'}")
        try:
            parse_card(card)
        except CardError as exc:
            raise InvalidAction(str(exc)) from None
    elif card is not None:
        raise InvalidAction(f"{word!r} takes no card")
    if action.say is not None:
        if not isinstance(action.say, str):
            raise InvalidAction("'say' must be a string")
        if len(action.say) > MAX_SAY:
            raise InvalidAction(f"'say' is at most {MAX_SAY} characters, got {len(action.say)}")
    if action.sena is not None and action.sena not in SENA_SET:
        raise InvalidAction(f"unknown seña {action.sena!r}; the señas are: {', '.join(SENAS)}")
    return action


def action_from_dict(data: Any) -> Action:
    """Decode a JSON-like action object, raising :class:`InvalidAction` with a clear message."""
    try:
        action = msgspec.convert(data, Action)
    except msgspec.ValidationError as exc:
        raise InvalidAction(f"invalid action: {exc}") from None
    return validate_action(action)


# Prebuilt legal-action values: legal_actions() hands out these shared immutable objects.
PLAY_ACTIONS: dict[Card, Action] = {card: Action(PLAY, card) for card in DECK}
WORD_ACTIONS: dict[str, Action] = {word: Action(word) for word in WORDS if word != PLAY}
