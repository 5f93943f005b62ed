"""A bot's page: ratings and their charts, recent matches, faults and latency."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.match.replay import Decision, Replay, StartFault
from services.db.page_reads import BotRow, HistoryPoint, MatchRow, RatingRow
from services.domain.ratings import POOLS, PROVISIONAL_UNTIL
from services.web.i18n import decimal
from services.web.views.causes import CauseView, cause_view
from services.web.views.common import BotLink, outcome, score_text, side_links
from services.web.views.intervals import rating_interval


@dataclass(frozen=True, slots=True)
class RatingView:
    mode: str
    rating: int
    provisional: bool
    matches: int
    record: str
    interval: str | None = None  # the 95% interval and LOS in words


@dataclass(frozen=True, slots=True)
class ChartPoint:
    x: float  # percent of the plot's width
    y: float  # pixels from the plot's top
    rating: int
    match_id: int


@dataclass(frozen=True, slots=True)
class Chart:
    """A rating history drawn at any width: x in percent of the plot's width, y in pixels of
    its fixed height, so the labels keep their size on a phone (the line is drawn in a
    stretched box of :data:`PATH_WIDTH` by ``height`` units)."""

    mode: str
    height: int  # the plot area's, in pixels; the axes' labels sit outside it
    path: str
    points: list[ChartPoint]
    ticks: list[tuple[float, int]]  # (y, rating)
    x_ticks: list[tuple[float, int]]  # (x percent, rated match number)


PATH_WIDTH = 1000  # the line's box: stretched to the plot's width


@dataclass(frozen=True, slots=True)
class MatchLine:
    match_id: int
    mode: str
    when: str
    opponents: list[BotLink]
    partners: list[BotLink]
    result: str  # win | loss | draw | pending | running ...
    score: str
    tournament_id: int | None
    tournament_name: str | None = None


@dataclass(frozen=True, slots=True)
class FaultLine:
    """A recent match in which the bot faulted: its faults by kind, and the cause when the
    faults lost it the match (walkover or forfeit)."""

    match_id: int
    when: str
    kinds: list[tuple[str, int]]
    lost_by: str | None = None  # walkover | forfeit
    cause: CauseView | None = None  # why: "signature rejected (401) on /start"


@dataclass(frozen=True, slots=True)
class LatencyView:
    calls: int
    p50: str
    p90: str
    p99: str
    max: str


@dataclass(frozen=True, slots=True)
class BotView:
    bot: BotRow
    ratings: list[RatingView]
    charts: list[Chart]
    matches: list[MatchLine]
    faults: list[tuple[str, int]]
    fault_total: int
    latency: LatencyView | None
    sampled: int
    recent_faults: list[FaultLine] = field(default_factory=list)


def rating_views(rows: Sequence[RatingRow]) -> list[RatingView]:
    return [
        RatingView(
            r.mode,
            round(r.rating),
            r.matches < PROVISIONAL_UNTIL,
            r.matches,
            f"{r.wins}-{r.losses}-{r.draws}",
            rating_interval(r),
        )
        for r in rows
    ]


def rating_chart(mode: str, history: Sequence[HistoryPoint], height: int = 200) -> Chart | None:
    """The rating after each rated match of ``mode``; the axes are the rating (y) and the
    rated matches counted from the first (x, 0 is the rating before it)."""
    points = [h for h in history if h.mode == mode]
    if not points:
        return None
    values = [points[0].before] + [h.after for h in points]
    low, high = min(values), max(values)
    low, high = math.floor((low - 10) / 10) * 10, math.ceil((high + 10) / 10) * 10
    span_x = max(1, len(values) - 1)

    def px(k: int) -> float:
        return round(100 * k / span_x, 2)

    def py(v: float) -> float:
        return round(height * (high - v) / (high - low), 1)

    coords = [(px(k), py(v)) for k, v in enumerate(values)]
    path = "M" + " L".join(f"{round(x * PATH_WIDTH / 100, 1)},{y}" for x, y in coords)
    chart_points = [
        ChartPoint(coords[k + 1][0], coords[k + 1][1], round(h.after), h.match_id)
        for k, h in enumerate(points)
    ]
    steps = 4
    ticks = [
        (py(low + (high - low) * i / steps), round(low + (high - low) * i / steps))
        for i in range(steps + 1)
    ]
    every = max(1, math.ceil(span_x / 5))  # at most six labels: they fit a phone
    x_ticks = [(px(k), k) for k in range(0, len(values), every)]
    return Chart(mode, height, path, chart_points, ticks, x_ticks)


def _ms(value: float) -> str:
    return decimal(value, 2) if value < 10 else decimal(value, 0)


def _percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


RECENT_FAULTS = 10  # matches with faults listed on a bot's page


def bot_view(
    bot: BotRow,
    ratings: Sequence[RatingRow],
    history: Sequence[HistoryPoint],
    matches: Sequence[MatchRow],
    replays: dict[int, Replay],
) -> BotView:
    lines = []
    faults: dict[str, int] = {}
    recent: list[FaultLine] = []
    latencies: list[float] = []
    sampled = 0
    for m in matches:
        mine = [e for e in m.entrants if e.bot_id == bot.id]
        side = mine[0].side if mine else 0
        slot = mine[0].slot if mine else 0
        out = outcome(m, replays.get(m.id))
        if out is None:
            result = m.status
        elif out.winner_side is None:
            result = "draw"
        else:
            result = "win" if out.winner_side == side else "loss"
        score = score_text(out)
        if out and out.games and side == 1:
            score = f"{out.games[1]}-{out.games[0]}"
        lines.append(
            MatchLine(
                match_id=m.id,
                mode=m.mode,
                when=(m.finished_at or m.created_at).strftime("%Y-%m-%d %H:%M"),
                opponents=side_links(m, 1 - side),
                partners=[b for b in side_links(m, side) if b.id != bot.id],
                result=result,
                score=score,
                tournament_id=m.tournament_id,
                tournament_name=m.tournament_name,
            )
        )
        replay = replays.get(m.id)
        if replay is None:
            continue
        sampled += 1
        kinds: dict[str, int] = {}
        for game in replay.games:
            for ev in game.events:
                if not isinstance(ev, Decision | StartFault):
                    continue
                own = (
                    game.seats[ev.seat] == slot
                    if len(game.seats) == 4 == len(replay.entrants)
                    else game.teams[ev.seat % 2] == side
                )
                if isinstance(ev, Decision) and own:
                    latencies.append(ev.latency_ms)
                    if ev.fault:
                        kinds[ev.fault] = kinds.get(ev.fault, 0) + 1
                elif isinstance(ev, StartFault) and own:
                    kinds[ev.fault] = kinds.get(ev.fault, 0) + 1
        own_entrant = slot if len(replay.entrants) == 4 else side  # a cause names its entrant
        cause = next((c for c in replay.result.causes if c.side == own_entrant), None)
        if cause is not None and replay.result.reason == "walkover":
            kinds[cause.kind] = kinds.get(cause.kind, 0) + 1  # no game: the failed call only
        for kind, n in kinds.items():
            faults[kind] = faults.get(kind, 0) + n
        if kinds and len(recent) < RECENT_FAULTS:
            recent.append(
                FaultLine(
                    match_id=m.id,
                    when=(m.finished_at or m.created_at).strftime("%Y-%m-%d %H:%M"),
                    kinds=sorted(kinds.items()),
                    lost_by=None if cause is None else replay.result.reason,
                    cause=None if cause is None else cause_view(cause, replay),
                )
            )
    latency = None
    if latencies:
        ordered = sorted(latencies)
        latency = LatencyView(
            len(ordered),
            _ms(_percentile(ordered, 0.5)),
            _ms(_percentile(ordered, 0.9)),
            _ms(_percentile(ordered, 0.99)),
            _ms(ordered[-1]),
        )
    charts = [c for c in (rating_chart(mode, history) for mode in POOLS) if c]
    return BotView(
        bot=bot,
        ratings=rating_views(ratings),
        charts=charts,
        matches=lines,
        faults=sorted(faults.items()),
        fault_total=sum(faults.values()),
        latency=latency,
        sampled=sampled,
        recent_faults=recent,
    )
