"""The match page's replay viewer: the table, the timeline and the hands at one step of a
game, as one view (omniscient, a seat, a spectator) may see it."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

from arena.game.narrate import describe, points_gained
from arena.match.replay import EntrantRecord, ReplayEvent, StartFault
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
from engine.observe import SPECTATOR, Seat, visible_action
from engine.rules import Rules
from engine.spoken import named, said
from services.web.i18n import gettext as _
from services.web.views.causes import fault_words
from services.web.views.common import BotLink, card_name, sena_name, short
from services.web.views.hands import HandRow, hand_rows
from services.web.views.steps import Step, game_steps

ANSWERS = {"quiero", "no_quiero", "con_flor_quiero", "con_flor_me_achico"}


View = str  # "all", "spectator" or "seatN"


def visible_event(event: Event | StartFault, view: View) -> Event | StartFault:
    """The event as the view may see it: señas filtered by ``engine.observe`` (R-9, R-11)."""
    if not isinstance(event, ActionTaken) or view == "all":
        return event
    return visible_action(event, SPECTATOR if view == "spectator" else Seat(int(view[4:])))


def can_see_hand(view: View, seat: int) -> bool:
    return view == "all" or view == f"seat{seat}"


@dataclass(slots=True)
class Bubble:
    text: str
    say: str | None
    sena: str | None
    fault: str | None
    latency: str | None
    current: bool = False


@dataclass(slots=True)
class SeatView:
    seat: int
    team: int
    name: BotLink
    position: str  # bottom | top | left | right
    cards: list[str | None]  # unplayed: a card, or None when hidden from this view
    played: list[str]
    shown: list[str]
    mano: bool
    bubble: Bubble | None = None
    faults: int = 0


@dataclass(slots=True)
class TableView:
    hand: int
    mano: int
    score: tuple[int, int]
    round: int
    seats: list[SeatView]
    trick: list[tuple[int, str]]
    round_results: list[str]
    truco: str | None
    caption: str
    game_over: bool


@dataclass(frozen=True, slots=True)
class TimelineItem:
    step: int
    kind: str  # hand | play | canto | answer | settle | round | fault | end
    text: str
    say: str | None
    points: str | None
    future: bool
    current: bool
    fault: str | None


@dataclass(slots=True)
class ReplayView:
    whole: bool  # the timeline and the score by hand show the whole game, not up to the step
    game: int
    games: list[int]
    step: int
    last: int
    view: View
    views: list[tuple[View, str]]
    team_names: tuple[str, str]
    team_links: tuple[list[BotLink], list[BotLink]]
    table: TableView
    timeline: list[TimelineItem]
    hands: list[HandRow]
    hand_starts: list[int]
    prev_hand: int | None
    next_hand: int | None


def _seat_names(
    replay: Shown, game_index: int, sides: tuple[list[BotLink], list[BotLink]]
) -> list[BotLink]:
    game = replay.games[game_index]
    players = replay.rules.players
    names = []
    for seat in range(players):
        if len(game.seats) == players == len(replay.entrants):  # individual 2v2: a bot a seat
            slot = game.seats[seat]
            links = sides[slot % 2]
            named = (
                links[slot // 2] if slot // 2 < len(links) else BotLink(replay.entrants[slot].name)
            )
            names.append(named)
            continue
        entrant = game.teams[seat % 2]
        links = sides[entrant]
        if links:
            link = links[0] if len(links) == 1 else links[(seat // 2) % len(links)]
        else:
            link = BotLink(replay.entrants[entrant].name)
        names.append(link)
    return names


def _kind(event: Event | StartFault) -> str:
    if isinstance(event, HandStarted):
        return "hand"
    if isinstance(event, ActionTaken):
        if event.action == "play":
            return "play"
        return "answer" if event.action in ANSWERS else "canto"
    if isinstance(event, RoundEnded):
        return "round"
    if isinstance(event, EnvidoSettled | FlorSettled | TrucoSettled | EnvidoCancelled):
        return "settle"
    if isinstance(event, HandEnded | GameEnded):
        return "end"
    return "fault"


class ShownGame(Protocol):
    """What the viewer reads of a game: a stored replay's ``GameRecord`` or a live game."""

    @property
    def number(self) -> int: ...
    @property
    def teams(self) -> tuple[int, int]: ...
    @property
    def events(self) -> Sequence[ReplayEvent]: ...
    @property
    def seats(self) -> tuple[int, ...]: ...


