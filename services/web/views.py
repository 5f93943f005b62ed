"""Pure view models for the pages: plain data in (rows, replays), plain data out.

Nothing here touches the database or the network; the handlers in ``pages.py`` fetch rows with
``services.db.pages`` and pass them through these functions, and the templates only lay out
what comes back. Every string that a bot or user supplied stays a plain ``str`` here: the
templates escape it (Jinja2 autoescape).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.deals import MEMORY_RISK, MIRRORED
from arena.replay import Decision, Replay, ReplayEvent, StartFault
from engine.cards import RANK, SUIT, SUIT_NAMES
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
from engine.observe import seat_view, spectator_view
from engine.spoken import named, said
from services.db.pages import (
    FINISHED_MATCH,
    BotRow,
    EntryRow,
    HistoryPoint,
    LeaderRow,
    MatchRow,
    RatingRow,
    TournamentRow,
)
from services.flow_pairing import knockout_decision
from services.ratings import POOLS, PROVISIONAL_UNTIL
from services.tournaments.formats import FORMATS, StandingRow, UnknownFormat, get_format

# --------------------------------------------------------------------------- common pieces

TIEBREAK_LABELS = {
    "match_points": ("Pts", "match points"),
    "buchholz_cut1": ("BH-1", "Buchholz cut 1"),
    "buchholz": ("BH", "Buchholz"),
    "sonneborn_berger": ("SB", "Sonneborn-Berger"),
    "direct_encounter": ("DE", "direct encounter"),
    "game_points": ("Games", "game points"),
    "tantos_difference": ("+/-", "tantos difference"),
    "wins": ("W", "matches won"),
    "losses": ("L", "matches lost"),
    "seed": ("Seed", "seed"),
}

ANSWERS = {"quiero", "no_quiero", "con_flor_quiero", "con_flor_me_achico"}


@dataclass(frozen=True, slots=True)
class BotLink:
    """A bot mention: a link when the bot is known to the platform."""

    name: str
    id: int | None = None


def card_name(card: str) -> str:
    return f"{RANK[card]} de {SUIT_NAMES[SUIT[card]]}"


def short(text: str, limit: int = 22) -> str:
    """``text`` cut to ``limit`` characters (for fixed-width SVG boxes)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def side_links(match: MatchRow, side: int) -> list[BotLink]:
    return [BotLink(e.name, e.bot_id) for e in match.entrants if e.side == side]


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished match from side 0's and side 1's points of view."""

    winner_side: int | None
    games: tuple[int, int] | None
    tantos: tuple[int, int] | None


def outcome(match: MatchRow, replay: Replay | None = None) -> Outcome | None:
    """The result of a finished match (``None`` while it is not over)."""
    if match.status not in FINISHED_MATCH:
        return None
    games: tuple[int, int] | None = None
    tantos: tuple[int, int] | None = None
    res = match.result or {}
    g, t = res.get("games_won"), res.get("tantos")
    if isinstance(g, list) and len(g) == 2 and isinstance(t, list) and len(t) == 2:
        games, tantos = (int(g[0]), int(g[1])), (int(t[0]), int(t[1]))
    elif replay is not None:
        games, tantos = replay.result.games_won, replay.result.tantos
    return Outcome(match.winner_side, games, tantos)


def score_text(out: Outcome | None) -> str:
    if out is None:
        return ""
    if out.games is None:
        return "win" if out.winner_side is not None else "draw"
    return f"{out.games[0]}-{out.games[1]}"


def knockout_note(match: MatchRow, out: Outcome | None) -> str:
    """How a bracket match level on games was decided: "1-1, through on tantos 45-38" (the
    tantos of the side that goes through first) or "1-1, through on seed"; "" otherwise."""
    how = knockout_decision(match.bracket_match, match.result)
    if out is None or out.games is None or how is None or how == "games":
        return ""
    level = f"{out.games[0]}-{out.games[1]}"
    if how == "seed" or out.tantos is None:
        return f"{level}, through on seed"
    high, low = max(out.tantos), min(out.tantos)
    return f"{level}, through on tantos {high}-{low}"


# --------------------------------------------------------------------------- home


@dataclass(frozen=True, slots=True)
class LeaderView:
    rank: int
    bot: BotLink
    rating: int
    provisional: bool
    matches: int
    record: str
    trend: int


def leaderboard_view(rows: Sequence[LeaderRow]) -> list[LeaderView]:
    return [
        LeaderView(
            rank=k + 1,
            bot=BotLink(r.name, r.bot_id),
            rating=round(r.rating),
            provisional=r.matches < PROVISIONAL_UNTIL,
            matches=r.matches,
            record=f"{r.wins}-{r.losses}-{r.draws}",
            trend=round(r.trend),
        )
        for k, r in enumerate(rows)
    ]


FORMAT_NAMES = {name: f.title for name, f in FORMATS.items()}

# --------------------------------------------------------------------------- tournament


@dataclass(frozen=True, slots=True)
class PairingView:
    match_id: int
    board: int
    bracket: str
    a: list[BotLink]
    b: list[BotLink]
    status: str
    winner_side: int | None
    score: str
    bye: bool


@dataclass(frozen=True, slots=True)
class RoundView:
    number: int
    status: str
    pairings: list[PairingView]


@dataclass(frozen=True, slots=True)
class StandingView:
    place: int
    bot: BotLink
    values: list[str]
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class BracketBox:
    x: int
    y: int
    match_id: int
    top: str
    bottom: str
    top_score: str
    bottom_score: str
    winner: int | None  # 0 top, 1 bottom
    note: str = ""  # a match level on games: "1-1, through on tantos 45-38"


@dataclass(frozen=True, slots=True)
class BracketSection:
    title: str
    width: int
    height: int
    columns: list[tuple[int, str]]  # (x, label)
    boxes: list[BracketBox]
    lines: list[str]  # SVG path data


@dataclass(frozen=True, slots=True)
class CrossCell:
    text: str
    match_ids: list[int]
    kind: str  # self | win | loss | draw | pending | none


@dataclass(frozen=True, slots=True)
class CrossRow:
    bot: BotLink
    cells: list[CrossCell]
    points: str


@dataclass(slots=True)
class TournamentView:
    tournament: TournamentRow
    format_name: str
    live: bool
    rounds: list[RoundView]
    standings: list[StandingView] | None
    standings_note: str | None
    tiebreaks: list[tuple[str, str]]
    brackets: list[BracketSection]
    crosstable: list[CrossRow] | None
    cross_header: list[BotLink] = field(default_factory=list)
    deals_note: str = ""


def deals_note(settings: dict[str, object]) -> str:
    """One sentence on how the tournament's games are dealt, and what memory can do then."""
    if settings.get("deals") == MIRRORED:
        return f"Mirrored deals: only the organiser's bots may enter, because {MEMORY_RISK}."
    return (
        "Independent deals: every game of a match is dealt from its own stream, so what a bot "
        "remembers of earlier games tells it nothing about the cards of the next."
    )


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _pairing(m: MatchRow, replays: dict[int, Replay]) -> PairingView:
    a, b = side_links(m, 0), side_links(m, 1)
    return PairingView(
        match_id=m.id,
        board=m.board,
        bracket=m.bracket,
        a=a,
        b=b,
        status=m.status,
        winner_side=m.winner_side,
        score=score_text(outcome(m, replays.get(m.id))),
        bye=not a or not b,
    )


