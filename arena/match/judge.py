"""How the arena judges a bot's answer to ``/act``: the one place that decides whether an
answer is played or is a fault. The match runner and ``truco check`` both call :func:`judge`,
so the check fails exactly the answers a match would.

An answer is a fault when the call itself failed (timeout, connection, HTTP status, a body that
is not an ``ActResponse``, too large: already a ``Fault`` in the :class:`Answer`), when it names
no legal action (``illegal_action``), or when the engine refuses it (``illegal_action`` too: a
seña in 1v1, an unknown seña).
"""

from __future__ import annotations

from typing import NamedTuple

from arena.client.connection import Answer
from arena.game.boundary import TrucoGame
from arena.wire.faults import FaultKind
from arena.wire.protocol import legal_answer
from engine.actions import Action
from engine.events import Event
from engine.state import State


class Accepted(NamedTuple):
    """The answer is played: the action, the state after it and the events it caused."""

    action: Action
    state: State
    events: list[Event]


class Rejected(NamedTuple):
    """The answer is a fault of this kind, and why."""

    kind: FaultKind
    detail: str


def judge(
    game: TrucoGame, state: State, seat: int, legal: list[Action], answer: Answer
) -> Accepted | Rejected:
    """Judge ``seat``'s answer in ``state`` of ``game`` (whose legal actions are ``legal``)."""
    if answer.fault is not None:
        return Rejected(answer.fault.kind, answer.fault.detail)
    assert answer.response is not None
    action = legal_answer(answer.response, legal)
    if action is None:
        named = answer.response.action
        if answer.response.card:
            named += f" {answer.response.card}"
        return Rejected("illegal_action", f"{named!r} is not legal now")
    try:
        after, caused = game.apply(state, action, seat)
    except game.error as exc:  # a seña in 1v1, a bad seña word, a say over 280 chars
        return Rejected("illegal_action", str(exc)[:300])
    return Accepted(action, after, caused)
