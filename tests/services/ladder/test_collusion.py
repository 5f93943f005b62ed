"""The collusion detector on plain data (services/ladder/collusion.py): concessions against one
owner stand out even when a second accomplice's hide in the yardstick; honest results do not."""

from __future__ import annotations

import random

from services.ladder.collusion import LadderResult, strength_from, suspects


def honest(bot: int, rng: random.Random, n: int) -> list[LadderResult]:
    """``n`` results of a bot at 1500 against opponents at 1500 of eight owners: half won,
    with point shares around a half."""
    return [
        LadderResult(
            bot=bot,
            opponent=100 + k % 8,
            opponent_owner=100 + k % 8,
            score=float(k % 2),
            partner=None,
            opposing=1500.0,
            match_id=bot * 10_000 + k,
            own=1500.0,
            share=min(max(rng.gauss(0.58 if k % 2 else 0.42, 0.12), 0.0), 1.0),
        )
        for k in range(n)
    ]


def concessions(bot: int, owner: int, start: int, n: int) -> list[LadderResult]:
    """``n`` wins of ``bot`` over two bots of ``owner`` that concede: 15-1, 15-2."""
    return [
        LadderResult(bot, owner * 10 + k % 2, owner, 1.0, None, 1500.0, start + k, 1500.0, 0.9)
        for k in range(n)
    ]


def test_two_accomplices_are_both_flagged_and_an_honest_bot_is_not() -> None:
    rng = random.Random(4)
    target = honest(1, rng, 40) + concessions(1, 7, 1000, 12) + concessions(1, 8, 2000, 12)
    others = [r for b in range(2, 12) for r in honest(b, random.Random(b), 60)]
    found = suspects(target + others, sigmas=3.0, min_matches=6)
    flagged = {(s.bot, s.against_kind, s.against) for s in found}
    assert {(1, "owner", 7), (1, "owner", 8)} <= flagged
    evidence = next(s.evidence for s in found if (s.bot, s.against) == (1, 7))
    assert evidence.matches == 12 and evidence.score == 12 and evidence.z >= 3
    assert evidence.strength_from_others < 1530  # the other accomplice left out of it
    assert not [s for s in found if s.bot != 1 and abs(s.evidence.z) >= 4]


def test_accomplices_are_flagged_when_most_of_the_bots_results_are_their_concessions() -> None:
    # (the CI run that failed: the target's wins over two accomplices outnumbered its honest
    # results, and the honest owners were the ones that stood out from the rest)
    rng = random.Random(7)
    target = [
        LadderResult(1, 100 + o, 100 + o, float((k + o) % 2), None, 1500.0, 1000 * o + k,
                     1500.0, min(max(rng.gauss(0.5, 0.12), 0.0), 1.0))
        for o in range(4)
        for k in range(8)
    ]  # fmt: skip
    target += concessions(1, 7, 10_000, 40) + concessions(1, 8, 20_000, 40)
    others = [r for b in range(2, 12) for r in honest(b, random.Random(b), 60)]
    found = suspects(target + others, sigmas=3.0, min_matches=6)
    on_target = {s.against: s.evidence for s in found if s.bot == 1 and s.against_kind == "owner"}
    assert {7, 8} <= set(on_target)
    assert all(on_target[owner].strength_from_others < 1600 for owner in (7, 8))
    assert not {100, 101, 102, 103} & set(on_target)  # its honest opponents are not suspects


def test_an_accomplice_is_rated_by_its_matches_with_everyone_but_the_target() -> None:
    # the fit rated accomplice 70 at 1300 for the 20 matches it gave the target (fitted at
    # 1700): against that rating the wins were expected (p 0.91); its 40 other matches, half
    # won against bots at 1500, say it is a 1500 bot, and against that they were not
    target = [
        LadderResult(1, 100 + k % 4, 100 + k % 4, float(k // 4 % 2), None, 1500.0, k, 1700.0)
        for k in range(40)
    ]
    accomplice = [LadderResult(70, 200 + k % 4, 200 + k % 4, float(k // 4 % 2), None, 1500.0,
                               1000 + k, 1300.0) for k in range(40)]  # fmt: skip
    for k in range(20):
        target.append(LadderResult(1, 70, 7, 1.0, None, 1300.0, 2000 + k, 1700.0))
        accomplice.append(LadderResult(70, 1, 1, 0.0, None, 1700.0, 2000 + k, 1300.0))
    found = suspects(target + accomplice, sigmas=3.0, min_matches=6)
    on_target = next(s.evidence for s in found if (s.bot, s.against_kind) == (1, "owner"))
    assert abs(on_target.strength_from_others - 1500) < 5
    assert on_target.expected < 11  # about even odds each (against 1300: 15.3 of 20)
    assert on_target.z >= 3
    against_it = next(s.evidence for s in found if (s.bot, s.against) == (70, 1))
    assert against_it.z <= -3  # and the accomplice's losses, against the target's 1500


def test_too_few_matches_are_not_judged() -> None:
    target = honest(1, random.Random(1), 40) + concessions(1, 7, 1000, 5)
    target += [r for b in range(2, 8) for r in honest(b, random.Random(b), 40)]
    assert not [s for s in suspects(target, sigmas=3.0, min_matches=6) if s.against == 7]


def test_the_strength_from_results_is_their_maximum_likelihood() -> None:
    even = [LadderResult(1, 2, 2, float(k % 2), None, 1500.0, k) for k in range(200)]
    strength, information = strength_from(even, 1500.0)
    assert abs(strength - 1500.0) < 1e-3 and information > 0
    better = [LadderResult(1, 2, 2, float(k % 4 != 0), None, 1500.0, k) for k in range(200)]
    assert 180 < strength_from(better, 1500.0)[0] - 1500.0 < 200  # 75%: about 191 Elo
