"""A game's replay as steps: each engine event with its index, its hand and the bot decision
(latency, fault) that produced it; the replay viewer, its frames and the live words walk them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.match.replay import Decision, ReplayEvent, StartFault
from engine.events import ActionTaken, Event, HandStarted


@dataclass(frozen=True, slots=True)
class Step:
    """One engine event of a game, with the bot decision (latency, fault) that produced it."""

    index: int
    hand: int
    event: Event | StartFault
    decision: Decision | None


def game_steps(events: Sequence[ReplayEvent]) -> list[Step]:
    steps: list[Step] = []
    pending: dict[int, Decision] = {}
    hand = 0
    for ev in events:
        if isinstance(ev, Decision):
            pending[ev.seat] = ev
            continue
        if isinstance(ev, HandStarted):
            hand = ev.hand
        decision = pending.pop(ev.seat, None) if isinstance(ev, ActionTaken) else None
        steps.append(Step(len(steps), hand, ev, decision))
    return steps
