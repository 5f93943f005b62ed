"""A game as the table's script replays it (``/matches/{id}/steps``, ``/play/{id}/steps``):
its events as one view may see them, in the replay document's vocabulary, and the table they
are played at (who sits where, the teams, the person's seat). ``static/table.js`` folds them
into the table at each step, as :func:`services.web.views.replay.replay_view` does on the
server, and narrates them with the same words.

What a view may see is decided here, by ``engine.observe`` (R-9, R-11), never by the script: a
deal keeps only the cards of the seats the view may see (``null`` for the others), a seña only
where it reached the viewer.
"""

from __future__ import annotations

import msgspec

from arena.match.replay import Decision, StartFault
from engine.cards import Card
from engine.events import Event, HandStarted
from services.web.i18n import gettext as _
from services.web.views.causes import fault_words
from services.web.views.common import BotLink
from services.web.views.narration import Narrator
from services.web.views.replay import (
    Shown,
    View,
    can_see_hand,
    narrated_names,
    positions,
    visible_event,
)


class Seat(msgspec.Struct, frozen=True):
    name: str
    id: int | None


class TableContext(msgspec.Struct, frozen=True):
    """The table the events are played at, as the script reads it."""

    players: int
    seats: list[Seat]
    teams: list[str]
    team_words: list[str]
    you: int | None
    target: int
    positions: list[str]
    view: str


class DecisionStep(msgspec.Struct, frozen=True, tag="decision", omit_defaults=True):
    """A call to a bot: who, how long, and its fault if any (its answer is not shown)."""

    seat: int
    latency_ms: float
    fault: str | None = None


class StartFaultStep(msgspec.Struct, frozen=True, tag="start_fault"):
    seat: int
    fault: str
    text: str


class DealSeen(msgspec.Struct, frozen=True, tag="hand_started"):
    """``HandStarted`` with the cards of the seats the view may not see as ``null``."""

    hand: int
    mano: int
    deal: list[list[Card | None]]
    score: tuple[int, int]


Step = DecisionStep | StartFaultStep | DealSeen | Event | StartFault


class TableSteps(msgspec.Struct, frozen=True):
    """One game as one view sees it: what ``/matches/{id}/steps`` and ``/play/{id}/replay/steps``
    answer."""

    game: int
    view: str
    table: TableContext
    events: list[Step]


def table_context(
    names: list[BotLink],
    labels: tuple[str, str],
    narrator: Narrator,
    target: int,
    view: str,
) -> TableContext:
    """The table the events are played at, as the script reads it."""
    players = len(names)
    return TableContext(
        players=players,
        seats=[Seat(n.name, n.id) for n in names],
        teams=list(labels),
        team_words=list(narrator.teams),
        you=narrator.you,
        target=target,
        positions=list(positions(players, narrator.you)),
        view=view,
    )


def context_for(
    replay: Shown, sides: tuple[list[BotLink], list[BotLink]], game: int, view: str
) -> TableContext:
    """The table of game ``game`` (1-based, which must exist) for the script."""
    names, labels, narrator = narrated_names(replay, game - 1, sides)
    return table_context(names, labels, narrator, replay.rules.points_to_win, view)


def view_of(view: str, players: int) -> View:
    """``view`` when it is one (``all``, ``seatN``), else ``all``."""
    return view if view == "all" or view in {f"seat{s}" for s in range(players)} else "all"


def table_events(
    replay: Shown, sides: tuple[list[BotLink], list[BotLink]], game: int, view: str
) -> TableSteps | None:
    """Game ``game`` (1-based) of ``replay`` as ``view`` sees it (see the module docstring);
    None when there is no such game."""
    if not replay.games or not 1 <= game <= len(replay.games):
        return None
    players = replay.rules.players
    view = view_of(view, players)
    names, labels, narrator = narrated_names(replay, game - 1, sides)
    events: list[Step] = []
    for raw in replay.games[game - 1].events:
        if isinstance(raw, Decision):
            events.append(DecisionStep(raw.seat, raw.latency_ms, raw.fault))
            continue
        if isinstance(raw, StartFault):
            text = _("%(who)s could not start: %(fault)s") % {
                "who": narrator.who(raw.seat),
                "fault": fault_words(raw.fault, raw.status),
            }
            events.append(StartFaultStep(raw.seat, raw.fault, text))
            continue
        seen = visible_event(raw, view)
        if isinstance(seen, HandStarted):
            deal: list[list[Card | None]] = [
                list[Card | None](cards) if can_see_hand(view, s) else [None] * len(cards)
                for s, cards in enumerate(seen.deal)
            ]
            events.append(DealSeen(seen.hand, seen.mano, deal, seen.score))
            continue
        events.append(seen)
    if all(isinstance(e, DecisionStep) for e in events):
        return None
    return TableSteps(
        game=game,
        view=view,
        table=table_context(names, labels, narrator, replay.rules.points_to_win, view),
        events=events,
    )