def standing_columns(t: TournamentRow, rows: Sequence[StandingRow]) -> tuple[str, ...]:
    """The standings columns: the format's, or in individual 2v2 the per-bot ones that
    :mod:`services.flow_individual` ranks by (points, then the rows' tiebreaks)."""
    if t.partnership == "individual":
        return ("match_points", *(rows[0].tiebreaks if rows else ()))
    return tuple(get_format(t.format).columns)


def standings_view(
    format: str,
    rows: Sequence[StandingRow],
    entries: Sequence[EntryRow],
    columns: Sequence[str] | None = None,
) -> tuple[list[StandingView] | None, str | None]:
    """The standings table from the rows of :func:`services.flow.standings` (the API's
    source too), with the format's columns (or ``columns``) in their ranking order."""
    if not entries:
        return None, "No entries yet."
    if not rows:
        return None, "Standings appear when the event starts."
    columns = tuple(get_format(format).columns) if columns is None else tuple(columns)
    names = {e.bot_id: e for e in entries}
    views = []
    for row in rows:
        entry = names.get(row.bot_id)
        values = [row.points, *(row.tiebreaks[k] for k in columns[1:])]
        views.append(
            StandingView(
                place=row.rank,
                bot=BotLink(entry.name if entry else f"bot {row.bot_id}", row.bot_id),
                values=[_fmt(v) for v in values],
                withdrawn=row.withdrawn,
            )
        )
    return views, None


