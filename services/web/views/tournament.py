"""The tournament page: rounds and pairings, with the standings, brackets and crosstable."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.deals import MEMORY_RISK, MIRRORED
from arena.replay import Replay
from services.db.pages import EntryRow, MatchRow, TournamentRow
from services.tournaments.formats import StandingRow, UnknownFormat
from services.web.views.bracket import BracketSection, bracket_sections
from services.web.views.common import FORMAT_NAMES, BotLink, outcome, score_text, side_links
from services.web.views.standings import (
    TIEBREAK_LABELS,
    CrossRow,
    StandingView,
    crosstable_view,
    standing_columns,
    standings_view,
)


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
