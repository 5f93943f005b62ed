"""Decode the JSON tournament file used by ``truco pair`` and ``truco standings`` (no I/O).

Format::

    {"players": [{"id": 1, "rating": 1800}, ...],
     "rounds": [[{"a": 1, "b": 2, "result": "a"}, {"bye": 3}], ...],
     "total_rounds": 5}

Ids may be JSON strings or integers (not booleans); ``1`` and ``"1"`` are the same id twice
and rejected. ``rating`` defaults to 1500. A match entry may also carry ``"mano"`` (an id of
the match; default ``a``), ``"games": [a, b]`` and ``"tantos": [a, b]`` (default 0).
"""

from __future__ import annotations

from typing import Any

import msgspec

from services.tournaments.model import (
    PlayedMatch,
    Player,
    PlayerId,
    Round,
    TournamentDataError,
    validate,
)


class TournamentFile(msgspec.Struct, frozen=True):
    players: tuple[Player, ...]
    rounds: tuple[Round, ...]
    total_rounds: int | None


class FileError(ValueError):
    """The file is not a valid tournament description; the message says where and why."""


def _id(value: Any, where: str) -> PlayerId:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise FileError(f"{where}: an id must be a string or an integer, not {value!r}")
    return value


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FileError(f"{where}: expected a non-negative integer, not {value!r}")
    return value


def _pair(entry: dict[str, Any], key: str, where: str) -> tuple[int, int]:
    value = entry.get(key, [0, 0])
    if not isinstance(value, list) or len(value) != 2:
        raise FileError(f"{where}: {key!r} must be a list [a, b], not {value!r}")
    return _int(value[0], f"{where}.{key}[0]"), _int(value[1], f"{where}.{key}[1]")


def _player(entry: Any, where: str) -> Player:
    if not isinstance(entry, dict):
        raise FileError(f"{where}: a player must be an object, not {entry!r}")
    if "id" not in entry:
        raise FileError(f"{where}: missing key 'id'")
    rating = entry.get("rating", 1500)
    if isinstance(rating, bool) or not isinstance(rating, int | float):
        raise FileError(f"{where}: rating must be a number, not {rating!r}")
    return Player(id=_id(entry["id"], f"{where}.id"), rating=float(rating))


def _round(entries: Any, where: str) -> Round:
    if not isinstance(entries, list):
        raise FileError(f"{where}: a round must be a list, not {entries!r}")
    matches: list[PlayedMatch] = []
    byes: list[PlayerId] = []
    for k, entry in enumerate(entries):
        at = f"{where}[{k}]"
        if not isinstance(entry, dict):
            raise FileError(f"{at}: expected an object, not {entry!r}")
        if "bye" in entry:
            byes.append(_id(entry["bye"], f"{at}.bye"))
            continue
        for key in ("a", "b", "result"):
            if key not in entry:
                raise FileError(f"{at}: missing key {key!r}")
        result = entry["result"]
        if result not in ("a", "b", "draw"):
            raise FileError(f'{at}: result must be "a", "b" or "draw", not {result!r}')
        games = _pair(entry, "games", at)
        tantos = _pair(entry, "tantos", at)
        mano = entry.get("mano")
        matches.append(
            PlayedMatch(
                a=_id(entry["a"], f"{at}.a"),
                b=_id(entry["b"], f"{at}.b"),
                result=result,
                games_a=games[0],
                games_b=games[1],
                tantos_a=tantos[0],
                tantos_b=tantos[1],
                mano=None if mano is None else _id(mano, f"{at}.mano"),
            )
        )
    return Round(matches=tuple(matches), byes=tuple(byes))


def parse_tournament(data: bytes | str) -> TournamentFile:
    """Decode and check a tournament file; raise :class:`FileError` with a clear message."""
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError as exc:
        raise FileError(f"not valid JSON: {exc}") from None
    if not isinstance(raw, dict):
        raise FileError("the file must hold a JSON object with 'players' and 'rounds'")
    if "players" not in raw:
        raise FileError("missing key 'players'")
    if not isinstance(raw["players"], list):
        raise FileError("'players' must be a list")
    rounds_raw = raw.get("rounds", [])
    if not isinstance(rounds_raw, list):
        raise FileError("'rounds' must be a list of rounds")
    players = tuple(_player(p, f"players[{k}]") for k, p in enumerate(raw["players"]))
    rounds = tuple(_round(r, f"rounds[{k}]") for k, r in enumerate(rounds_raw))
    total = raw.get("total_rounds")
    if total is not None:
        total = _int(total, "total_rounds")
    try:
        validate(players, rounds)
    except TournamentDataError as exc:
        raise FileError(str(exc)) from None
    return TournamentFile(players=players, rounds=rounds, total_rounds=total)
