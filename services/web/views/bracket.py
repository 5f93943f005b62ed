"""Knockout bracket diagrams (SVG boxes and lines), one per side of the bracket.

The drawing follows the format's own bracket (:meth:`BracketFormat.make_bracket`), not the
matches that happen to have rows: every bracket match has a box, byes included, each round is
named (quarter-finals, semi-finals, final, third place; the winners' and losers' rounds, the
grand final and its reset), and a line joins a box only to the box its winner goes on to.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from arena.match.replay import Replay
from services.db.page_reads import EntryRow, MatchRow
from services.tournaments.brackets.bracket import (
    BYE,
    Bracket,
    BracketMatch,
    Resolved,
    Slot,
    champion,
    resolve,
)
from services.tournaments.brackets.format import COLUMN_OF_KIND, BracketFormat
from services.tournaments.event import Played, StandingRow
from services.web.i18n import N_
from services.web.i18n import gettext as _
from services.web.views.common import BotLink, knockout_note, outcome, short, side_links

BOX_W, BOX_H, COL_GAP, ROW_GAP, TOP = 190, 46, 50, 30, 44
NOTE_H = 14  # the line under a box that says how a level match was decided

SECTION_TITLES = {
    "main": N_("Winners bracket"),
    "losers": N_("Losers bracket"),
    "final": N_("Final"),
}


@dataclass(frozen=True, slots=True)
class BracketBox:
    x: int
    y: int
    code: str  # the bracket match id: W1-2, L3-1, 3P, GF, GF2
    label: str  # "Semi-final 2", "Third place", "Grand final"
    match_id: int | None  # None: no match row (a bye, or not played yet)
    top: str
    bottom: str
    top_score: str
    bottom_score: str
    winner: int | None  # 0 top, 1 bottom
    note: str = ""  # a match level on games: "1-1, through on tantos 45-38"
    bye: bool = False  # one side is a bye: the other goes through without playing
    void: bool = False  # a grand-final reset that was not needed
    tag: str = ""  # the label over a box whose round is not its column's (third place)


@dataclass(frozen=True, slots=True)
class BracketSection:
    title: str
    width: int
    height: int
    columns: list[tuple[int, str]]  # (x, label)
    boxes: list[BracketBox]
    lines: list[str]  # SVG path data


@dataclass(frozen=True, slots=True)
class Podium:
    """The event's top places once it has a champion: (place, bot), best first."""

    places: list[tuple[int, BotLink]]


def _round_names(
    match: BracketMatch, rounds: int, double: bool, last_losers: int
) -> tuple[str, str, dict[str, int]]:
    """A bracket match's round, in the page's language: its heading, the name of one of its
    matches (``%(n)s`` its number in the round), and the numbers both take."""
    if match.bracket == "third_place":
        return _("Third place"), _("Third place, match %(n)s"), {}
    if match.bracket == "grand_final":
        return _("Grand final"), _("Grand final, match %(n)s"), {}
    if match.bracket == "reset":
        return _("Grand final reset"), _("Grand final reset, match %(n)s"), {}
    at = {"round": match.round}
    if match.bracket == "losers":
        if match.round == last_losers:
            return _("Losers final"), _("Losers final, match %(n)s"), {}
        return _("Losers round %(round)d") % at, _("Losers round %(round)d, match %(n)s"), at
    left = rounds - match.round
    if left == 0:
        if double:
            return _("Winners final"), _("Winners final, match %(n)s"), {}
        return _("Final"), _("Final, match %(n)s"), {}
    if left == 1:
        if double:
            return _("Winners semi-finals"), _("Winners semi-final %(n)s"), {}
        return _("Semi-finals"), _("Semi-final %(n)s"), {}
    if left == 2:
        if double:
            return _("Winners quarter-finals"), _("Winners quarter-final %(n)s"), {}
        return _("Quarter-finals"), _("Quarter-final %(n)s"), {}
    return _("Round %(round)d") % at, _("Round %(round)d, match %(n)s"), at


def round_label(match: BracketMatch, rounds: int, double: bool, last_losers: int) -> str:
    """The name of a bracket match's round: ``Final``, ``Semi-finals``, ``Losers round 2``..."""
    return _round_names(match, rounds, double, last_losers)[0]


