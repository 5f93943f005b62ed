"""The deal's features (arena/luck/features.py) are the ones the shipped model was fitted on:
the fast form the model evaluates gives, on random deals in every mode, exactly what a plain
statement of each feature gives (written here from docs/luck.md and R-6, R-7)."""

from __future__ import annotations

import random

import pytest

from arena.luck.canonical import canonical_play
from arena.luck.features import MEET_FEATURES, meet_features
from arena.luck.hands import HandInfo, hand_info
from engine import DECK


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def plain(infos: tuple[HandInfo, ...], flor: bool) -> list[float]:
    n = len(infos)
    top3 = [
        sorted((s for pos in range(team, n, 2) for s in infos[pos].strengths), reverse=True)[:3]
        for team in (0, 1)
    ]
    ranks = [_sign(a - b) for a, b in zip(top3[0], top3[1], strict=True)]
    won, lost = ranks.count(1), ranks.count(-1)
    if n == 2:
        winner, net = canonical_play(tuple(i.strengths for i in infos))
        rounds = 1.0 if winner == 0 else -1.0
    else:
        rounds, net = 0.0, 0
    flor_teams = {pos % 2 for pos in range(n) if flor and infos[pos].flor}

    def best(team: int, points_of: str) -> tuple[int, int]:
        cands = [(getattr(infos[p], points_of), -p) for p in range(team, n, 2)]
        return max(cands)  # the highest points, then the earliest position

    features = [0.0] * 7
    if not flor_teams:
        a, b = best(0, "envido"), best(1, "envido")
        w = 1.0 if a > b else -1.0
        top, bottom = max(a[0], b[0]), min(a[0], b[0])
        features[:5] = [w, w * (top >= 27), w * (top >= 30), w * (top >= 33), w * (bottom >= 27)]
    elif len(flor_teams) == 2:
        a, b = best(0, "flor_points"), best(1, "flor_points")
        w = 1.0 if a > b else -1.0
        features[5:] = [w, w * (max(a[0], b[0]) >= 35)]
    return [
        *ranks,
        float(won >= 2),
        float(lost >= 2),
        won - lost,
        rounds,
        rounds * (top3[0][0] + top3[1][0]) / 14.0,
        rounds * (sum(top3[0]) + sum(top3[1])) / 28.0,
        net,
        *features,
    ]


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("flor", [True, False])
def test_the_fast_features_are_the_plain_ones(players: int, flor: bool) -> None:
    rng = random.Random(f"features/{players}/{flor}")
    flores = 0
    for _ in range(20_000):
        cards = rng.sample(DECK, 3 * players)
        if rng.random() < 0.2:  # more flores than chance deals: three of a suit for seat 0
            suit = rng.choice("EBOC")
            own = rng.sample([c for c in DECK if c.endswith(suit)], 3)
            rest = [c for c in cards if c not in own]
            cards = own + rest[: 3 * players - 3]
        infos = tuple(hand_info(cards[3 * s : 3 * s + 3]) for s in range(players))
        flores += sum(i.flor for i in infos) >= 2
        fast = meet_features(infos, flor)
        assert len(fast) == len(MEET_FEATURES)
        assert fast == pytest.approx(plain(infos, flor), abs=1e-12), infos
    assert flores > 100  # flor against flor was exercised
