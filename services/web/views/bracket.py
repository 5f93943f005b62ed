"""Knockout bracket diagrams (SVG boxes and lines), one per side of the bracket."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.replay import Replay
from services.db.pages import MatchRow
from services.web.views.common import knockout_note, outcome, short, side_links

BOX_W, BOX_H, COL_GAP, ROW_GAP, TOP = 190, 46, 50, 18, 28


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