BOX_W, BOX_H, COL_GAP, ROW_GAP, TOP = 190, 46, 50, 18, 28


def bracket_sections(
    matches: Sequence[MatchRow], replays: dict[int, Replay]
) -> list[BracketSection]:
    """Bracket diagrams: one per side (winners, losers, final), columns by round."""
    groups: dict[str, list[MatchRow]] = {}
    for m in matches:
        key = {"main": "winners"}.get(m.bracket, m.bracket)
        groups.setdefault(key, []).append(m)
    titles = {"winners": "Winners bracket", "losers": "Losers bracket", "final": "Final"}
    if set(groups) == {"winners"}:
        titles["winners"] = "Bracket"
    sections = []
    for key in ("winners", "losers", "final"):
        if key in groups:
            sections.append(_bracket(titles[key], groups[key], replays))
    return sections


def _bracket(title: str, matches: list[MatchRow], replays: dict[int, Replay]) -> BracketSection:
    numbers = sorted({m.round_number or 0 for m in matches})
    cols = [
        sorted((m for m in matches if (m.round_number or 0) == n), key=lambda m: (m.board, m.id))
        for n in numbers
    ]
    tallest = max(len(c) for c in cols)
    slot = BOX_H + ROW_GAP
    height = TOP + tallest * slot
    centres: list[list[float]] = []
    boxes: list[BracketBox] = []
    for ci, col in enumerate(cols):
        x = ci * (BOX_W + COL_GAP) + 4
        span = (height - TOP) / len(col)
        ys = [TOP + span * (k + 0.5) for k in range(len(col))]
        centres.append(ys)
        for m, cy in zip(col, ys, strict=True):
            out = outcome(m, replays.get(m.id))
            a, b = side_links(m, 0), side_links(m, 1)
            games = out.games if out else None
            boxes.append(
                BracketBox(
                    x=x,
                    y=round(cy - BOX_H / 2),
                    match_id=m.id,
                    top=short(" & ".join(e.name for e in a) or "bye"),
                    bottom=short(" & ".join(e.name for e in b) or "bye"),
                    top_score=str(games[0]) if games else "",
                    bottom_score=str(games[1]) if games else "",
                    winner=out.winner_side if out else None,
                    note=knockout_note(m, out),
                )
            )
    lines = []
    for ci in range(len(cols) - 1):
        here, there = centres[ci], centres[ci + 1]
        x1 = ci * (BOX_W + COL_GAP) + 4 + BOX_W
        x2 = x1 + COL_GAP
        xm = x1 + COL_GAP // 2
        for k, y1 in enumerate(here):
            j = k // 2 if len(there) * 2 >= len(here) > len(there) else min(k, len(there) - 1)
            y2 = there[j]
            lines.append(f"M{x1},{round(y1)} H{xm} V{round(y2)} H{x2}")
    labels = [(ci * (BOX_W + COL_GAP) + 4, f"Round {n}") for ci, n in enumerate(numbers)]
    width = len(cols) * (BOX_W + COL_GAP) - COL_GAP + 8
    return BracketSection(title, width, height + 4, labels, boxes, lines)