def _bracket_rounds(bracket: Bracket) -> tuple[int, int]:
    """The winners' side's rounds and the losers' side's last round (0: none)."""
    rounds = max(m.round for m in bracket.matches if m.bracket == "winners")
    last_losers = max((m.round for m in bracket.matches if m.bracket == "losers"), default=0)
    return rounds, last_losers


def round_labels(bracket: Bracket, double: bool) -> dict[str, str]:
    """Each bracket match's round name (:func:`round_label`), by match id."""
    rounds, last_losers = _bracket_rounds(bracket)
    return {m.id: round_label(m, rounds, double, last_losers) for m in bracket.matches}


def match_labels(fmt: BracketFormat, entrants: int, third_place: bool) -> dict[str, str]:
    """Each bracket match's own name, for a box or a pairing: ``Semi-final 1``, ``Final``,
    ``Losers round 1, match 2``."""
    bracket = fmt.make_bracket(entrants, third_place=third_place)
    rounds, last_losers = _bracket_rounds(bracket)
    names = {m.id: _round_names(m, rounds, fmt.double, last_losers) for m in bracket.matches}
    counts: dict[str, int] = {}
    for heading, _one, _at in names.values():
        counts[heading] = counts.get(heading, 0) + 1
    labels = {}
    for code, (heading, one, at) in names.items():
        n = code.rsplit("-", 1)[-1]
        labels[code] = heading if counts[heading] == 1 else one % {**at, "n": n}
    return labels


def podium(rows: Sequence[StandingRow], entries: Sequence[EntryRow]) -> Podium:
    names = {e.bot_id: e.name for e in entries}
    return Podium(
        [
            (r.rank, BotLink(names.get(r.bot_id, _("bot %(id)d") % {"id": r.bot_id}), r.bot_id))
            for r in rows[:3]
        ]
    )


def bracket_view(
    fmt: BracketFormat,
    played: Played,
    entries: Sequence[EntryRow],
    matches: Sequence[MatchRow],
    replays: dict[int, Replay],
    standings: Sequence[StandingRow] = (),
) -> tuple[list[BracketSection], Podium | None]:
    """The bracket's sections (winners, losers, final) and, once there is a champion, the
    podium (from the format's standings, the one ranking of the event)."""
    bracket = fmt.make_bracket(len(played.entrants), third_place=played.third_place)
    state = resolve(bracket, played.bracket_results)
    seeds = {e.seed: e.bot_id for e in played.entrants}
    names = {e.bot_id: e.name for e in entries}
    rows = {m.bracket_match: m for m in matches if m.bracket_match}
    labels = match_labels(fmt, len(played.entrants), played.third_place)
    headings = round_labels(bracket, fmt.double)

    def link(seed: int | None) -> str:
        if seed is None:
            return "—"
        if seed == BYE:
            return _("bye")
        bot = seeds.get(seed)
        unknown = _("seed %(n)d") % {"n": seed}
        return names.get(bot, unknown) if bot is not None else unknown

    groups: dict[str, list[BracketMatch]] = {}
    for m in bracket.matches:
        groups.setdefault(COLUMN_OF_KIND[m.bracket], []).append(m)
    sections = []
    for key in ("main", "losers", "final"):
        if key in groups:
            title = _("Bracket") if len(groups) == 1 else _(SECTION_TITLES[key])
            sections.append(
                _section(title, groups[key], state, rows, replays, (labels, headings), link, seeds)
            )
    top = podium(standings, entries) if champion(bracket, played.bracket_results) else None
    return sections, top


