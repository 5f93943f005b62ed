"""One game of a replay as the in-page viewer plays it (``/matches/{id}/steps``, read by
``static/live.js``): the table after every step, the timeline line of every step and the rows
of the score by hand, worded in the page's language, computed in one pass.

Each step's table is sent as a delta: only the fields and seats that changed since the step
before (the script rebuilds every step once, on load), so a long game stays small.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from arena.game.narrate import points_gained
from arena.match.replay import Replay, StartFault
from engine.events import ActionTaken, HandEnded, HandStarted
from services.web.i18n import gettext as _
from services.web.i18n import pgettext
from services.web.views.causes import fault_tag
from services.web.views.common import BotLink, canto_name, card_name
from services.web.views.hands import hand_rows
from services.web.views.replay import (
    SeatView,
    TableView,
    _describe,
    _kind,
    _seat_names,
    fold_each,
    visible_event,
)
from services.web.views.steps import game_steps


def _cut(text: str, length: int) -> str:
    """Jinja's ``truncate(length, true, "…")`` (its default leeway of 5 included), as the
    server-rendered steps cut the same text."""
    return text if len(text) <= length + 5 else text[: length - 1] + "…"


class BubbleFrame(msgspec.Struct, frozen=True, omit_defaults=True):
    """A seat's speech bubble: what it said or did, its seña, its fault, its latency; an empty
    field is left out."""

    text: str = ""
    say: str = ""
    sena: str = ""
    fault: str = ""
    latency: str = ""
    current: bool = False


class SeatFrame(msgspec.Struct, frozen=True, omit_defaults=True):
    """A seat at one step: its cards (None where this view may not see one), the cards it
    played and showed, whether it is mano, its faults and its bubble."""

    cards: list[str | None]
    played: list[str]
    shown: list[str] = []
    mano: bool = False
    faults: int = 0
    bubble: BubbleFrame | None = None


class TableFrame(msgspec.Struct, frozen=True):
    """The table at one step, but its seats."""

    score: list[int]
    info: str
    caption: str
    hand: int
    rounds: list[str]


class StepFrame(msgspec.Struct, frozen=True):
    """One step as a delta: the table's fields and the seats (by index) that changed since the
    step before; every field of the first step."""

    score: list[int] | UnsetType = UNSET
    info: str | UnsetType = UNSET
    caption: str | UnsetType = UNSET
    hand: int | UnsetType = UNSET
    rounds: list[str] | UnsetType = UNSET
    seats: dict[str, SeatFrame] | UnsetType = UNSET


class TimelineFrame(msgspec.Struct, frozen=True, omit_defaults=True):
    """A step's line of the timeline."""

    hand: int
    kind: str
    text: str
    say: str = ""
    points: str = ""
    fault: str = ""


class HandFrame(msgspec.Struct, frozen=True):
    """A row of the score by hand, with the steps where its hand starts and ends."""

    hand: int
    winner: str
    summary: str
    points: int
    score: list[int]
    step: int
    end: int


class GameFrames(msgspec.Struct, frozen=True):
    """One game as ``live.js`` plays it; ``words`` are the page's (``/matches/{id}/steps``)."""

    game: int
    view: str
    steps: list[StepFrame]
    timeline: list[TimelineFrame]
    hands: list[HandFrame]
    hand_starts: list[int]
    cards: dict[str, str]
    words: dict[str, str] | UnsetType = UNSET


def _seat(s: SeatView) -> SeatFrame:
    bubble = None
    if s.bubble is not None:
        b = s.bubble
        bubble = BubbleFrame(
            text=b.text,
            say=b.say or "",
            sena=b.sena or "",
            fault=fault_tag(b.fault) if b.fault else "",
            latency=b.latency or "",
            current=b.current,
        )
    return SeatFrame(s.cards, s.played, s.shown, s.mano, s.faults, bubble)


def _info(t: TableView) -> str:
    info = (
        f"{_('hand %(n)d') % {'n': t.hand}} · {pgettext('trick', 'round %(n)d') % {'n': t.round}}"
    )
    return f"{info} · {canto_name(t.truco)}" if t.truco else info


