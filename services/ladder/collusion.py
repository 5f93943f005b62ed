"""The collusion detector (pure): a bot whose ladder results against one opponent, or against
one owner's bots, lie far outside what its results against everyone else predict.

Two accounts' bots that concede (mazo, no quiero) only against one target give it wins no
rating explains (issue 33: 12 of 12 within three minutes, and the target second on the
ladder). The pool's fit cannot be the yardstick: it has already absorbed those wins into the
target's rating. So, for each group of a bot's results (against one bot; against one owner's
bots), the detector leaves the group out:

1. it estimates the bot's strength from its other results alone (a one-dimensional maximum of
   the same Bradley-Terry likelihood the fit uses, with the fit's one virtual draw as prior,
   the partners' fitted ratings held fixed and each opponent at what its own results against
   everyone but the bot say, :func:`_fair`), leaving out too the owners whose
   results already stand out (two standard errors): two accomplice accounts would otherwise
   hide each other, each raising the yardstick the other is judged by. An owner stands out
   when its results are that far from what the bot's results against its other owners say
   (the median of the strengths each of them gives, each owner one vote): judged against all
   the other results, a bot whose results are mostly conceded wins would make its honest
   opponents the odd ones;
2. it predicts the group's results from that strength: each match's chance ``p``;
3. it measures how far the group's score is from the prediction, in standard errors, counting
   the uncertainty of the estimates too (the bot's, and each opponent's, ``o``)::

       z = (score - sum p) / sqrt(sum p (1 - p) + (sum p (1 - p) / k)^2 / information_rest
                                  + sum_o (sum_(matches with o) p (1 - p) / k)^2 / information_o)

   (``k`` bots a side: a bot's strength moves its side's by ``1 / k``; ``Q``, the log-odds of
   an Elo point, multiplies each ``p (1 - p)`` of the last two terms).

Why each opponent at its strength without the bot: the fit has absorbed the concessions into
both sides, the accomplice rated low for the matches it gave away and the target high, so
against fitted ratings a conceded win is much of what the prediction expected (in the test of
two colluding accounts, 60 conceded wins in a row measured z 3.5).

A win or a loss says little (a concession is one win the prediction gave, say, even odds), so
the detector also weighs the points: a bot that concedes every hand loses 15-0, where a game
between bots of similar strength ends about 15-9. Over the pool, the share of a match's points
a side takes is ``0.5 + b (p - 0.5)`` on average, with spread ``sigma`` (``b`` and ``sigma``
fitted on every result given); the group's shares are compared with that prediction the same
way::

    z_points = (mean share - mean (0.5 + b (p - 0.5))) / sqrt(sigma^2 / n + unsure)

(``unsure``: what the uncertainty of the bot's strength puts on the predicted mean share,
``(b mean(Q p (1 - p) / k))^2 / information_rest``.)

The pair's ``z`` is whichever of the two is further from 0.

``|z|`` of ``sigmas`` (``TRUCO_LADDER_COLLUSION_SIGMAS``, 3) or more, with at least
``min_matches`` results in the group and in the rest, flags the pair: the target scores far
above its prediction against its accomplices, each accomplice far below against it. Honest
results against one opponent stray from their prediction by chance only: about one honest
group in 100 reaches 3 standard errors on one of the two measures (a simulated honest pool of
16 bots, 600 matches and 100 seeds flagged one in 85, with this detector and with the one
before issue 34's changes alike; two independent normal measures would give one in 185). That
is why a flag is evidence for an admin, never a verdict: the admin annuls the pair's ladder
results or dismisses the flag (:mod:`services.flow.ladder_integrity`). Why 3 and not 4: the
yardstick is the bot's own strength from its other results, itself uncertain, and that
uncertainty is counted; in the test of two colluding accounts the accomplices are flagged at
z 3 to 5 by the time both are, so at 4 one of the two would often go unflagged. How soon
depends less on the number of concessions than on the target's honest results: a conceded
win says only as much as those let the detector know the target's strength.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Literal, NamedTuple

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
        gradient, information = _pull_at(results, strength)
        gradient += Q * (0.5 - prior_p)
        information += Q * Q * prior_p * (1 - prior_p)
        step = gradient / information
        strength += max(-400.0, min(400.0, step))
        if abs(step) < 1e-6:
            break
    return strength, information


PRIOR_INFORMATION = Q * Q / 4
"""The information of the fit's one virtual draw (Elo^-2)."""


