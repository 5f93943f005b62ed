"""The collusion detector (pure): a bot whose ladder results against one opponent, or against
one owner's bots, lie far outside what its results against everyone else predict.

Two accounts' bots that concede (mazo, no quiero) only against one target give it wins no
rating explains (issue 33: 12 of 12 within three minutes, and the target second on the
ladder). The pool's fit cannot be the yardstick: it has already absorbed those wins into the
target's rating. So, for each group of a bot's results (against one bot; against one owner's
bots), the detector leaves the group out:

1. it estimates the bot's strength from its other results alone (a one-dimensional maximum of
   the same Bradley-Terry likelihood the fit uses, with the fit's one virtual draw as prior,
   the opponents' and partners' fitted ratings held fixed), leaving out too the owners whose
   results already stand out (two standard errors): two accomplice accounts would otherwise
   hide each other, each raising the yardstick the other is judged by;
2. it predicts the group's results from that strength: each match's chance ``p``;
3. it measures how far the group's score is from the prediction, in standard errors, counting
   the uncertainty of the estimate too::

       z = (score - sum p) / sqrt(sum p (1 - p) + (sum p (1 - p) / k)^2 / information_rest)

   (``k`` bots a side: a bot's strength moves its side's by ``1 / k``).

A win or a loss says little (a concession is one win the prediction gave, say, even odds), so
the detector also weighs the points: a bot that concedes every hand loses 15-0, where a game
between bots of similar strength ends about 15-9. Over the pool, the share of a match's points
a side takes is ``0.5 + b (p - 0.5)`` on average, with spread ``sigma`` (``b`` and ``sigma``
fitted on every result given); the group's shares are compared with that prediction the same
way::

    z_points = sum (share - 0.5 - b (p - 0.5)) / (sigma sqrt(n))

The pair's ``z`` is whichever of the two is further from 0.

``|z|`` of ``sigmas`` (``TRUCO_LADDER_COLLUSION_SIGMAS``, 3) or more, with at least
``min_matches`` results in the group and in the rest, flags the pair: the target scores far
above its prediction against its accomplices, each accomplice far below against it. Honest
results against one opponent stray from their prediction by chance only: about one honest
group in 200 reaches 3 standard errors on one of the two measures. That is why a flag is
evidence for an admin, never a verdict: the admin annuls the pair's ladder results or dismisses
the flag (:mod:`services.flow.ladder_integrity`). Why 3 and not 4: the yardstick is the bot's
own strength from its other results, itself uncertain, and that uncertainty is counted; 27
concessions (every one a win, at points 78% of the match against 58% predicted) measured 3.5
and 4.1 in the test of two colluding accounts, so at 4 one of the two would have gone unflagged.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Literal

import msgspec

AgainstKind = Literal["bot", "owner"]
Q = math.log(10) / 400
"""Log-odds per Elo point."""


class LadderResult(msgspec.Struct, frozen=True):
    """One bot's result in one ladder match, from its own side: its opponent (each of two in
    individual 2v2 gives a result), the opponent's owner, its score (1, 0.5, 0), its partner's
    fitted rating (None in 1v1) and the opposing side's (its bots' mean), Elo."""

    bot: int
    opponent: int
    opponent_owner: int
    score: float
    partner: float | None
    opposing: float
    match_id: int
    own: float = 0.0  # the bot's fitted rating (for the pool's points calibration)
    share: float | None = None  # its side's share of the match's points (None: none scored)


class Evidence(msgspec.Struct, frozen=True):
    """What the admin sees: the group's results against its prediction from the bot's other
    results, the bot's strength estimated from those, and how far apart (``z``)."""

    matches: int
    score: float
    expected: float
    others_matches: int
    others_score: float
    strength_from_others: float
    z: float
    z_results: float
    z_points: float | None
    points_share: float | None
    expected_share: float | None
    match_ids: tuple[int, ...]


class Suspect(msgspec.Struct, frozen=True):
    """A flagged pair: ``bot``'s results against ``against`` (a bot, or an owner's bots)."""

    bot: int
    against_kind: AgainstKind
    against: int
    evidence: Evidence


def _chance(strength: float, result: LadderResult) -> float:
    own = strength if result.partner is None else (strength + result.partner) / 2
    return 1.0 / (1.0 + math.exp(-Q * (own - result.opposing)))


def _share(result: LadderResult) -> float:
    """How much of its side's strength the bot is (1 in 1v1, 1/2 with a partner)."""
    return 1.0 if result.partner is None else 0.5


def strength_from(results: Sequence[LadderResult], centre: float) -> tuple[float, float]:
    """(the bot's strength that best explains ``results``, the information it has, in
    Elo^-2): Newton's method on the Bradley-Terry log-likelihood plus one virtual draw
    against ``centre``."""
    strength = centre
    information = 0.0
    for _ in range(50):
        prior_p = 1.0 / (1.0 + math.exp(-Q * (strength - centre)))
        gradient = Q * (0.5 - prior_p)
        information = Q * Q * prior_p * (1 - prior_p)
        for result in results:
            p = _chance(strength, result)
            a = Q * _share(result)
            gradient += a * (result.score - p)
            information += a * a * p * (1 - p)
        step = gradient / information
        strength += max(-400.0, min(400.0, step))
        if abs(step) < 1e-6:
            break
    return strength, information


