"""What a hand came to, said at its end on every table: who won each round, the envido or flor
with what each seat declared, the truco, the hand and why, the cards shown to prove the points
(R-11), and the points each team made and the score. ``/play`` keeps it on screen until the
person goes on; a replay shows it at the hand's last step; a live page for a few seconds.
``static/table.js`` builds the same summary from the same events (its sentences are
:data:`TEMPLATES`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.events import (
    EnvidoCancelled,
    EnvidoSettled,
    Event,
    FlorSettled,
    HandEnded,
    HandStarted,
    RoundEnded,
    TrucoSettled,
)
from engine.observe import HandShown
from services.web.i18n import N_
from services.web.i18n import gettext as _
from services.web.views.narration import Narrator

TEMPLATES = {
    "title": N_("Hand %(n)d is over"),
    "points": N_("This hand: %(team0)s +%(p0)d, %(team1)s +%(p1)d"),
    "score": N_("Score: %(team0)s %(s0)d, %(team1)s %(s1)d"),
}

SAID_IN_SUMMARY = (RoundEnded, EnvidoSettled, EnvidoCancelled, FlorSettled, TrucoSettled, HandEnded)


@dataclass(frozen=True, slots=True)
class HandSummary:
    hand: int  # 1-based
    title: str
    lines: list[str]
    shown: list[tuple[str, list[str]]]  # who showed, and the cards
    points: str
    score: str


def hand_summary(
    events: Sequence[Event | HandShown], narrator: Narrator, labels: tuple[str, str]
) -> HandSummary | None:
    """The summary of the hand whose events (as the viewer sees them, from its
    ``hand_started``) are ``events``; None until its ``hand_ended``."""
    ends = [e for e in events if isinstance(e, HandEnded)]
    if not ends:
        return None
    end = ends[-1]
    starts = [e for e in events if isinstance(e, HandStarted | HandShown)]
    before = starts[0].score if starts else (0, 0)
    gained = (end.score[0] - before[0], end.score[1] - before[1])
    return HandSummary(
        hand=end.hand + 1,
        title=_(TEMPLATES["title"]) % {"n": end.hand + 1},
        lines=[narrator.line(e) for e in events if isinstance(e, SAID_IN_SUMMARY)],
        shown=[(narrator.who(s.seat), list(s.cards)) for s in end.shown],
        points=_(TEMPLATES["points"])
        % {"team0": labels[0], "p0": gained[0], "team1": labels[1], "p1": gained[1]},
        score=_(TEMPLATES["score"])
        % {"team0": labels[0], "s0": end.score[0], "team1": labels[1], "s1": end.score[1]},
    )