def _section(
    title: str,
    group: list[BracketMatch],
    state: Mapping[str, Resolved],
    rows: Mapping[str, MatchRow],
    replays: dict[int, Replay],
    names: tuple[Mapping[str, str], Mapping[str, str]],
    link: Callable[[int | None], str],
    seeds: Mapping[int, int],
) -> BracketSection:
    labels, headings = names
    in_section = {m.id for m in group}
    rounds = sorted({m.round for m in group})
    column = {r: k for k, r in enumerate(rounds)}
    slot = BOX_H + ROW_GAP
    centre: dict[str, float] = {}
    for r in rounds:
        col = [m for m in group if m.round == r]
        fed = [m for m in col if _feeders(m, in_section)]
        free = [m for m in col if not _feeders(m, in_section)]
        for m in fed:
            ys = [centre[f] for f in _feeders(m, in_section)]
            centre[m.id] = sum(ys) / len(ys)
        taken = sorted(centre[m.id] for m in fed)
        y = (taken[-1] + slot + ROW_GAP) if taken else TOP + BOX_H / 2
        for m in free:
            centre[m.id] = y
            y += slot
        ordered = sorted(col, key=lambda m: centre[m.id])
        for before, after in pairwise(ordered):
            if centre[after.id] - centre[before.id] < slot:
                centre[after.id] = centre[before.id] + slot
    heading = {}
    for r in rounds:
        col = sorted((m for m in group if m.round == r), key=lambda m: m.bracket == "third_place")
        heading[r] = headings[col[0].id]
    boxes = []
    for m in group:
        res = state[m.id]
        row = rows.get(m.id)
        out = outcome(row, replays.get(row.id)) if row is not None else None
        games = out.games if out else None
        top, bottom = (
            link(seed) if seed is not None else _awaited(slot, labels)
            for seed, slot in ((res.a, m.a), (res.b, m.b))
        )
        if row is not None:  # the stored sides (2v2 teams name both bots)
            a, b = side_links(row, 0), side_links(row, 1)
            top = " & ".join(e.name for e in a) or top
            bottom = " & ".join(e.name for e in b) or bottom
        void = m.bracket == "reset" and res.void
        winner = None
        if res.winner not in (None, BYE) and not void:
            winner = 0 if res.winner == res.a else 1
            if row is not None:  # the row's sides, not the bracket's slots, order the box
                side_0 = {e.bot_id for e in row.entrants if e.side == 0}
                winner = 0 if seeds.get(res.winner or 0) in side_0 else 1
        x = column[m.round] * (BOX_W + COL_GAP) + 4
        boxes.append(
            BracketBox(
                x=x,
                y=round(centre[m.id] - BOX_H / 2),
                code=m.id,
                label=labels[m.id],
                match_id=row.id if row is not None else None,
                top=short(top),
                bottom=short(bottom),
                top_score=str(games[0]) if games else "",
                bottom_score=str(games[1]) if games else "",
                winner=winner,
                note=knockout_note(row, out) if row is not None else "",
                bye=BYE in (res.a, res.b),
                void=void,
                tag=labels[m.id] if headings[m.id] != heading[m.round] else "",
            )
        )
    lines = []
    for m in group:
        x2 = column[m.round] * (BOX_W + COL_GAP) + 4
        for k, source in enumerate(_slot_sources(m)):
            if source not in in_section:
                continue
            x1 = column[_round_of(group, source)] * (BOX_W + COL_GAP) + 4 + BOX_W
            y1 = centre[source]
            y2 = centre[m.id] - BOX_H / 4 if k == 0 else centre[m.id] + BOX_H / 4
            xm = x2 - COL_GAP / 2
            lines.append(f"M{x1},{round(y1)} H{round(xm)} V{round(y2)} H{x2}")
    labels_at = [(column[r] * (BOX_W + COL_GAP) + 4, heading[r]) for r in rounds]
    width = len(rounds) * (BOX_W + COL_GAP) - COL_GAP + 8
    height = round(max(centre.values()) + BOX_H / 2 + NOTE_H + 8)
    return BracketSection(title, width, height, labels_at, boxes, lines)


def _awaited(slot: Slot, labels: Mapping[str, str]) -> str:
    """Who will fill a slot not known yet: "winner of Semi-final 1", "loser of Final"."""
    if slot.winner_of is not None:
        return _("winner of %(match)s") % {"match": labels[slot.winner_of]}
    if slot.loser_of is not None:
        return _("loser of %(match)s") % {"match": labels[slot.loser_of]}
    return "—"


def _slot_sources(m: BracketMatch) -> list[str]:
    """The matches whose winners fill ``m``'s slots (top then bottom), "" for a seed/loser."""
    return [s.winner_of or "" for s in (m.a, m.b)]


def _feeders(m: BracketMatch, in_section: set[str]) -> list[str]:
    return [s for s in _slot_sources(m) if s in in_section]


def _round_of(group: list[BracketMatch], code: str) -> int:
    return next(m.round for m in group if m.id == code)
