"""How `truco match show` words a match's luck (docs/luck.md), from ``GET /v1/matches/{id}``:
one line for the match (who was dealt how much luck, and the result without it), one per game.
Figures are side 0's; the line names side 0's bots."""

from __future__ import annotations

from typing import Any


def _side_names(match: dict[str, Any], side: int) -> str:
    names = [
        str(e["name"])
        for k, e in enumerate(match.get("entrants") or [])
        if int(e.get("side", k % 2)) == side
    ]
    return " & ".join(names) or f"side {side}"


def luck_lines(match: dict[str, Any]) -> list[str]:
    """The luck lines of a match (none when it has no luck: not played, or stored before luck
    was computed)."""
    luck = match.get("luck")
    if not isinstance(luck, dict):
        return []
    who = _side_names(match, 0)
    lines = [
        f"  luck   {who} was dealt {luck['tantos']:+.1f} tantos of luck over the match "
        f"({luck['win']:+.2f} games' worth of chance); without it: {luck['adjusted_tantos']:+.1f} "
        f"tantos, {luck['adjusted_games']:+.2f} games (model {luck['model']})"
    ]
    for game in luck.get("games") or []:
        won = game.get("adjusted_win")
        adjusted = "" if won is None else f", a win worth {won:.2f}"
        lines.append(
            f"  game {game['number']}: luck {game['tantos']:+.1f} tantos ({game['win']:+.2f} of "
            f"the game's chance); without it {game['adjusted_tantos']:+.1f} tantos{adjusted}"
        )
    return lines
