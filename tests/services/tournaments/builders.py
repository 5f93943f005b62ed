"""Tiny builders for tournament tests: players, results, rounds and random Swiss histories."""

from __future__ import annotations

import random

from services.domain import SideResult
from services.tournaments.model import PlayedMatch, Player, PlayerId, Round
from services.tournaments.swiss.pairing import NoValidPairing, pair_round


def players(count: int, *, base: int = 2000) -> list[Player]:
    """Players 1..count with strictly decreasing ratings (id 1 is the top seed)."""
    return [Player(id=k, rating=float(base - 10 * k)) for k in range(1, count + 1)]


def win(a: PlayerId, b: PlayerId, **extra: int) -> PlayedMatch:
    return PlayedMatch(a=a, b=b, result="a", **extra)


def loss(a: PlayerId, b: PlayerId, **extra: int) -> PlayedMatch:
    return PlayedMatch(a=a, b=b, result="b", **extra)


def draw(a: PlayerId, b: PlayerId, **extra: int) -> PlayedMatch:
    return PlayedMatch(a=a, b=b, result="draw", **extra)


def round_of(*matches: PlayedMatch, bye: PlayerId | None = None) -> Round:
    return Round(matches=matches, byes=() if bye is None else (bye,))


def random_swiss(
    field: list[Player], rounds: int, seed: int, *, draw_share: float = 0.1
) -> list[Round]:
    """Play ``rounds`` Swiss rounds with our own pairing and seeded random results.

    Stops early (returning fewer rounds) when no rematch-free pairing is left.
    """
    rng = random.Random(seed)
    history: list[Round] = []
    weights = ((1 - draw_share) / 2, (1 - draw_share) / 2, draw_share)
    for _ in range(rounds):
        try:
            pairing = pair_round(field, history)
        except NoValidPairing:
            break
        matches = []
        for pair in pairing.pairs:
            result: SideResult = rng.choices(("a", "b", "draw"), weights=weights)[0]
            games = {"a": (2, rng.randint(0, 1)), "b": (rng.randint(0, 1), 2), "draw": (1, 1)}
            ga, gb = games[result]
            matches.append(
                PlayedMatch(
                    a=pair.a,
                    b=pair.b,
                    result=result,
                    games_a=ga,
                    games_b=gb,
                    tantos_a=rng.randint(0, 60),
                    tantos_b=rng.randint(0, 60),
                    mano=pair.mano,
                )
            )
        byes = () if pairing.bye is None else (pairing.bye,)
        history.append(Round(matches=tuple(matches), byes=byes))
    return history


def foreign_swiss(field: list[Player], rounds: int, seed: int) -> list[Round]:
    """A rematch-free history that our pairing would not make: each round pairs down a loosely
    sorted score order, each player with one of the next few it has not met, with random mano,
    the bye to a random low player without one, and seeded random results (10% draws).

    Stops early (returning fewer rounds) when the greedy pass gets stuck.
    """
    rng = random.Random(seed)
    points: dict[PlayerId, float] = {p.id: 0.0 for p in field}
    met: dict[PlayerId, set[PlayerId]] = {p.id: set() for p in field}
    had_bye: set[PlayerId] = set()
    history: list[Round] = []
    for _ in range(rounds):
        order = sorted(points, key=lambda pid: -points[pid] - rng.uniform(0, 1.5))
        byes: tuple[PlayerId, ...] = ()
        if len(order) % 2:
            eligible = [pid for pid in order[-4:] if pid not in had_bye]
            if not eligible:
                break
            byes = (rng.choice(eligible),)
            order.remove(byes[0])
        matches: list[PlayedMatch] = []
        while order:
            a = order.pop(0)
            options = [k for k, b in enumerate(order) if b not in met[a]][:3]
            if not options:
                return history
            b = order.pop(rng.choice(options))
            result: SideResult = rng.choices(("a", "b", "draw"), weights=(45, 45, 10))[0]
            matches.append(PlayedMatch(a=a, b=b, result=result, mano=rng.choice((a, b))))
        for match in matches:
            met[match.a].add(match.b)
            met[match.b].add(match.a)
            for pid in (match.a, match.b):
                points[pid] += match.points2(pid) / 2
        for pid in byes:
            had_bye.add(pid)
            points[pid] += 1
        history.append(Round(matches=tuple(matches), byes=byes))
    return history