class Shown(Protocol):
    """What the viewer reads of a match: a stored ``Replay`` or a live match so far
    (``services.web.pages.live_replay``), never a replay made up for a live one."""

    @property
    def rules(self) -> Rules: ...
    @property
    def entrants(self) -> Sequence[EntrantRecord]: ...
    @property
    def games(self) -> Sequence[ShownGame]: ...


POSITIONS = {2: ("bottom", "top"), 4: ("bottom", "right", "top", "left")}


def replay_view(
    replay: Shown,
    sides: tuple[list[BotLink], list[BotLink]],
    game: int,
    step: int | None,
    view: View,
    live: bool,
    whole: bool = False,
) -> ReplayView | None:
    """The viewer at ``step`` of game ``game`` (1-based) as ``view`` sees it.

    The timeline and the score by hand stop at ``step`` (nothing of what comes later shows,
    so the result is not spoiled) unless ``whole`` asks for the whole game, which only the
    omniscient view of a finished match may. A live match is always shown as a spectator
    sees it (R-11); ``view`` is then ignored.
    """
    if not replay.games:
        return None
    game = min(max(game, 1), len(replay.games))
    record = replay.games[game - 1]
    steps = game_steps(record.events)
    if not steps:
        return None
    players = replay.rules.players
    if live:
        view = "spectator"
    elif view != "all" and view not in {f"seat{s}" for s in range(players)}:
        view = "all"
    last = len(steps) - 1
    step = last if step is None else min(max(step, 0), last)
    names = _seat_names(replay, game - 1, sides)
    seat_names = [n.name for n in names]
    team_links: tuple[list[BotLink], list[BotLink]] = (
        sides[record.teams[0]] or [BotLink(replay.entrants[record.teams[0]].name)],
        sides[record.teams[1]] or [BotLink(replay.entrants[record.teams[1]].name)],
    )
    team_names = (
        " & ".join(b.name for b in team_links[0]),
        " & ".join(b.name for b in team_links[1]),
    )
    table = _fold(steps[: step + 1], view, names, team_names, players)
    hand_now = steps[step].hand
    whole = whole and view == "all"
    restricted = not whole
    timeline = []
    for s in steps:
        if s.hand != hand_now or (restricted and s.index > step):
            continue
        ev = visible_event(s.event, view)
        say = ev.say if isinstance(ev, ActionTaken) else None
        fault = s.decision.fault if s.decision is not None else None
        timeline.append(
            TimelineItem(
                step=s.index,
                kind=_kind(ev),
                text=_describe(ev, seat_names, team_names),
                say=say,
                points=points_gained(ev, team_names),
                future=s.index > step,
                current=s.index == step,
                fault=fault if fault else (ev.fault if isinstance(ev, StartFault) else None),
            )
        )
    hands = hand_rows(steps, names, team_names, None if whole else step)
    starts = [s.index for s in steps if isinstance(s.event, HandStarted)]
    prev_hand = max((i for i in starts if i < step), default=None)
    next_hand = min((i for i in starts if i > step), default=None)
    if live:
        views = [("spectator", _("Spectator (live)"))]
    else:
        views = [("all", _("Omniscient"))] + [
            (f"seat{s}", _("Seat %(n)d: %(name)s") % {"n": s, "name": short(names[s].name, 18)})
            for s in range(players)
        ]
    return ReplayView(
        whole=whole,
        game=game,
        games=[g.number for g in replay.games],
        step=step,
        last=last,
        view=view,
        views=views,
        team_names=team_names,
        team_links=team_links,
        table=table,
        timeline=timeline,
        hands=hands,
        hand_starts=starts,
        prev_hand=prev_hand,
        next_hand=next_hand,
    )


def _fold(
    steps: Sequence[Step],
    view: View,
    names: list[BotLink],
    team_names: tuple[str, str],
    players: int,
) -> TableView:
    """The table after the last of ``steps`` (the table before any step when there is none)."""
    table = None
    for each in fold_each(steps, view, names, team_names, players):
        table = each
    if table is None:
        positions = POSITIONS.get(players, tuple("bottom" for _ in range(players)))
        seats = [
            SeatView(s, s % 2, names[s], positions[s], [], [], [], False) for s in range(players)
        ]
        return TableView(0, 0, (0, 0), 1, seats, [], [], None, "", False)
    return table