def crosstable_view(
    entries: Sequence[EntryRow], matches: Sequence[MatchRow], replays: dict[int, Replay]
) -> list[CrossRow]:
    ids = [e.bot_id for e in entries]
    points: dict[int, float] = dict.fromkeys(ids, 0.0)
    cells: dict[tuple[int, int], list[tuple[str, int, str]]] = {}
    for m in matches:
        a, b = side_links(m, 0), side_links(m, 1)
        if not a or not b or a[0].id is None or b[0].id is None:
            continue
        out = outcome(m, replays.get(m.id))
        pair = ((a[0].id, b[0].id, 0), (b[0].id, a[0].id, 1))
        for me, other, side in pair:
            if out is None:
                text, kind = "…", "pending"
            elif out.winner_side is None:
                text, kind = "½", "draw"
                points[me] = points.get(me, 0.0) + 0.5
            elif out.winner_side == side:
                text, kind = "1", "win"
                points[me] = points.get(me, 0.0) + 1
            else:
                text, kind = "0", "loss"
            if out is not None and out.games is not None:
                g = out.games if side == 0 else (out.games[1], out.games[0])
                text += f" ({g[0]}-{g[1]})"
            cells.setdefault((me, other), []).append((text, m.id, kind))
    rows = []
    for e in entries:
        row: list[CrossCell] = []
        for other in ids:
            if other == e.bot_id:
                row.append(CrossCell("", [], "self"))
                continue
            found = cells.get((e.bot_id, other), [])
            if not found:
                row.append(CrossCell("", [], "none"))
            else:
                kinds = {k for _, _, k in found}
                row.append(
                    CrossCell(
                        " ".join(t for t, _, _ in found),
                        [mid for _, mid, _ in found],
                        kinds.pop() if len(kinds) == 1 else "draw",
                    )
                )
        rows.append(CrossRow(BotLink(e.name, e.bot_id), row, _fmt(points.get(e.bot_id, 0.0))))
    return rows


def tournament_view(
    t: TournamentRow,
    entries: Sequence[EntryRow],
    rounds: Sequence[tuple[int, str]],
    matches: Sequence[MatchRow],
    replays: dict[int, Replay],
    standings_rows: Sequence[StandingRow] = (),
) -> TournamentView:
    """The tournament page; ``standings_rows`` come from :func:`services.flow.standings`."""
    round_views = []
    numbers = sorted({n for n, _ in rounds} | {m.round_number for m in matches if m.round_number})
    status_of = dict(rounds)
    for n in numbers:
        in_round = [m for m in matches if m.round_number == n]
        in_round.sort(key=lambda m: (m.bracket, m.board, m.id))
        round_views.append(
            RoundView(n, status_of.get(n, "pending"), [_pairing(m, replays) for m in in_round])
        )
    individual = t.partnership == "individual"
    try:
        columns = standing_columns(t, standings_rows)
        standings, note = standings_view(t.format, standings_rows, entries, columns)
    except UnknownFormat as exc:
        columns, standings, note = (), None, f"Standings unavailable: {exc}"
    brackets: list[BracketSection] = []
    if t.format in ("single_elimination", "double_elimination") and matches:
        brackets = bracket_sections(matches, replays)
    cross = (
        crosstable_view(entries, matches, replays)
        if t.format == "round_robin" and not individual
        else None
    )
    return TournamentView(
        tournament=t,
        format_name=FORMAT_NAMES.get(t.format, t.format),
        live=t.status in ("registering", "running"),
        rounds=round_views,
        standings=standings,
        standings_note=note,
        tiebreaks=[TIEBREAK_LABELS[k] for k in columns],
        brackets=brackets,
        crosstable=cross,
        cross_header=[BotLink(e.name, e.bot_id) for e in entries],
        deals_note=deals_note(t.settings),
    )


# --------------------------------------------------------------------------- bot


@dataclass(frozen=True, slots=True)
class RatingView:
    mode: str
    rating: int
    provisional: bool
    matches: int
    record: str


@dataclass(frozen=True, slots=True)
class ChartPoint:
    x: float
    y: float
    rating: int
    match_id: int


@dataclass(frozen=True, slots=True)
class Chart:
    mode: str
    width: int
    height: int
    path: str
    points: list[ChartPoint]
    ticks: list[tuple[float, int]]  # (y, rating)


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


@dataclass(frozen=True, slots=True)
class FaultLine:
    """A recent match in which the bot faulted: its faults by kind, and the cause when the
    faults lost it the match (walkover or forfeit)."""

    match_id: int
    when: str
    kinds: list[tuple[str, int]]
    lost_by: str | None = None  # walkover | forfeit
    cause: str | None = None  # the cause's summary: "signature rejected (401) on /start"
    detail: str | None = None


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
        )
        for r in rows
    ]


