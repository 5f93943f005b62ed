"""The features of a deal that the luck model weighs, from the mano's team's side.

A deal is read by positions counted from the mano (position 0 is the mano, even positions its
team). The features are fixed here; the weights are fitted (``tools/luck_fit.py``) and shipped
in the model file. Two kinds:

- **one seat's cards** at each position: the three strengths, a top card (1 of espada or of
  basto), envido points and thresholds, a flor and its points;
- **how the teams' cards meet**: the teams' best three strengths compared rank by rank, who
  wins the rounds of a canonical play (:mod:`arena.luck.canonical`; 1v1 only: in 2v2 it cost
  19 µs a deal and improved the fit by little, so its features are zero there), who wins the
  envido (the team with the best points, ties to the more mano) and how high it is, who wins
  a flor against flor.

With flor off (R-7) three of a suit are an envido (their envido points already say so) and the
flor features are zero.
"""

from __future__ import annotations

from typing import Final

from arena.luck.canonical import canonical_play
from arena.luck.hands import HandInfo

SEAT_FEATURES: Final = (
    "high",
    "mid",
    "low",
    "top_card",
    "high_x_mid",
    "envido",
    "envido_27",
    "envido_30",
    "flor",
    "flor_points",
)
MEET_FEATURES: Final = (
    "rank_1",
    "rank_2",
    "rank_3",
    "ranks_won_2",
    "ranks_lost_2",
    "ranks_net",
    "rounds_winner",
    "rounds_winner_x_best",
    "rounds_winner_x_total",
    "rounds_net",
    "envido_winner",
    "envido_winner_27",
    "envido_winner_30",
    "envido_winner_33",
    "envido_both_27",
    "flor_winner",
    "flor_winner_35",
)


def feature_names(players: int) -> tuple[str, ...]:
    """The names of :func:`deal_features`' entries, in order."""
    seats = tuple(f"p{p}_{name}" for p in range(players) for name in SEAT_FEATURES)
    return ("const", *seats, *MEET_FEATURES)


def seat_features(info: HandInfo, flor: bool) -> list[float]:
    """The features of one seat's cards (:data:`SEAT_FEATURES`)."""
    low, mid, high, envido, has_flor, flor_points, _ = info
    with_flor = flor and has_flor
    return [
        high,
        mid,
        low,
        1.0 if high >= 13 else 0.0,
        high * mid / 14.0,
        envido,
        1.0 if envido >= 27 else 0.0,
        1.0 if envido >= 30 else 0.0,
        1.0 if with_flor else 0.0,
        flor_points / 10.0 if with_flor else 0.0,
    ]


def _contest(infos: tuple[HandInfo, ...], flor: bool) -> tuple[int, int, bool]:
    """The best envido (``flor``: flor points) of team 0 and of team 1, and whether team 0's
    wins: the higher points, a tie to the seat more mano (the earlier position)."""
    if len(infos) == 2:
        a = infos[0].flor_points if flor else infos[0].envido
        b = infos[1].flor_points if flor else infos[1].envido
        return a, b, a >= b
    i0, i1, i2, i3 = infos
    if flor:
        p0, p1, p2, p3 = i0.flor_points, i1.flor_points, i2.flor_points, i3.flor_points
    else:
        p0, p1, p2, p3 = i0.envido, i1.envido, i2.envido, i3.envido
    a, at_a = (p0, 0) if p0 >= p2 else (p2, 2)
    b, at_b = (p1, 1) if p1 >= p3 else (p3, 3)
    return a, b, a > b or (a == b and at_a < at_b)


def meet_features(infos: tuple[HandInfo, ...], flor: bool) -> list[float]:
    """The features of how the teams' cards meet (:data:`MEET_FEATURES`); ``flor`` is the
    rules' option."""
    if len(infos) == 2:
        mano, other = infos
        o3, o2, o1 = mano.strengths
        t3, t2, t1 = other.strengths
        winner, net = canonical_play((mano.strengths, other.strengths))
        rounds = 1.0 if winner == 0 else -1.0
        flor0 = flor and mano.flor
        flor1 = flor and other.flor
    else:  # in 2v2 the canonical play costs more than it tells (docs/luck.md): left out
        o3, o2, o1 = sorted(infos[0].strengths + infos[2].strengths)[3:]
        t3, t2, t1 = sorted(infos[1].strengths + infos[3].strengths)[3:]
        rounds, net = 0.0, 0
        flor0 = flor and (infos[0].flor or infos[2].flor)
        flor1 = flor and (infos[1].flor or infos[3].flor)
    r1 = (o1 > t1) - (o1 < t1)
    r2 = (o2 > t2) - (o2 < t2)
    r3 = (o3 > t3) - (o3 < t3)
    won = (r1 > 0) + (r2 > 0) + (r3 > 0)
    lost = (r1 < 0) + (r2 < 0) + (r3 < 0)
    envido_w = envido_27 = envido_30 = envido_33 = both_27 = 0.0
    flor_w = flor_35 = 0.0
    if not (flor0 or flor1):  # a flor cancels the envido
        ours, theirs, first = _contest(infos, False)
        envido_w = 1.0 if first else -1.0
        top, bottom = (ours, theirs) if ours >= theirs else (theirs, ours)
        envido_27 = envido_w if top >= 27 else 0.0
        envido_30 = envido_w if top >= 30 else 0.0
        envido_33 = envido_w if top >= 33 else 0.0
        both_27 = envido_w if bottom >= 27 else 0.0
    elif flor0 and flor1:
        ours, theirs, first = _contest(infos, True)
        flor_w = 1.0 if first else -1.0
        flor_35 = flor_w if (ours if ours >= theirs else theirs) >= 35 else 0.0
    return [
        r1,
        r2,
        r3,
        1.0 if won >= 2 else 0.0,
        1.0 if lost >= 2 else 0.0,
        won - lost,
        rounds,
        rounds * (o1 + t1) / 14.0,
        rounds * (o1 + o2 + o3 + t1 + t2 + t3) / 28.0,
        net,
        envido_w,
        envido_27,
        envido_30,
        envido_33,
        both_27,
        flor_w,
        flor_35,
    ]


def deal_features(infos: tuple[HandInfo, ...], flor: bool) -> list[float]:
    """The feature vector of a deal: ``infos[p]`` is the hand at position ``p`` from the mano;
    ``flor`` is the rules' option (R-7)."""
    out: list[float] = [1.0]
    for info in infos:
        out.extend(seat_features(info, flor))
    out.extend(meet_features(infos, flor))
    return out
