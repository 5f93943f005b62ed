"""A tournament's standings table and round-robin crosstable."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.match.replay import Replay
from services.db.page_reads import EntryRow, MatchRow, TournamentRow
from services.tournaments.formats import StandingRow, get_format
from services.web.i18n import N_, number
from services.web.i18n import gettext as _
from services.web.views.common import BotLink, outcome, side_links

TIEBREAK_LABELS = {
    "match_points": (N_("Pts"), N_("match points")),
    "buchholz_cut1": (N_("BH-1"), N_("Buchholz cut 1")),
    "buchholz": (N_("BH"), N_("Buchholz")),
    "sonneborn_berger": (N_("SB"), N_("Sonneborn-Berger")),
    "direct_encounter": (N_("DE"), N_("direct encounter")),
    "game_points": (N_("Games"), N_("game points")),
    "tantos_difference": ("+/-", N_("tantos difference")),
    "wins": (N_("W"), N_("matches won")),
    "losses": (N_("L"), N_("matches lost")),
    "seed": (N_("Seed"), N_("seed")),
}
"""Each column's (abbreviation, name), marked for the catalogues: translate where shown."""


@dataclass(frozen=True, slots=True)
class StandingView:
    place: int
    bot: BotLink
    values: list[str]
    withdrawn: bool


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


def _fmt(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else number(value)


def standing_columns(t: TournamentRow, rows: Sequence[StandingRow]) -> tuple[str, ...]:
    """The standings columns: the format's, or in individual 2v2 the per-bot ones that
    :mod:`services.tournaments.individual` ranks by (points, then the rows' tiebreaks)."""
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
        return None, _("No entries yet.")
    if not rows:
        return None, _("Standings appear when the event starts.")
    columns = tuple(get_format(format).columns) if columns is None else tuple(columns)
    names = {e.bot_id: e for e in entries}
    views = []
    for row in rows:
        entry = names.get(row.bot_id)
        values = [row.points, *(row.tiebreaks[k] for k in columns[1:])]
        views.append(
            StandingView(
                place=row.rank,
                bot=BotLink(
                    entry.name if entry else _("bot %(id)d") % {"id": row.bot_id}, row.bot_id
                ),
                values=[_fmt(v) for v in values],
                withdrawn=row.withdrawn,
            )
        )
    return views, None


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
