"""The score by hand of a game's replay: one row per finished hand (who won it, with how many
tantos, the score after it, a line on its envido or flor and truco), and the summary so far of
a hand still open (what a live page continues from)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import msgspec

from arena.game.narrate import hand_note
from engine.events import EnvidoSettled, FlorSettled, HandEnded, HandStarted, TrucoSettled
from engine.spoken import named
from services.web.i18n import gettext as _
from services.web.i18n import ngettext
from services.web.views.common import BotLink
from services.web.views.steps import Step


@dataclass(frozen=True, slots=True)
class HandRow:
    hand: int
    mano: str
    notes: list[str]
    winner: str
    points: int
    score: tuple[int, int]
    step: int
    summary: str = ""  # "envido: Norte, 2 tantos · truco: Sur, 3 tantos (retruco)"


def hand_rows(
    steps: Sequence[Step], names: list[BotLink], team_names: tuple[str, str], upto: int | None
) -> list[HandRow]:
    """One row per finished hand (up to step ``upto``): who won it and with how many tantos,
    the score after it, and a summary line of its envido (or flor) and truco."""
    rows: list[HandRow] = []
    notes: list[str] = []
    said: list[str] = []
    mano = ""
    start, before = 0, (0, 0)
    truco = ""
    for s in steps:
        if upto is not None and s.index > upto:
            break
        ev = s.event
        if isinstance(ev, HandStarted):
            notes, said, mano, start, before = [], [], names[ev.mano].name, s.index, ev.score
            truco = _("not called")
        elif isinstance(ev, EnvidoSettled | FlorSettled):
            notes.append(hand_note(ev, team_names) or "")
            kind = "envido" if isinstance(ev, EnvidoSettled) else "flor"
            said.append(f"{kind}: {team_names[ev.winner]}, {tantos(ev.points)}")
        elif isinstance(ev, TrucoSettled):
            notes.append(hand_note(ev, team_names) or "")
            level = _(named(ev.level))
            truco = level if ev.querido else _("%(level)s not wanted") % {"level": level}
        elif (note := hand_note(ev, team_names)) is not None:
            notes.append(note)
        elif isinstance(ev, HandEnded):
            won, points = ev.winner, ev.points
            if won is None:  # the game ended inside the hand (an envido or flor reached the end)
                gained = (ev.score[0] - before[0], ev.score[1] - before[1])
                won = 0 if gained[0] > gained[1] else 1 if gained[1] > gained[0] else None
                points = max(gained) if won is not None else 0
                line = " · ".join([*said, _("the game ended in the hand")])
            else:
                line = " · ".join([*said, f"truco: {team_names[won]}, {tantos(points)} ({truco})"])
            winner = team_names[won] if won is not None else "—"
            rows.append(HandRow(ev.hand + 1, mano, notes, winner, points, ev.score, start, line))
    return rows


class OpenHand(msgspec.Struct, frozen=True):
    """The score-by-hand line of a hand not over yet: its envido or flor lines, its truco, and
    the score it started from."""

    said: list[str]
    truco: str
    before: list[int]


def open_hand(steps: Sequence[Step], team_names: tuple[str, str]) -> OpenHand:
    """The score-by-hand summary so far of the last hand when it is not over (what a live
    page's script continues from: :mod:`services.web.views.live_words`): its envido or flor
    lines, its truco, and the score it started from."""
    said: list[str] = []
    truco = _("not called")
    before: tuple[int, int] = (0, 0)
    for s in steps:
        ev = s.event
        if isinstance(ev, HandStarted):
            said, truco, before = [], _("not called"), ev.score
        elif isinstance(ev, EnvidoSettled | FlorSettled):
            kind = "envido" if isinstance(ev, EnvidoSettled) else "flor"
            said.append(f"{kind}: {team_names[ev.winner]}, {tantos(ev.points)}")
        elif isinstance(ev, TrucoSettled):
            level = _(named(ev.level))
            truco = level if ev.querido else _("%(level)s not wanted") % {"level": level}
    return OpenHand(said=said, truco=truco, before=list(before))


def tantos(points: int) -> str:
    return ngettext("%(num)d tanto", "%(num)d tantos", points) % {"num": points}
