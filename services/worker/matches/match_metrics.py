"""What the bot-calling worker counts of the matches it plays (``services.metrics.catalog``).

Every decision the runner records is one bot call: counted by outcome (``ok`` or its fault
kind) with its latency, as the replay stores them, through the runner's own progress hook
(on the match loop: a counter's increment, no I/O with the default registry, one write to a
memory-mapped file in multiprocess mode). A walkover's and a forfeit's causes are counted
when the match ends.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from arena.match.replay import Decision, Replay
from arena.match.runner import Progress
from engine.events import Event
from engine.state import State
from services.metrics.catalog import (
    BOT_CALL_DURATION,
    BOT_CALLS,
    FAULTS,
    MATCHES_PLAYING,
    MATCHES_WAITING,
)


def count_decision(decision: Decision) -> None:
    outcome = decision.fault or "ok"
    BOT_CALLS.labels(outcome).inc()
    BOT_CALL_DURATION.labels("ok" if decision.fault is None else "fault").observe(
        decision.latency_ms / 1000
    )
    if decision.fault is not None:
        FAULTS.labels(decision.fault, "act").inc()


def counting(progress: Progress) -> Progress:
    """``progress`` with every decision counted first."""

    def hook(index: int, state: State, decision: Decision | None, events: Sequence[Event]) -> None:
        if decision is not None:
            count_decision(decision)
        progress(index, state, decision, events)

    return hook


def count_ending(replay: Replay) -> None:
    """The faults that ended the match: each cause of a walkover or a forfeit."""
    result = replay.result
    if result.reason in ("walkover", "forfeit"):
        for cause in result.causes:
            FAULTS.labels(cause.kind, result.reason).inc()


@contextmanager
def waiting() -> Iterator[None]:
    MATCHES_WAITING.inc()
    try:
        yield
    finally:
        MATCHES_WAITING.dec()


@contextmanager
def playing() -> Iterator[None]:
    MATCHES_PLAYING.inc()
    try:
        yield
    finally:
        MATCHES_PLAYING.dec()
