"""One game of a replay as the in-page viewer plays it (``/matches/{id}/steps``, read by
``static/live.js``): the table after every step, the timeline line of every step and the rows
of the score by hand, worded in the page's language, computed in one pass.

Each step's table is sent as a delta: only the fields and seats that changed since the step
before (the script rebuilds every step once, on load), so a long game stays small.
"""

from __future__ import annotations

from typing import Any

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


def _seat(s: SeatView) -> dict[str, Any]:
    out: dict[str, Any] = {"cards": s.cards, "played": s.played}
    if s.shown:
        out["shown"] = s.shown
    if s.mano:
        out["mano"] = True
    if s.faults:
        out["faults"] = s.faults
    if s.bubble is not None:
        b = s.bubble
        out["bubble"] = {
            k: v
            for k, v in {
                "text": b.text,
                "say": b.say,
                "sena": b.sena,
                "fault": fault_tag(b.fault) if b.fault else None,
                "latency": b.latency,
                "current": b.current,
            }.items()
            if v
        }
    return out


def _info(t: TableView) -> str:
    info = (
        f"{_('hand %(n)d') % {'n': t.hand}} · {pgettext('trick', 'round %(n)d') % {'n': t.round}}"
    )
    return f"{info} · {canto_name(t.truco)}" if t.truco else info


def _table(t: TableView) -> dict[str, Any]:
    return {
        "score": list(t.score),
        "info": _info(t),
        "caption": t.caption,
        "hand": t.hand,
        "rounds": [
            f"{pgettext('trick', 'R%(n)d:') % {'n': i + 1}} {_cut(r, 16)}"
            for i, r in enumerate(t.round_results)
        ],
    }


def frames(
    replay: Replay, sides: tuple[list[BotLink], list[BotLink]], game: int, view: str
) -> dict[str, Any] | None:
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
    deltas: list[dict[str, Any]] = []
    before: dict[str, Any] = {}
    seats_before: list[dict[str, Any]] = []
    cards: set[str] = set()
    for table in fold_each(steps, view, names, team_names, players):
        now = _table(table)
        delta = {k: v for k, v in now.items() if before.get(k) != v}
        seats_now = [_seat(s) for s in table.seats]
        changed = {
            str(i): s
            for i, s in enumerate(seats_now)
            if i >= len(seats_before) or seats_before[i] != s
        }
        if changed:
            delta["seats"] = changed
        for seat in table.seats:
            cards.update(c for c in (*seat.cards, *seat.played, *seat.shown) if c)
        deltas.append(delta)
        before, seats_before = now, seats_now
    timeline = []
    for s in steps:
        ev = visible_event(s.event, view)
        fault = s.decision.fault if s.decision is not None else None
        item: dict[str, Any] = {
            "hand": s.hand,
            "kind": _kind(ev),
            "text": _describe(ev, seat_names, team_names),
        }
        if isinstance(ev, ActionTaken) and ev.say:
            item["say"] = ev.say
        if points := points_gained(ev, team_names):
            item["points"] = _cut(points, 30)
        fault = fault or (ev.fault if isinstance(ev, StartFault) else None)
        if fault:
            item["fault"] = fault_tag(fault)
        timeline.append(item)
    ends = [s.index for s in steps if isinstance(s.event, HandEnded)]
    hands = [
        {
            "hand": h.hand,
            "winner": _cut(h.winner, 20),
            "summary": h.summary,
            "points": h.points,
            "score": list(h.score),
            "step": h.step,
            "end": ends[i] if i < len(ends) else len(steps) - 1,
        }
        for i, h in enumerate(hand_rows(steps, names, team_names, None))
    ]
    return {
        "game": game,
        "view": view,
        "steps": deltas,
        "timeline": timeline,
        "hands": hands,
        "hand_starts": [s.index for s in steps if isinstance(s.event, HandStarted)],
        "cards": {c: card_name(c) for c in sorted(cards)},
    }
