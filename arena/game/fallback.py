"""The documented fallback action of a seat whose bot faulted (docs/protocol.md).

Sing a flor it must sing; answer ``no_quiero`` to a pending question (``con_flor_me_achico`` to
a flor bet, which has no ``no_quiero``); otherwise play its weakest card.
"""

from __future__ import annotations

from engine.actions import Action
from engine.cards import STRENGTH


def fallback_action(legal: list[Action]) -> Action:
    words = {a.action: a for a in legal}
    for word in ("flor", "no_quiero", "con_flor_me_achico"):
        if word in words:
            return words[word]
    plays = [a for a in legal if a.card is not None]
    if plays:
        return min(plays, key=lambda a: (STRENGTH[a.card or ""], a.card or ""))
    return legal[0]  # unreachable with the engine's legal sets; kept total on purpose
