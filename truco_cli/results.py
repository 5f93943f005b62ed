"""How the platform commands print a match's result and an event's standings.

A finished match is printed as the platform words it: the ``outcome`` the API computes with
:func:`services.tournaments.outcome.match_outcome` (winner first, the winner's score first, the
reason when it is not a plain win on games, partnerships in individual 2v2), decoded here into
the same typed struct. Standings take their columns from
:func:`services.tournaments.ranked.standing_columns`, the ranking's own order (the page's too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

from arena.match.replay import Replay
from services.domain.result import played_result
from services.tournaments.outcome import MatchOutcome, match_outcome
from services.tournaments.ranked import standing_columns
from truco_cli.api import table

COLUMN_LABELS = {
    "match_points": "pts",
    "wins": "w",
    "buchholz_cut1": "bh-1",
    "buchholz": "bh",
    "sonneborn_berger": "sb",
    "direct_encounter": "de",
    "game_points": "games",
    "tantos_difference": "+/-",
    "losses": "l",
    "seed": "seed",
}
"""A standings column's heading: the page's abbreviation (a test keeps them equal), lower case."""


def outcome(match: dict[str, Any]) -> MatchOutcome | None:
    """The API's ``outcome`` of a match (None while it is not over, or from an older platform
    that sends none)."""
    found = match.get("outcome")
    if found is None:
        return None
    try:
        return msgspec.convert(found, MatchOutcome)
    except msgspec.ValidationError:
        return None


@dataclass(frozen=True, slots=True)
class _Seat:
    bot_id: int | None
    name: str
    side: int


def replay_phrase(replay: Replay) -> str:
    """A local match's result (`truco play`), worded as the platform words one."""
    seats = [_Seat(None, entrant.name, k % 2) for k, entrant in enumerate(replay.entrants)]
    status = "forfeit" if replay.result.reason == "forfeit" else "done"
    found = match_outcome(
        status=status,
        bye=False,
        seats=seats,
        winner_side=replay.result.winner,
        result=played_result(replay, luck=False),
    )
    return found.phrase if found is not None else replay.result.reason


def versus(entrants: Sequence[dict[str, Any]]) -> str:
    """The sides of a match, partners joined by " & " (individual 2v2): "a & c vs b & d"."""
    sides: dict[int, list[str]] = {}
    for k, entrant in enumerate(entrants):
        sides.setdefault(int(entrant.get("side", k % 2)), []).append(str(entrant["name"]))
    return " vs ".join(" & ".join(names) for _, names in sorted(sides.items()))


def match_line(match: dict[str, Any]) -> str:
    """One line: the outcome's phrase, or who plays whom and the match's status."""
    found = outcome(match)
    if found is not None:
        return found.phrase
    return f"{versus(match['entrants'])}: {match['status']}"


def _number(value: Any) -> Any:
    """1.0 as 1 (as the page shows it), 1.5 as it is."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def standings_table(detail: dict[str, Any]) -> str:
    """The standings of a tournament document (``GET /v1/tournaments/ID``) with its format's
    columns in ranking order; the first column is the standing's ``points``."""
    standings = detail["standings"]
    if not standings:
        return "no standings yet"
    columns = standing_columns(detail["format"], detail.get("partnership") or "team")
    keys = ["points", *columns[1:]]
    rows = [
        [line["rank"], line["name"] + (" (withdrawn)" if line["withdrawn"] else "")]
        + [_number(line.get(key)) for key in keys]
        for line in standings
    ]
    heads = [COLUMN_LABELS.get(column, column) for column in columns]
    return table(["rank", "bot", *heads], rows)