def suspects(results: Iterable[LadderResult], *, sigmas: float, min_matches: int) -> list[Suspect]:
    """Every (bot, opponent) and (bot, opponent's owner) pair whose results lie ``sigmas``
    standard errors or more from what the bot's other results predict, strongest first."""
    every = list(results)
    points = points_model(every)
    by_bot: dict[int, list[LadderResult]] = defaultdict(list)
    for result in every:
        by_bot[result.bot].append(result)
    found = []
    for bot, mine in by_bot.items():
        centre = sum(r.opposing for r in mine) / len(mine)
        odd = _odd_owners(mine, centre, points, min_matches)
        for kind, key in (("bot", "opponent"), ("owner", "opponent_owner")):
            groups: dict[int, list[LadderResult]] = defaultdict(list)
            for result in mine:
                groups[getattr(result, key)].append(result)
            for against, inside in groups.items():
                suspect = _judge(
                    bot, kind, against, inside, _rest(mine, inside, odd, min_matches), centre,
                    points, sigmas, min_matches,
                )  # fmt: skip
                if suspect is not None:
                    found.append(suspect)
    found.sort(key=lambda s: (-abs(s.evidence.z), s.bot, s.against_kind, s.against))
    return found


MIN_CALIBRATION = 20
"""Results with points a pool needs before the points are weighed at all."""


def points_model(results: Sequence[LadderResult]) -> tuple[float, float] | None:
    """``(b, sigma)``: a side's share of the points against its chance by the fit, over the
    pool (least squares through 0.5), or None with too few results to tell."""
    pairs = [
        (_chance(r.own, r) - 0.5, r.share - 0.5) for r in _once(results) if r.share is not None
    ]
    if len(pairs) < MIN_CALIBRATION:
        return None
    spread_x = sum(x * x for x, _ in pairs)
    b = sum(x * y for x, y in pairs) / spread_x if spread_x > 0 else 0.0
    sigma = math.sqrt(sum((y - b * x) ** 2 for x, y in pairs) / len(pairs))
    return (b, sigma) if sigma > 0 else None


def _once(results: Sequence[LadderResult]) -> list[LadderResult]:
    """One result per match (in individual 2v2 a bot has one per opponent, and a match is one
    piece of evidence, not two)."""
    seen: set[int] = set()
    out = []
    for result in results:
        if result.match_id not in seen:
            seen.add(result.match_id)
            out.append(result)
    return out


SCREEN = 2.0
"""Owners whose results a bot's yardstick leaves out: ``|z|`` this far from it already."""


def _odd_owners(
    mine: Sequence[LadderResult],
    centre: float,
    points: tuple[float, float] | None,
    min_matches: int,
) -> set[int]:
    """The owners whose results stand out from the bot's others (``|z| >= SCREEN``), found
    again and again with each found one left out of the yardstick (at most 5 rounds): two
    accomplice accounts must not hide each other, each inflating the yardstick the other is
    judged by (the attack had two)."""
    odd: set[int] = set()
    owners: dict[int, list[LadderResult]] = defaultdict(list)
    for result in mine:
        owners[result.opponent_owner].append(result)
    for _ in range(5):
        now = set()
        for owner, inside in owners.items():
            rest = _rest(mine, inside, odd - {owner}, min_matches)
            judged = _judge(0, "owner", owner, inside, rest, centre, points, SCREEN, min_matches)
            if judged is not None:
                now.add(owner)
        if now == odd:
            break
        odd = now
    return odd


def _rest(
    mine: Sequence[LadderResult],
    inside: Sequence[LadderResult],
    odd: set[int],
    min_matches: int,
) -> list[LadderResult]:
    """The bot's results outside ``inside`` that its strength is estimated from: without the
    owners that stand out, unless too few results would be left."""
    chosen = {r.match_id for r in inside}
    rest = [r for r in mine if r.match_id not in chosen]
    plain = [r for r in rest if r.opponent_owner not in odd]
    return plain if len(_once(plain)) >= min_matches else rest


def _judge(
    bot: int,
    kind: str,
    against: int,
    inside: Sequence[LadderResult],
    others: Sequence[LadderResult],
    centre: float,
    points: tuple[float, float] | None,
    sigmas: float,
    min_matches: int,
) -> Suspect | None:
    inside = _once(inside)
    rest = _once(others)
    if len(inside) < min_matches or len(rest) < min_matches:
        return None
    strength, information = strength_from(rest, centre)
    chances = [_chance(strength, r) for r in inside]
    expected = sum(chances)
    variance = sum(p * (1 - p) for p in chances)
    slope = sum(Q * _share(r) * p * (1 - p) for r, p in zip(inside, chances, strict=True))
    spread = math.sqrt(variance + slope * slope / information)
    score = sum(r.score for r in inside)
    z_results = (score - expected) / spread if spread > 0 else 0.0
    z_points = share = expected_share = None
    scored = [(r, p) for r, p in zip(inside, chances, strict=True) if r.share is not None]
    if points is not None and len(scored) >= min_matches:
        b, sigma = points
        share = sum(r.share or 0.0 for r, _ in scored) / len(scored)
        expected_share = sum(0.5 + b * (p - 0.5) for _, p in scored) / len(scored)
        z_points = (share - expected_share) * math.sqrt(len(scored)) / sigma
    z = z_results if z_points is None or abs(z_results) >= abs(z_points) else z_points
    if abs(z) < sigmas:
        return None
    evidence = Evidence(
        matches=len(inside),
        score=score,
        expected=round(expected, 3),
        others_matches=len(rest),
        others_score=sum(r.score for r in rest),
        strength_from_others=round(strength, 1),
        z=round(z, 2),
        z_results=round(z_results, 2),
        z_points=None if z_points is None else round(z_points, 2),
        points_share=None if share is None else round(share, 3),
        expected_share=None if expected_share is None else round(expected_share, 3),
        match_ids=tuple(sorted({r.match_id for r in inside})),
    )
    return Suspect(bot, "bot" if kind == "bot" else "owner", against, evidence)