def rating_chart(
    mode: str, history: Sequence[HistoryPoint], width: int = 640, height: int = 220
) -> Chart | None:
    points = [h for h in history if h.mode == mode]
    if not points:
        return None
    values = [points[0].before] + [h.after for h in points]
    low, high = min(values), max(values)
    low, high = math.floor((low - 10) / 10) * 10, math.ceil((high + 10) / 10) * 10
    left, right, top, bottom = 48, 12, 12, 24
    span_x = max(1, len(values) - 1)

    def px(k: int) -> float:
        return round(left + (width - left - right) * k / span_x, 1)

    def py(v: float) -> float:
        return round(top + (height - top - bottom) * (high - v) / (high - low), 1)

    coords = [(px(k), py(v)) for k, v in enumerate(values)]
    path = "M" + " L".join(f"{x},{y}" for x, y in coords)
    chart_points = [
        ChartPoint(coords[k + 1][0], coords[k + 1][1], round(h.after), h.match_id)
        for k, h in enumerate(points)
    ]
    steps = 4
    ticks = [
        (py(low + (high - low) * i / steps), round(low + (high - low) * i / steps))
        for i in range(steps + 1)
    ]
    return Chart(mode, width, height, path, chart_points, ticks)


def _ms(value: float) -> str:
    return f"{value:.2f}" if value < 10 else f"{value:.0f}"


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
                    cause=None if cause is None else cause.summary,
                    detail=None if cause is None or cause.detail == cause.label else cause.detail,
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


# --------------------------------------------------------------------------- replay viewer

View = str  # "all", "spectator" or "seatN"


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


def visible_event(event: Event | StartFault, view: View) -> Event | StartFault:
    """The event as the view may see it: señas filtered by ``engine.observe`` (R-9, R-11)."""
    if isinstance(event, HandStarted | StartFault) or view == "all":
        return event
    if view == "spectator":
        return spectator_view([event])[0]
    return seat_view([event], int(view[4:]))[0]


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


@dataclass(frozen=True, slots=True)
class HandRow:
    hand: int
    mano: str
    notes: list[str]
    winner: str
    points: int
    score: tuple[int, int]
    step: int


@dataclass(slots=True)
class ReplayView:
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
    replay: Replay, game_index: int, sides: tuple[list[BotLink], list[BotLink]]
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


def describe(event: Event | StartFault, names: list[BotLink], team_names: tuple[str, str]) -> str:
    def seat(s: int) -> str:
        return names[s].name if s < len(names) else f"seat {s}"

    if isinstance(event, HandStarted):
        return f"Hand {event.hand + 1}: cards dealt, {seat(event.mano)} is mano"
    if isinstance(event, ActionTaken):
        if event.action == "play" and event.card:
            return f"{seat(event.seat)} plays the {card_name(event.card)}"
        return f"{seat(event.seat)}: {said(event.action)}"
    if isinstance(event, RoundEnded):
        if event.winner is None:
            return f"Round {event.round + 1}: parda"
        return f"Round {event.round + 1} to {team_names[event.winner]}"
    if isinstance(event, EnvidoSettled):
        chain = " + ".join(named(c) for c in event.chain)
        decl = ", ".join(
            f"{seat(d.seat)} {d.points if d.points is not None else 'son buenas'}"
            for d in event.declarations
        )
        answer = "querido" if event.querido else "no querido"
        extra = f" ({decl})" if decl else ""
        return f"{chain} {answer}: {event.points} to {team_names[event.winner]}{extra}"
    if isinstance(event, EnvidoCancelled):
        return f"Envido cancelled ({event.reason.replace('_', ' ')})"
    if isinstance(event, FlorSettled):
        return f"{named(event.bet)} ({event.outcome}): {event.points} to {team_names[event.winner]}"
    if isinstance(event, TrucoSettled):
        answer = "querido" if event.querido else "no querido"
        return f"{named(event.level)} {answer} by {seat(event.seat)}"
    if isinstance(event, HandEnded):
        if event.winner is None:
            return f"Hand {event.hand + 1} ends: the game is over"
        return (
            f"Hand {event.hand + 1} to {team_names[event.winner]}: {event.points} "
            f"({event.reason.replace('_', ' ')})"
        )
    if isinstance(event, GameEnded):
        return f"Game over: {team_names[event.winner]} wins {event.score[0]}-{event.score[1]}"
    return f"{seat(event.seat)} could not start: {event.fault} ({event.detail})"


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


def _points(event: Event | StartFault, team_names: tuple[str, str]) -> str | None:
    if isinstance(event, EnvidoSettled | FlorSettled):
        return f"+{event.points} {team_names[event.winner]}"
    if isinstance(event, HandEnded) and event.winner is not None:
        return f"+{event.points} {team_names[event.winner]}"
    return None