def _pull_at(results: Sequence[LadderResult], strength: float) -> tuple[float, float]:
    """How hard ``results`` pull a bot's rating at ``strength`` (the Bradley-Terry
    log-likelihood's gradient there) and their information, Elo^-1 and Elo^-2."""
    gradient = information = 0.0
    for result in results:
        p = _chance(strength, result)
        a = Q * _share(result)
        gradient += a * (result.score - p)
        information += a * a * p * (1 - p)
    return gradient, information


def _pull(results: Sequence[LadderResult]) -> tuple[float, float]:
    """:func:`_pull_at` one bot's ``results`` (one a match), at its fitted rating."""
    return _pull_at(_once(results), results[0].own) if results else (0.0, 0.0)


class Fair(NamedTuple):
    """A bot's results with each opposing side rated by what its bots' results against
    everyone else say (:func:`_fair`), and how sure that is."""

    results: list[LadderResult]
    information: dict[int, float]  # each opponent's, without its results against the bot
    opponents: dict[int, tuple[int, ...]]  # each match's opposing bots


def _fair(
    bot: int,
    mine: Sequence[LadderResult],
    pulls: dict[int, tuple[float, float]],
    against_bot: dict[tuple[int, int], list[LadderResult]],
) -> Fair:
    """``mine`` with each opponent's fitted rating moved to what its results without
    ``bot`` say of it: one Newton step from the fitted rating, its results against ``bot``
    taken out of the pull and the information. The fit has absorbed concessions into both
    sides (the accomplice rated low for the matches it gave away, the target high), so
    against fitted ratings a conceded win is what the prediction expected; against the
    accomplice's strength from its honest matches, it is not."""
    opponents: dict[int, list[int]] = defaultdict(list)
    for result in mine:
        opponents[result.match_id].append(result.opponent)
    moved: dict[int, float] = {}
    information: dict[int, float] = {}
    for opponent in {r.opponent for r in mine}:
        gradient, info = pulls.get(opponent, (0.0, 0.0))
        away_gradient, away_info = _pull(against_bot.get((opponent, bot), []))
        information[opponent] = info - away_info + PRIOR_INFORMATION
        moved[opponent] = (gradient - away_gradient) / information[opponent]
    results = [
        msgspec.structs.replace(
            result,
            opposing=result.opposing
            + sum(moved[o] for o in opponents[result.match_id]) / len(opponents[result.match_id]),
        )
        for result in mine
    ]
    return Fair(results, information, {m: tuple(o) for m, o in opponents.items()})


def suspects(results: Iterable[LadderResult], *, sigmas: float, min_matches: int) -> list[Suspect]:
    """Every (bot, opponent) and (bot, opponent's owner) pair whose results lie ``sigmas``
    standard errors or more from what the bot's other results predict, strongest first."""
    every = list(results)
    points = points_model(every)
    by_bot: dict[int, list[LadderResult]] = defaultdict(list)
    for result in every:
        by_bot[result.bot].append(result)
    pulls = {bot: _pull(mine) for bot, mine in by_bot.items()}
    against_bot: dict[tuple[int, int], list[LadderResult]] = defaultdict(list)
    for result in every:
        against_bot[(result.bot, result.opponent)].append(result)
    found = []
    for bot, theirs in by_bot.items():
        fair = _fair(bot, theirs, pulls, against_bot)
        mine = fair.results
        centre = sum(r.opposing for r in mine) / len(mine)
        odd = _odd_owners(mine, centre, points, min_matches, fair)
        for kind, key in (("bot", "opponent"), ("owner", "opponent_owner")):
            groups: dict[int, list[LadderResult]] = defaultdict(list)
            for result in mine:
                groups[getattr(result, key)].append(result)
            for against, inside in groups.items():
                suspect = _judge(
                    bot, kind, against, inside, _rest(mine, inside, odd, min_matches), centre,
                    points, sigmas, min_matches, fair,
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
    fair: Fair | None = None,
) -> set[int]:
    """The owners whose results stand out (``|z| >= SCREEN``) from what the bot's results
    against its other owners say of it: the median of the strengths its results against each
    of them give, each owner one vote, whatever its number of matches.

    One vote an owner, because the yardstick must not be where most of the results are: two
    accomplices that meet a bot day after day give it more results than its honest opponents
    do, and a yardstick from all the other results (left out again and again as they stood
    out, as this screen was first written) settled on the conceded wins, so its honest
    opponents were the odd ones and the accomplices were never flagged (issue 34: a CI run of
    300 ticks without a flag; honest owners flagged at z -7 on 13 matches)."""
    owners: dict[int, list[LadderResult]] = defaultdict(list)
    for result in mine:
        owners[result.opponent_owner].append(result)
    says = {owner: strength_from(_once(inside), centre)[0] for owner, inside in owners.items()}
    odd = set()
    for owner, inside in owners.items():
        others = [strength for other, strength in says.items() if other != owner]
        if not others:
            continue
        typical = Yardstick(statistics.median(others))
        judged = _verdict(0, "owner", owner, inside, typical, points, SCREEN, min_matches, fair)
        if judged is not None:
            odd.add(owner)
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


