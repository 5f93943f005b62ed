"""Export a finished Swiss as FIDE TRF(-16) text so chess tooling can check it.

Player lines (``001``), 1-based columns: 1-3 ``001``; 5-8 starting rank; 10 sex; 11-13 title;
15-47 name; 49-52 rating; 54-56 federation; 58-68 FIDE id; 70-79 birth date; 81-84 points
(``" 2.5"``); 86-89 final place; then one 10-column block per round starting at column 92:
92-95 opponent's starting rank (``0000`` if none), 97 colour, 99 result.

Mapping from Truco: the mano of the match plays "white" (``w``), the other "black" (``b``);
results ``1``/``=``/``0``; the pairing bye is ``0000 - U`` (pairing-allocated bye, one point),
an absence is ``0000 - Z`` (zero-point bye). A header gives ``012`` name, ``062`` player count,
``092`` type, ``XXR`` (the event's total number of rounds, the JaVaFo/bbpPairings
extension: a reference pairer reads it to know whether another round is due, so a running event
exports its planned total, not the rounds played so far) and ``XXC white1`` (the same extension:
the initial colour, which a reference pairer needs to pair a first round and refuses to guess).
``white1`` is the platform's rule (:func:`services.tournaments.swiss.mano.allocate_mano`): with
no history, the higher-placed player of a pair is mano when its pairing number is odd, so the
top seed is mano in round one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from services.tournaments.model import (
    Player,
    PlayerId,
    Round,
    TournamentDataError,
    initial_order,
    validate,
)
from services.tournaments.standings import compute_standings

ROUND_COLUMN = 92  # 1-based column of round one's opponent field
ROUND_WIDTH = 10
INITIAL_COLOUR = "XXC white1"  # pairing number 1 is mano ("white") in round one


def _put(line: list[str], column: int, text: str) -> None:
    """Write ``text`` at 1-based ``column``, growing the line as needed."""
    start = column - 1
    if len(line) < start + len(text):
        line.extend(" " * (start + len(text) - len(line)))
    line[start : start + len(text)] = list(text)


def _round_cells(
    player: PlayerId, round_: Round, start: dict[PlayerId, int]
) -> tuple[str, str, str]:
    for match in round_.matches:
        if player in (match.a, match.b):
            colour = "w" if player == match.mano_id else "b"
            result = {2: "1", 1: "=", 0: "0"}[match.points2(player)]
            return f"{start[match.opponent(player)]:4d}", colour, result
    if player in round_.byes:
        return "0000", "-", "U"
    return "0000", "-", "Z"


def player_line(
    player: Player,
    start_rank: int,
    points: float,
    place: int,
    rounds: Sequence[Round],
    start: dict[PlayerId, int],
    *,
    label: str | None = None,
    rated: bool = True,
) -> str:
    """One ``001`` line; ``label`` is the name field (default: the id), ``rated=False``
    leaves the rating field blank."""
    line: list[str] = []
    _put(line, 1, "001")
    _put(line, 5, f"{start_rank:4d}")
    _put(line, 15, f"{_printable(label or str(player.id))[:33]:<33}")
    _put(line, 49, f"{round(player.rating):4d}"[:4] if rated else "    ")
    _put(line, 81, f"{points:4.1f}")
    _put(line, 86, f"{place:4d}")
    for r, round_ in enumerate(rounds):
        opponent, colour, result = _round_cells(player.id, round_, start)
        column = ROUND_COLUMN + r * ROUND_WIDTH
        _put(line, column, opponent)
        _put(line, column + 5, colour)
        _put(line, column + 7, result)
    return "".join(line).rstrip()


def _printable(text: str) -> str:
    """``text`` on one line: control characters (a newline would start a new record) become
    spaces."""
    return "".join(" " if not ch.isprintable() else ch for ch in text)


def export_trf(
    players: Sequence[Player],
    rounds: Sequence[Round],
    *,
    total_rounds: int,
    name: str = "Truco Arena",
    names: Mapping[PlayerId, str] | None = None,
    places: Mapping[PlayerId, int] | None = None,
    ratings: bool = True,
) -> str:
    """The whole TRF document (lines end with ``\\n``); ``XXR`` is ``total_rounds``, the number
    of rounds the event is planned to have (at least the rounds already played).

    ``names`` fills the name field (default: the ids); ``places`` gives the final places
    (default: this module's standings with the default Swiss tiebreaks), so a platform passes
    the ranks it publishes; ``ratings=False`` leaves the rating field blank (when the players'
    ``rating`` only encodes their starting order)."""
    if total_rounds < len(rounds):
        raise TournamentDataError(
            f"total_rounds is {total_rounds} but {len(rounds)} rounds were played"
        )
    validate(list(players), list(rounds))
    ordered = initial_order(list(players))
    start = {p.id: k + 1 for k, p in enumerate(ordered)}
    standings = {s.id: s for s in compute_standings(players, rounds)}
    lines = [
        f"012 {_printable(name)}",
        f"062 {len(ordered)}",
        "092 Individual: Swiss-System",
        f"XXR {total_rounds}",
        INITIAL_COLOUR,
    ]
    for player in ordered:
        row = standings[player.id]
        place = row.place if places is None else places[player.id]
        lines.append(
            player_line(
                player,
                start[player.id],
                row.values["match_points"],
                place,
                rounds,
                start,
                label=None if names is None else names.get(player.id),
                rated=ratings,
            )
        )
    return "\n".join(lines) + "\n"
