"""Pieces every page uses: bot links, a finished match's outcome and how it reads."""

from __future__ import annotations

from dataclasses import dataclass

from arena.replay import Replay
from services.db.pages import FINISHED_MATCH, MatchRow
from services.flow_pairing import knockout_decision
from services.tournaments.formats import FORMATS


@dataclass(frozen=True, slots=True)
class BotLink:
    """A bot mention: a link when the bot is known to the platform."""

    name: str
    id: int | None = None


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


FORMAT_NAMES = {name: f.title for name, f in FORMATS.items()}