def _table(t: TableView) -> TableFrame:
    return TableFrame(
        score=list(t.score),
        info=_info(t),
        caption=t.caption,
        hand=t.hand,
        rounds=[
            f"{pgettext('trick', 'R%(n)d:') % {'n': i + 1}} {_cut(r, 16)}"
            for i, r in enumerate(t.round_results)
        ],
    )


def _delta(now: TableFrame, before: TableFrame | None, seats: dict[str, SeatFrame]) -> StepFrame:
    """The fields of ``now`` that differ from ``before`` (all of them for the first step), and
    the seats that changed."""
    b = before
    return StepFrame(
        score=now.score if b is None or b.score != now.score else UNSET,
        info=now.info if b is None or b.info != now.info else UNSET,
        caption=now.caption if b is None or b.caption != now.caption else UNSET,
        hand=now.hand if b is None or b.hand != now.hand else UNSET,
        rounds=now.rounds if b is None or b.rounds != now.rounds else UNSET,
        seats=seats or UNSET,
    )


def frames(
    replay: Replay, sides: tuple[list[BotLink], list[BotLink]], game: int, view: str
) -> GameFrames | None:
    """Game ``game`` (1-based) of ``replay`` as ``view`` sees it, every step (see the module
    docstring); None when the game has no step. ``view`` is "all" or "seatN"."""
    if not replay.games or not 1 <= game <= len(replay.games):
        return None
    record = replay.games[game - 1]
    steps = game_steps(record.events)
    if not steps:
        return None
    players = replay.rules.players
    if view != "all" and view not in {f"seat{s}" for s in range(players)}:
        view = "all"
    names = _seat_names(replay, game - 1, sides)
    seat_names = [n.name for n in names]
    team_names = (
        " & ".join(b.name for b in sides[record.teams[0]]) or replay.entrants[record.teams[0]].name,
        " & ".join(b.name for b in sides[record.teams[1]]) or replay.entrants[record.teams[1]].name,
    )
    deltas: list[StepFrame] = []
    before: TableFrame | None = None
    seats_before: list[SeatFrame] = []
    cards: set[str] = set()
    for table in fold_each(steps, view, names, team_names, players):
        now = _table(table)
        seats_now = [_seat(s) for s in table.seats]
        changed = {
            str(i): s
            for i, s in enumerate(seats_now)
            if i >= len(seats_before) or seats_before[i] != s
        }
        delta = _delta(now, before, changed)
        for seat in table.seats:
            cards.update(c for c in (*seat.cards, *seat.played, *seat.shown) if c)
        deltas.append(delta)
        before, seats_before = now, seats_now
    timeline = []
    for s in steps:
        ev = visible_event(s.event, view)
        fault = s.decision.fault if s.decision is not None else None
        fault = fault or (ev.fault if isinstance(ev, StartFault) else None)
        points = points_gained(ev, team_names)
        timeline.append(
            TimelineFrame(
                hand=s.hand,
                kind=_kind(ev),
                text=_describe(ev, seat_names, team_names),
                say=(ev.say or "") if isinstance(ev, ActionTaken) else "",
                points=_cut(points, 30) if points else "",
                fault=fault_tag(fault) if fault else "",
            )
        )
    ends = [s.index for s in steps if isinstance(s.event, HandEnded)]
    hands = [
        HandFrame(
            hand=h.hand,
            winner=_cut(h.winner, 20),
            summary=h.summary,
            points=h.points,
            score=list(h.score),
            step=h.step,
            end=ends[i] if i < len(ends) else len(steps) - 1,
        )
        for i, h in enumerate(hand_rows(steps, names, team_names, None))
    ]
    return GameFrames(
        game=game,
        view=view,
        steps=deltas,
        timeline=timeline,
        hands=hands,
        hand_starts=[s.index for s in steps if isinstance(s.event, HandStarted)],
        cards={c: card_name(c) for c in sorted(cards)},
    )
