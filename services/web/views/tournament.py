"""The tournament page: rounds and pairings, with the standings, brackets and crosstable."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.game.deals import MIRRORED
from arena.match.replay import Replay
from services.db.page_reads import EntryRow, MatchRow, TournamentRow
from services.domain import INDIVIDUAL, LIVE_TOURNAMENT_STATUSES
from services.domain.tournament_settings import TournamentSettings
from services.tournaments.brackets.format import BracketFormat
from services.tournaments.event import Played
from services.tournaments.formats import StandingRow, UnknownFormat, get_format, table_format
from services.web.i18n import gettext as _
from services.web.views import paging
from services.web.views.bracket import BracketSection, Podium, bracket_view, match_labels
from services.web.views.common import BotLink, format_names, outcome, score_text, side_links
from services.web.views.result import result_words
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
    label: str  # "Board 2", or the bracket match's name: "Semi-final 1", "Third place"
    why: str = ""  # how it was decided when not on games: "on tantos 45-38", "by walkover"


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
    podium: Podium | None = None
    # a large crosstable's parts (first row, end), each on a page of its own; [] when the
    # crosstable is on the tournament's page (services.web.views.paging.cross_parts)
    cross_parts: list[tuple[int, int]] = field(default_factory=list)


def deals_note(settings: TournamentSettings) -> str:
    """One sentence on how the tournament's games are dealt, and what memory can do then."""
    if settings.deals == MIRRORED:
        return _(
            "Mirrored deals: only the organiser's bots may enter, because with mirrored deals "
            "the second game of each pair deals the first game's cards with the seats swapped, "
            "so a bot that remembers its own hands knows its opponent's whole hand."
        )
    return _(
        "Independent deals: every game of a match is dealt from its own stream, so what a bot "
        "remembers of earlier games tells it nothing about the cards of the next."
    )


def _pairing(m: MatchRow, replays: dict[int, Replay], label: str) -> PairingView:
    a, b = side_links(m, 0), side_links(m, 1)
    out = outcome(m, replays.get(m.id))
    words = result_words(m, out)
    return PairingView(
        match_id=m.id,
        board=m.board,
        bracket=m.bracket,
        a=a,
        b=b,
        status=m.status,
        winner_side=m.winner_side,
        score=score_text(out),
        bye=not a or not b,
        label=label,
        why=words.why if words is not None else "",
    )


def tournament_view(
    t: TournamentRow,
    entries: Sequence[EntryRow],
    rounds: Sequence[tuple[int, str]],
    matches: Sequence[MatchRow],
    replays: dict[int, Replay],
    standings_rows: Sequence[StandingRow] = (),
    played: Played | None = None,
) -> TournamentView:
    """The tournament page; ``standings_rows`` come from :func:`services.flow.standings` and
    ``played`` (the event as its format sees it) from :func:`services.tournaments.played.played`.
    What to draw is the format's to say (a bracket, or a table and, when every pair meets, a
    crosstable): the page names no format."""
    try:
        fmt = get_format(t.format)
    except UnknownFormat:
        fmt = None
    labels: dict[str, str] = {}
    if isinstance(fmt, BracketFormat) and played is not None and played.entrants:
        labels = match_labels(fmt, len(played.entrants), played.third_place)
    round_views = []
    numbers = sorted(
        {n for n, _status in rounds} | {m.round_number for m in matches if m.round_number}
    )
    status_of = dict(rounds)
    for n in numbers:
        in_round = [m for m in matches if m.round_number == n]
        in_round.sort(key=lambda m: (m.bracket, m.board, m.id))
        pairings = [
            _pairing(m, replays, labels.get(m.bracket_match or "", _("Board %(n)d") % {"n": k + 1}))
            for k, m in enumerate(in_round)
        ]
        round_views.append(RoundView(n, status_of.get(n, "pending"), pairings))
    individual = t.partnership == INDIVIDUAL
    try:
        columns = standing_columns(t, standings_rows)
        standings, note = standings_view(t.format, standings_rows, entries, columns)
    except UnknownFormat as exc:
        columns, standings, note = (
            (),
            None,
            _("Standings unavailable: %(reason)s") % {"reason": exc},
        )
    brackets: list[BracketSection] = []
    top: Podium | None = None
    if isinstance(fmt, BracketFormat) and played is not None and played.entrants:
        brackets, top = bracket_view(fmt, played, entries, matches, replays, standings_rows)
    cross = None
    every_pair_meets = (
        fmt is not None and not fmt.is_bracket and table_format(fmt.name).fixed_schedule
    )
    if every_pair_meets and not individual:  # a crosstable, rows in the standings' order
        order = [row.bot_id for row in standings_rows] or [e.bot_id for e in entries]
        cross = crosstable_view(_in_order(entries, order), matches, replays)
    return TournamentView(
        tournament=t,
        format_name=format_names().get(t.format, t.format),
        live=t.status in LIVE_TOURNAMENT_STATUSES,
        rounds=round_views,
        standings=standings,
        standings_note=note,
        tiebreaks=[(_(TIEBREAK_LABELS[k][0]), _(TIEBREAK_LABELS[k][1])) for k in columns],
        brackets=brackets,
        crosstable=cross,
        cross_header=[row.bot for row in cross or []],
        deals_note=deals_note(t.settings),
        podium=top,
        cross_parts=paging.cross_parts(len(cross or [])),
    )


def _in_order(entries: Sequence[EntryRow], order: Sequence[int]) -> list[EntryRow]:
    """``entries`` in the standings' order (bots not ranked yet last, as entered)."""
    rank = {bot: k for k, bot in enumerate(order)}
    return sorted(entries, key=lambda e: rank.get(e.bot_id, len(rank)))
