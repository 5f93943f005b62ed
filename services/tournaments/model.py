"""Plain data shared by the tournament modules: players, match results, rounds, pairings."""

from __future__ import annotations

import msgspec

from services.domain import SideResult

PlayerId = int | str
"""A player (bot or team) id. Ints and strings are both accepted; ``1`` and ``"1"`` clash."""


class Player(msgspec.Struct, frozen=True):
    """A registered player. ``rating`` decides the initial ranking (higher first)."""

    id: PlayerId
    rating: float = 1500.0


class PlayedMatch(msgspec.Struct, frozen=True):
    """One played match. ``mano`` played first in the first game (``None`` means ``a``)."""

    a: PlayerId
    b: PlayerId
    result: SideResult
    games_a: int = 0
    games_b: int = 0
    tantos_a: int = 0
    tantos_b: int = 0
    mano: PlayerId | None = None

    @property
    def mano_id(self) -> PlayerId:
        return self.a if self.mano is None else self.mano

    def points2(self, player: PlayerId) -> int:
        """Match points of ``player`` in half points: 2 win, 1 draw, 0 loss."""
        if self.result == "draw":
            return 1
        winner = self.a if self.result == "a" else self.b
        return 2 if player == winner else 0

    def opponent(self, player: PlayerId) -> PlayerId:
        return self.b if player == self.a else self.a

    def games(self, player: PlayerId) -> tuple[int, int]:
        """(games won, games lost) from ``player``'s side."""
        return (self.games_a, self.games_b) if player == self.a else (self.games_b, self.games_a)

    def tantos(self, player: PlayerId) -> tuple[int, int]:
        """(tantos scored, tantos conceded) from ``player``'s side."""
        return (
            (self.tantos_a, self.tantos_b) if player == self.a else (self.tantos_b, self.tantos_a)
        )


class Round(msgspec.Struct, frozen=True):
    """A finished round: its matches and the players who received the pairing bye."""

    matches: tuple[PlayedMatch, ...] = ()
    byes: tuple[PlayerId, ...] = ()


class Pair(msgspec.Struct, frozen=True):
    """A pairing for the next round; ``a`` is the higher-ranked player (board order)."""

    a: PlayerId
    b: PlayerId
    mano: PlayerId


class RoundPairing(msgspec.Struct, frozen=True):
    pairs: tuple[Pair, ...]
    bye: PlayerId | None


class TournamentDataError(ValueError):
    """The players and rounds given do not describe a consistent tournament."""


def id_key(player_id: PlayerId) -> tuple[int, int, str]:
    """A total order over mixed int/str ids (ints first), used only to break exact ties."""
    if isinstance(player_id, int):
        return (0, player_id, "")
    return (1, 0, player_id)


def same_id_space(player_id: PlayerId) -> str:
    """The canonical text of an id: ``1`` and ``"1"`` map to the same text (they clash)."""
    return str(player_id)


def initial_order(players: tuple[Player, ...] | list[Player]) -> list[Player]:
    """Initial ranking: rating descending, then id, so it never depends on input order."""
    return sorted(players, key=lambda p: (-p.rating, id_key(p.id)))


def validate(
    players: tuple[Player, ...] | list[Player], rounds: tuple[Round, ...] | list[Round]
) -> None:
    """Raise :class:`TournamentDataError` on duplicate or unknown ids, or a player twice a round."""
    seen: dict[str, PlayerId] = {}
    for player in players:
        text = same_id_space(player.id)
        if text in seen:
            raise TournamentDataError(f"duplicate player id {player.id!r}")
        seen[text] = player.id
    known = {p.id for p in players}
    for number, round_ in enumerate(rounds, start=1):
        used: set[PlayerId] = set()
        ids: list[PlayerId] = [pid for m in round_.matches for pid in (m.a, m.b)]
        ids.extend(round_.byes)
        for pid in ids:
            if pid not in known:
                raise TournamentDataError(f"round {number}: unknown player id {pid!r}")
            if pid in used:
                raise TournamentDataError(f"round {number}: player {pid!r} appears twice")
            used.add(pid)
        for match in round_.matches:
            if match.mano is not None and match.mano not in (match.a, match.b):
                raise TournamentDataError(
                    f"round {number}: mano {match.mano!r} is not in the match {match.a!r} v {match.b!r}"
                )
