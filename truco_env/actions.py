"""The fixed action space: one index per card to play, then one per word.

Indices 0-39 play the cards of ``engine.DECK`` in its order; 40 and up are the other words of
the rules (truco ... mazo) in ``engine.actions.WORDS`` order. Señas and ``say`` are not part of
the space: an agent trained here never sends them (a seña it may see is in its observation).
"""

from __future__ import annotations

from engine import DECK, Action
from engine.actions import PLAY, WORDS

CARD_INDEX: dict[str, int] = {card: i for i, card in enumerate(DECK)}
WORD_LIST: tuple[str, ...] = tuple(word for word in WORDS if word != PLAY)
ACTIONS: tuple[Action, ...] = (
    *(Action(PLAY, card) for card in DECK),
    *(Action(word) for word in WORD_LIST),
)
NUM_ACTIONS = len(ACTIONS)
_INDEX: dict[tuple[str, str | None], int] = {a.key: i for i, a in enumerate(ACTIONS)}


def action_index(action: Action) -> int:
    """The index of an action (its ``say`` and ``sena`` are ignored)."""
    return _INDEX[action.key]


def index_action(index: int) -> Action:
    """The action at ``index``; a ValueError names the valid range."""
    if not isinstance(index, int) or not 0 <= index < NUM_ACTIONS:
        raise ValueError(
            f"an action index is an integer from 0 to {NUM_ACTIONS - 1}, got {index!r}"
        )
    return ACTIONS[index]


def describe(index: int) -> str:
    return str(index_action(index))