class Yardstick(NamedTuple):
    """The bot's strength a group is judged against, with the information (Elo^-2) it was
    estimated from (infinite: taken as known) and the results it came from."""

    strength: float
    information: float = math.inf
    matches: int = 0
    score: float = 0.0


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
    fair: Fair | None = None,
) -> Suspect | None:
    """The group ``inside`` judged against the bot's strength from ``others``."""
    rest = _once(others)
    if len(_once(inside)) < min_matches or len(rest) < min_matches:
        return None  # (before the strength: most groups are this small)
    strength, information = strength_from(rest, centre)
    yardstick = Yardstick(strength, information, len(rest), sum(r.score for r in rest))
    return _verdict(bot, kind, against, inside, yardstick, points, sigmas, min_matches, fair)


def _verdict(
    bot: int,
    kind: str,
    against: int,
    inside: Sequence[LadderResult],
    yardstick: Yardstick,
    points: tuple[float, float] | None,
    sigmas: float,
    min_matches: int,
    fair: Fair | None = None,
) -> Suspect | None:
    """The group ``inside`` judged against ``yardstick``: a suspect if ``sigmas`` away (with
    ``fair``, the uncertainty of the opponents' strengths counted too)."""
    inside = _once(inside)
    if len(inside) < min_matches:
        return None
    strength, information = yardstick.strength, yardstick.information
    chances = [_chance(strength, r) for r in inside]
    expected = sum(chances)
    variance = sum(p * (1 - p) for p in chances)
    slope = sum(Q * _share(r) * p * (1 - p) for r, p in zip(inside, chances, strict=True))
    spread = math.sqrt(
        variance + slope * slope / information + _opponents_variance(inside, chances, fair)
    )  # (information inf: the bot's estimate's term 0)
    score = sum(r.score for r in inside)
    z_results = (score - expected) / spread if spread > 0 else 0.0
    z_points = share = expected_share = None
    scored = [(r, p) for r, p in zip(inside, chances, strict=True) if r.share is not None]
    if points is not None and len(scored) >= min_matches:
        b, sigma = points
        share = sum(r.share or 0.0 for r, _ in scored) / len(scored)
        expected_share = sum(0.5 + b * (p - 0.5) for _, p in scored) / len(scored)
        n = len(scored)
        slope_points = b * sum(Q * _share(r) * p * (1 - p) for r, p in scored) / n
        unsure = slope_points**2 / information  # the prediction's, from the bot's strength
        z_points = (share - expected_share) / math.sqrt(sigma * sigma / n + unsure)
    z = z_results if z_points is None or abs(z_results) >= abs(z_points) else z_points
    if abs(z) < sigmas:
        return None
    evidence = Evidence(
        matches=len(inside),
        score=score,
        expected=round(expected, 3),
        others_matches=yardstick.matches,
        others_score=yardstick.score,
        strength_from_others=round(strength, 1),
        z=round(z, 2),
        z_results=round(z_results, 2),
        z_points=None if z_points is None else round(z_points, 2),
        points_share=None if share is None else round(share, 3),
        expected_share=None if expected_share is None else round(expected_share, 3),
        match_ids=tuple(sorted({r.match_id for r in inside})),
    )
    return Suspect(bot, "bot" if kind == "bot" else "owner", against, evidence)


def _opponents_variance(
    inside: Sequence[LadderResult], chances: Sequence[float], fair: Fair | None
) -> float:
    """What the uncertainty of the opponents' strengths adds to the variance of the group's
    score (each opponent's slope squared over its information), as the bot's own does."""
    if fair is None:
        return 0.0
    slopes: dict[int, float] = defaultdict(float)
    for result, p in zip(inside, chances, strict=True):
        opposing = fair.opponents[result.match_id]
        for opponent in opposing:
            slopes[opponent] += Q / len(opposing) * p * (1 - p)
    return sum(slope * slope / fair.information[o] for o, slope in slopes.items())