POSITIONS = {2: ("bottom", "top"), 4: ("bottom", "right", "top", "left")}


def replay_view(
    replay: Replay,
    sides: tuple[list[BotLink], list[BotLink]],
    game: int,
    step: int | None,
    view: View,
    live: bool,
) -> ReplayView | None:
    """The viewer at ``step`` of game ``game`` (1-based) as ``view`` sees it.

    A live match is always shown as a spectator sees it (R-11); ``view`` is then ignored.
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
    restricted = view != "all"
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
                text=describe(ev, names, team_names),
                say=say,
                points=_points(ev, team_names),
                future=s.index > step,
                current=s.index == step,
                fault=fault if fault else (ev.fault if isinstance(ev, StartFault) else None),
            )
        )
    hands = _hand_rows(steps, names, team_names, None if view == "all" else step)
    starts = [s.index for s in steps if isinstance(s.event, HandStarted)]
    prev_hand = max((i for i in starts if i < step), default=None)
    next_hand = min((i for i in starts if i > step), default=None)
    if live:
        views = [("spectator", "Spectator (live)")]
    else:
        views = [("all", "Omniscient")] + [
            (f"seat{s}", f"Seat {s}: {short(names[s].name, 18)}") for s in range(players)
        ]
    return ReplayView(
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
    positions = POSITIONS.get(players, tuple("bottom" for _ in range(players)))
    seats = [SeatView(s, s % 2, names[s], positions[s], [], [], [], False) for s in range(players)]
    score: tuple[int, int] = (0, 0)
    hand, mano, rnd = 0, 0, 1
    trick: list[tuple[int, str]] = []
    results: list[str] = []
    truco: str | None = None
    game_over = False
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
                if ev.card in s.cards:
                    s.cards.remove(ev.card)
                elif None in s.cards:
                    s.cards.remove(None)
                s.played.append(ev.card)
                trick.append((ev.seat, ev.card))
            d = step.decision
            s.bubble = Bubble(
                text=card_name(ev.card) if ev.action == "play" and ev.card else said(ev.action),
                say=ev.say,
                sena=ev.sena.replace("_", " ") if ev.sena else None,
                fault=d.fault if d is not None else None,
                latency=f"{d.latency_ms:.0f} ms" if d is not None else None,
            )
            if d is not None and d.fault:
                s.faults += 1
        elif isinstance(ev, RoundEnded):
            results.append("parda" if ev.winner is None else team_names[ev.winner])
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
    for s in seats:
        if s.bubble is not None:
            s.bubble.current = False
    if steps:
        last = steps[-1]
        if isinstance(last.event, ActionTaken) and seats[last.event.seat].bubble is not None:
            bubble = seats[last.event.seat].bubble
            assert bubble is not None
            bubble.current = True
    caption = describe(visible_event(steps[-1].event, view), names, team_names) if steps else ""
    return TableView(
        hand=hand,
        mano=mano,
        score=score,
        round=min(rnd, 3),
        seats=seats,
        trick=trick,
        round_results=results,
        truco=truco,
        caption=caption,
        game_over=game_over,
    )


def _hand_rows(
    steps: Sequence[Step], names: list[BotLink], team_names: tuple[str, str], upto: int | None
) -> list[HandRow]:
    rows: list[HandRow] = []
    notes: list[str] = []
    mano = ""
    start = 0
    for s in steps:
        if upto is not None and s.index > upto:
            break
        ev = s.event
        if isinstance(ev, HandStarted):
            notes, mano, start = [], names[ev.mano].name, s.index
        elif isinstance(ev, EnvidoSettled):
            notes.append(f"envido {ev.points} → {team_names[ev.winner]}")
        elif isinstance(ev, FlorSettled):
            notes.append(f"flor {ev.points} → {team_names[ev.winner]}")
        elif isinstance(ev, TrucoSettled):
            notes.append(f"{ev.level.replace('_', ' ')} {'quiero' if ev.querido else 'no quiero'}")
        elif isinstance(ev, HandEnded):
            winner = team_names[ev.winner] if ev.winner is not None else "—"
            rows.append(HandRow(ev.hand + 1, mano, notes, winner, ev.points, ev.score, start))
    return rows