def fold_each(
    steps: Sequence[Step],
    view: View,
    names: list[BotLink],
    team_names: tuple[str, str],
    players: int,
) -> Iterator[TableView]:
    """The table after each of ``steps`` in turn, in one pass (the in-page viewer's frames:
    :mod:`services.web.views.frames`); each yielded table is a copy of its own."""
    positions = POSITIONS.get(players, tuple("bottom" for _ in range(players)))
    seats = [SeatView(s, s % 2, names[s], positions[s], [], [], [], False) for s in range(players)]
    score: tuple[int, int] = (0, 0)
    hand, mano, rnd = 0, 0, 1
    trick: list[tuple[int, str]] = []
    results: list[str] = []
    truco: str | None = None
    game_over = False
    seat_names = [n.name for n in names]
    for step in steps:
        ev = visible_event(step.event, view)
        if isinstance(ev, HandStarted):
            hand, mano, score, rnd, truco = ev.hand + 1, ev.mano, ev.score, 1, None
            trick, results = [], []
            for s in seats:
                dealt = ev.deal[s.seat]
                s.cards = list(dealt) if can_see_hand(view, s.seat) else [None] * len(dealt)
                s.played, s.shown, s.bubble, s.mano = [], [], None, s.seat == ev.mano
        elif isinstance(ev, ActionTaken):
            s = seats[ev.seat]
            if ev.action == "play" and ev.card:
                s.cards = list(s.cards)
                if ev.card in s.cards:
                    s.cards.remove(ev.card)
                elif None in s.cards:
                    s.cards.remove(None)
                s.played = [*s.played, ev.card]
                trick = [*trick, (ev.seat, ev.card)]
            d = step.decision
            s.bubble = Bubble(
                text=card_name(ev.card) if ev.action == "play" and ev.card else _(said(ev.action)),
                say=ev.say,
                sena=sena_name(ev.sena) if ev.sena else None,
                fault=d.fault if d is not None else None,
                latency=f"{d.latency_ms:.0f} ms" if d is not None else None,
            )
            if d is not None and d.fault:
                s.faults += 1
        elif isinstance(ev, RoundEnded):
            results = [*results, "parda" if ev.winner is None else team_names[ev.winner]]
            rnd, trick = ev.round + 2, []
        elif isinstance(ev, EnvidoSettled | FlorSettled):
            score = ev.score
        elif isinstance(ev, TrucoSettled):
            if ev.querido:
                truco = ev.level
        elif isinstance(ev, HandEnded):
            score = ev.score
            for shown in ev.shown:
                seats[shown.seat].shown = list(shown.cards)
        elif isinstance(ev, GameEnded):
            score, game_over = ev.score, True
        current = ev.seat if isinstance(ev, ActionTaken) else None
        yield TableView(
            hand=hand,
            mano=mano,
            score=score,
            round=min(rnd, 3),
            seats=[_seat_copy(s, s.seat == current) for s in seats],
            trick=trick,
            round_results=results,
            truco=truco,
            caption=_describe(ev, seat_names, team_names),
            game_over=game_over,
        )


def _seat_copy(seat: SeatView, current: bool) -> SeatView:
    """A copy of ``seat`` to keep (the fold replaces, never mutates, its lists)."""
    bubble = seat.bubble
    if bubble is not None:
        bubble = replace(bubble, current=current)
    return replace(seat, bubble=bubble)


def _describe(event: Event | StartFault, seats: Sequence[str], teams: tuple[str, str]) -> str:
    """One sentence for an event (:func:`arena.narrate.describe`, through the page's
    catalogue); a failed start is worded from its fault's kind, not the client's English, and
    an envido's chain as players say it ("Envido, real envido: querido")."""
    if isinstance(event, StartFault):
        return _("%(who)s could not start: %(fault)s") % {
            "who": seats[event.seat] if 0 <= event.seat < len(seats) else "?",
            "fault": fault_words(event.fault, event.status),
        }
    if isinstance(event, EnvidoSettled):  # "Envido, real envido: querido, 5 to ana"
        chain = [_(named(c)) for c in event.chain]
        stated = ", ".join(  # what was declared: "ana 27, beto son buenas"
            f"{seats[d.seat] if d.seat < len(seats) else '?'} "
            + (str(d.points) if d.points is not None else _("son buenas"))
            for d in event.declarations
        )
        return _("%(chain)s: %(answer)s, %(points)d to %(team)s%(stated)s") % {
            "chain": ", ".join([chain[0], *(c.lower() for c in chain[1:])]),
            "answer": "querido" if event.querido else "no querido",
            "points": event.points,
            "team": teams[event.winner],
            "stated": f" ({stated})" if stated else "",
        }
    return describe(event, seats, teams, _, card_name)
