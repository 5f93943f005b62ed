"""The luck of a played match, by side, from its replay (docs/luck.md).

:func:`match_luck` reads every game of a replay through the luck model
(:func:`arena.luck.game_luck`) and turns it to the sides' view: side 0 is entrant 0 (and 2),
whatever team it sat as in each game. Per hand, per game and over the match it gives side 0's
luck in tantos and in game chance (side 1's is the opposite) and the adjusted result, the raw
result minus the luck. Figures are rounded to :data:`DIGITS` decimals; :func:`differences`
compares a recorded document with a recomputed one (what ``truco verify`` does).
"""

from __future__ import annotations

from typing import Final, NamedTuple

import msgspec

from arena.luck import LATEST, LuckModel, game_luck, load_model
from arena.match.replay import GameRecord, Replay
from engine.rules import Rules

DIGITS: Final = 4
TOLERANCE: Final = 1.5 * 10**-DIGITS
"""How far a recorded figure may be from a recomputed one (a rounding on another machine)."""


def _r(value: float) -> float:
    return round(value, DIGITS) + 0.0  # + 0.0: never a negative zero


class HandLuckRecord(msgspec.Struct, frozen=True, kw_only=True):
    """One hand: its number in the game (from 0), the mano's seat, the points each side
    scored, and side 0's luck in tantos and in the game's chance."""

    hand: int
    mano: int
    points: tuple[int, int]
    tantos: float
    win: float


class GameLuckRecord(msgspec.Struct, frozen=True, kw_only=True):
    """One game from side 0's view: its luck summed over the hands, and the adjusted result:
    the point difference minus the luck in tantos, and 1 for a game won (0 lost) minus the
    luck in the game's chance (null for a game a forfeit cut short)."""

    number: int
    tantos: float
    win: float
    adjusted_tantos: float
    adjusted_win: float | None
    hands: tuple[HandLuckRecord, ...]


class MatchLuck(msgspec.Struct, frozen=True, kw_only=True):
    """A match's luck from side 0's view (side 1's is the opposite): ``model`` names the luck
    model (docs/luck.md); ``tantos`` and ``win`` sum the games; ``adjusted_tantos`` is the
    match's tantos difference minus ``tantos``, ``adjusted_games`` the games won by side 0
    minus those won by side 1, minus twice ``win``."""

    model: str
    tantos: float
    win: float
    adjusted_tantos: float
    adjusted_games: float
    games: tuple[GameLuckRecord, ...]


def match_luck(replay: Replay, version: str = LATEST) -> MatchLuck | None:
    """The luck of every game played in ``replay`` (None if it has none: a walkover)."""
    if not replay.games:
        return None
    model = load_model(version)
    games = [_game(model, replay.rules, game) for game in replay.games]
    tantos = sum(g.tantos for g in games)
    win = sum(g.win for g in games)
    won = replay.result.games_won
    difference = replay.result.tantos[0] - replay.result.tantos[1]
    return MatchLuck(
        model=model.version,
        tantos=_r(tantos),
        win=_r(win),
        adjusted_tantos=_r(difference - tantos),
        adjusted_games=_r(won[0] - won[1] - 2.0 * win),
        games=tuple(g.record for g in games),
    )


class _Game(NamedTuple):
    record: GameLuckRecord
    tantos: float  # unrounded, side 0's
    win: float


def _game(model: LuckModel, rules: Rules, game: GameRecord) -> _Game:
    luck = game_luck(model, rules, game.events)
    sign = 1.0 if game.teams[0] == 0 else -1.0  # side 0 sat as team 0, or as team 1
    side0 = 0 if sign > 0 else 1  # side 0's team
    hands = tuple(
        HandLuckRecord(
            hand=h.hand,
            mano=h.mano,
            points=(h.points[side0], h.points[1 - side0]),
            tantos=_r(sign * h.tantos),
            win=_r(sign * h.win),
        )
        for h in luck.hands
    )
    tantos, win = sign * luck.tantos, sign * luck.win
    difference = game.score[side0] - game.score[1 - side0]
    adjusted_win = None if game.winner is None else float(game.winner == 0) - win
    record = GameLuckRecord(
        number=game.number,
        tantos=_r(tantos),
        win=_r(win),
        adjusted_tantos=_r(difference - tantos),
        adjusted_win=None if adjusted_win is None else _r(adjusted_win),
        hands=hands,
    )
    return _Game(record, tantos, win)


def side_luck(luck: MatchLuck, side: int) -> tuple[float, float]:
    """A side's luck over the match: (tantos, game chance)."""
    sign = 1.0 if side == 0 else -1.0
    return sign * luck.tantos + 0.0, sign * luck.win + 0.0


def differences(recorded: MatchLuck, computed: MatchLuck) -> list[str]:
    """Where a recorded luck document differs from the recomputed one, beyond
    :data:`TOLERANCE` (a figure, a hand's points, the model, the games or hands present)."""
    found: list[str] = []

    def figures(
        where: str, mine: msgspec.Struct, theirs: msgspec.Struct, names: tuple[str, ...]
    ) -> None:
        for name in names:
            a, b = getattr(mine, name), getattr(theirs, name)
            if isinstance(a, float) and isinstance(b, float):
                if abs(a - b) > TOLERANCE:
                    found.append(f"{where}{name} recorded {a}, recomputed {b}")
            elif a != b:
                found.append(f"{where}{name} recorded {a!r}, recomputed {b!r}")

    figures("", recorded, computed, ("model", "tantos", "win", "adjusted_tantos", "adjusted_games"))
    if len(recorded.games) != len(computed.games):
        found.append(f"{len(recorded.games)} games recorded, {len(computed.games)} played")
        return found
    game_names = ("number", "tantos", "win", "adjusted_tantos", "adjusted_win")
    hand_names = ("hand", "mano", "points", "tantos", "win")
    for mine, theirs in zip(recorded.games, computed.games, strict=True):
        figures(f"game {theirs.number} ", mine, theirs, game_names)
        if len(mine.hands) != len(theirs.hands):
            found.append(
                f"game {theirs.number}: {len(mine.hands)} hands recorded, {len(theirs.hands)} played"
            )
            continue
        for a, b in zip(mine.hands, theirs.hands, strict=True):
            figures(f"game {theirs.number} hand {b.hand + 1} ", a, b, hand_names)
    return found
