"""Elo per rating pool ("1v1", "2v2", "2v2-individual") as a pure fold over rated matches.

The pools: 1v1; "2v2", team 2v2 (the platform's team 2v2 has one bot fill both seats of its
side, and rates it as a one-bot side through :func:`match_delta`); "2v2-individual", individual
2v2 (every seat its own bot: a side is two bots, partnered by the event). The two 2v2 pools are kept apart: a bot that sees both seats of its side is not rated
against bots that see one.

Rules: everyone starts at 1500; expected score ``E = 1 / (1 + 10 ** ((Rb - Ra) / 400))``; a
match scores 1 / 0.5 / 0; a bot's K is 40 for its first 30 rated matches in that pool, then
20; a bot is provisional until it has 10 rated matches in the pool. When a side has two bots
(individual 2v2) it rates as the mean of its two bots, ``Ra = (R1 + R2) / 2`` against the mean
of the opposing pair, and each bot moves by its side's delta: partners gain or lose the same
points, each bot's rating is its own and rotating partners make it measure the bot.

Exact reproducibility (recomputing from scratch gives exactly the stored ratings):
* ratings are integers;
* ``E`` is computed with :mod:`decimal` at a fixed 28-digit context (libmpdec is pure integer
  arithmetic, identical on every platform) and rounded to an integer number of 1/10000ths;
* the delta is ``K · (S - E)`` rounded half away from zero with integer arithmetic.

Zero-sum: ONE delta is computed per match, with the match's K = the mean of the K of every bot
in it (40/20 → 30 in 1v1 and team 2v2; individual 2v2 gives 20, 25, 30, 35 or 40). Side a
moves by ``+delta`` and side b by ``-delta`` (every bot of a side by its side's delta), so with
one bot a side the two changes sum to zero and in individual 2v2 the four bots' changes do.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Context, Decimal
from fractions import Fraction

import msgspec

from services.domain import RATING_POOLS, Mode, Partnership, RatingPool, SideResult

BotId = int | str

START = 1500
K_NEW, K_SETTLED, SETTLED_AFTER = 40, 20, 30
PROVISIONAL_UNTIL = 10
SCALE = 10_000  # expected scores are integers in 1/10000ths
TEAM_SIZE: dict[str, int] = {"1v1": 1, "2v2": 1, "2v2-individual": 2}  # bots a side
POOLS = RATING_POOLS  # the pages read it here
_CONTEXT = Context(prec=28)


class RatedMatch(msgspec.Struct, frozen=True):
    mode: RatingPool
    team_a: tuple[BotId, ...]
    team_b: tuple[BotId, ...]
    result: SideResult
    match_id: str | int | None = None


class RatingChange(msgspec.Struct, frozen=True):
    """One line of a bot's rating history."""

    match: int  # index of the match in the sequence
    match_id: str | int | None
    before: int
    after: int
    delta: int


class BotRating(msgspec.Struct, frozen=True):
    rating: int = START
    matches: int = 0
    history: tuple[RatingChange, ...] = ()

    @property
    def provisional(self) -> bool:
        return self.matches < PROVISIONAL_UNTIL


Ratings = dict[str, dict[BotId, BotRating]]  # mode -> bot -> rating


def rating_pool(mode: Mode, partnership: Partnership) -> RatingPool:
    """The pool a match of ``mode`` rates in: individual 2v2 has its own."""
    return "2v2-individual" if mode == "2v2" and partnership == "individual" else mode


def k_factor(rated_matches: int) -> int:
    return K_NEW if rated_matches < SETTLED_AFTER else K_SETTLED


def expected_score(diff: Fraction) -> int:
    """E (in 1/10000ths) of a side rated ``diff`` points above its opponent."""
    exponent = _CONTEXT.divide(Decimal(-diff.numerator), Decimal(diff.denominator * 400))
    power = _CONTEXT.power(Decimal(10), exponent)
    value = _CONTEXT.divide(Decimal(SCALE), _CONTEXT.add(Decimal(1), power))
    return int(value.quantize(Decimal(1), context=_CONTEXT))


def _round_half_away(numerator: int, denominator: int) -> int:
    sign = -1 if (numerator < 0) != (denominator < 0) else 1
    q, r = divmod(abs(numerator), abs(denominator))
    return sign * (q + (1 if 2 * r >= abs(denominator) else 0))


def match_delta(
    ratings_a: Iterable[int], ratings_b: Iterable[int], ks: Iterable[int], result: SideResult
) -> int:
    """Side a's rating change (side b gets the negative)."""
    ra, rb, kk = list(ratings_a), list(ratings_b), list(ks)
    diff = Fraction(sum(ra), len(ra)) - Fraction(sum(rb), len(rb))
    expected = expected_score(diff)
    score = {"a": SCALE, "draw": SCALE // 2, "b": 0}[result]
    # delta = mean(K) * (S - E) / SCALE, rounded half away from zero
    return _round_half_away(sum(kk) * (score - expected), len(kk) * SCALE)


def _check(match: RatedMatch) -> None:
    size = TEAM_SIZE.get(match.mode)
    if size is None:
        raise ValueError(f"unknown mode {match.mode!r}")
    if len(match.team_a) != size or len(match.team_b) != size:
        raise ValueError(f"a {match.mode} match needs {size} bot(s) a side: {match!r}")
    bots = [*match.team_a, *match.team_b]
    if len({str(b) for b in bots}) != len(bots):
        raise ValueError(f"a bot appears twice in {match!r}")


def _rate(table: dict[BotId, BotRating], match: RatedMatch, index: int) -> None:
    _check(match)
    current = {b: table.get(b, BotRating()) for b in (*match.team_a, *match.team_b)}
    delta = match_delta(
        (current[b].rating for b in match.team_a),
        (current[b].rating for b in match.team_b),
        (k_factor(current[b].matches) for b in current),
        match.result,
    )
    for bot, change in [*((b, delta) for b in match.team_a), *((b, -delta) for b in match.team_b)]:
        old = current[bot]
        entry = RatingChange(index, match.match_id, old.rating, old.rating + change, change)
        table[bot] = BotRating(old.rating + change, old.matches + 1, (*old.history, entry))


def apply_match(
    ratings: Mapping[str, Mapping[BotId, BotRating]], match: RatedMatch, index: int
) -> Ratings:
    """New ratings after ``match`` (the ``index``-th of the sequence); the input is not changed."""
    out = {mode: dict(table) for mode, table in ratings.items()}
    _rate(out.setdefault(match.mode, {}), match, index)
    return out


def compute_ratings(matches: Iterable[RatedMatch]) -> Ratings:
    """Ratings of every bot in every mode after the whole sequence, from scratch."""
    ratings: Ratings = {}
    for index, match in enumerate(matches):
        _rate(ratings.setdefault(match.mode, {}), match, index)
    return ratings
