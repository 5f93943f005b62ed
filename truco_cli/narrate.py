"""Readable one-line narration of engine events, for the demo and local play logs."""

from __future__ import annotations

from collections.abc import Sequence

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
from engine.spoken import said


def _team(team: int | None) -> str:
    return "nobody" if team is None else f"team {team}"


def narrate(event: Event, names: Sequence[str]) -> str | None:
    """One line for an event, or None for events that need no line of their own."""
    if isinstance(event, HandStarted):
        hands = "   ".join(f"{names[s]}: {' '.join(c)}" for s, c in enumerate(event.deal))
        return (
            f"\n── Hand {event.hand + 1} · mano {names[event.mano]} · "
            f"score {event.score[0]}-{event.score[1]}\n   {hands}"
        )
    if isinstance(event, ActionTaken):
        who = names[event.seat]
        text = f"plays {event.card}" if event.action == "play" else said(event.action)
        extra = f"  “{event.say}”" if event.say else ""
        sena = f"  [seña: {event.sena}]" if event.sena else ""
        return f"   {who:>10}  {text}{extra}{sena}"
    if isinstance(event, RoundEnded):
        won = "parda" if event.winner is None else f"won by {names[event.next_leader]}"
        return f"   {'':>10}  · round {event.round + 1} {won}"
    if isinstance(event, EnvidoSettled):
        stated = ", ".join(
            f"{names[d.seat]} {d.points if d.points is not None else 'son buenas'}"
            for d in event.declarations
        )
        result = f"querido ({stated})" if event.querido else "no querido"
        return f"   {'':>10}  · envido {result}: {event.points} to {_team(event.winner)}"
    if isinstance(event, EnvidoCancelled):
        return f"   {'':>10}  · the envido is cancelled by a flor"
    if isinstance(event, FlorSettled):
        return f"   {'':>10}  · flor ({event.outcome}): {event.points} to {_team(event.winner)}"
    if isinstance(event, TrucoSettled):
        return None
    if isinstance(event, HandEnded):
        if event.winner is None:
            return f"   {'':>10}  · the game ends in the middle of the hand"
        return (
            f"   {'':>10}  · hand to {_team(event.winner)} ({event.reason}): +{event.points}"
            f" → {event.score[0]}-{event.score[1]}"
        )
    if isinstance(event, GameEnded):
        return f"\n{_team(event.winner).capitalize()} wins {event.score[0]}-{event.score[1]}."
    return None
