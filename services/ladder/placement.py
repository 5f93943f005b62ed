"""What a ladder promises a bot about its placement, in any pool, however small (pure).

A bot is placed once its 95% interval is narrower than +-100 Elo. How many matches that takes
depends on its opponents: about 46 at even odds against well-known opponents in 1v1, four times
as many in individual 2v2, more against opponents far from its strength or themselves unsure.
A pool also bounds how many matches a bot may get in a day: two bots meet at most
``pair_per_day`` times a ladder day. So the ladder promises, per bot:

* **placed**, once it is;
* **placing**, with ``about`` how many matches its placement takes (before its first fit,
  ``at_least``: the information bound, 46 in 1v1), while the pool can still give it a match
  today;
* **needs_opponents**, when it cannot: every bot of another owner within its reach has met it
  as often as the day allows, or the pool has too few owners to seat a match at all (two in
  1v1, four in individual 2v2). The state gives ``opponents`` (the other owners' bots it may
  meet) and ``needed`` (how many a placement needs within a day, at the most meetings a pair
  may have while one of them is placing); more bots joining, or the next ladder day, lets it
  play on;
* **waiting** for its first rated match, while it may still get one.

**The pair limit scales to the pool.** While a bot is placing, a pair with it may meet up to
``ceil(about x others / opponents)`` times a day (``others``: the bots a match seats besides
it, 1 or 3), never fewer than ``pair_per_day`` and never more than ``pair_cap``
(``TRUCO_LADDER_PAIR_PER_DAY_PLACING``): in a pool of a few owners a bot still meets each of
them often enough to be placed in its first day, and in a large pool nothing changes.

**The estimate holds still.** ``about`` extrapolates the information a bot's matches gave so
far (its interval narrows as one over the square root of it): noisy early and in a pool whose
bots are all new. From the bot's 10th rated match on, the figure is kept within half and twice
what it was then (``first``, stored once); a bot that needs more than twice that is not getting
opponents that teach it enough, and is shown as needing opponents instead.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from typing import Literal

import msgspec

from services.ladder.links import OwnerPair, kept_apart
from services.ladder.model import PLACEMENT_HALFWIDTH, even_matches_to_place

PlacementState = Literal["waiting", "placing", "placed", "needs_opponents"]

STEADY_FROM = 10
"""Rated matches after which the estimate stays within :data:`BAND` of its value then."""
BAND = 2.0
"""The estimate stays within ``first / BAND`` and ``first * BAND``."""


class Candidate(msgspec.Struct, frozen=True):
    """A bot of a ladder's table as placement reads it: its owner (bots of one owner, or of
    linked owners, never meet), its rated ladder matches, its fitted interval's half width
    (None before its first fit), and its estimate at its 10th match (None before)."""

    bot_id: int
    owner: int
    matches: int
    halfwidth: float | None
    first: int | None = None
    fit_games: int | None = None  # its rated matches in the pool when the interval was fitted
    rated_games: int | None = None  # its rated matches in the pool now


class Standing(msgspec.Struct, frozen=True):
    """A bot's placement as the table shows it, and the most meetings a pair with it may have
    today (what the matchmaker keeps to)."""

    state: PlacementState
    matches: int
    about: int | None
    opponents: int
    needed: int | None
    pair_limit: int
    raw_about: int | None = None  # the estimate before it is held in its band
    at_least: int | None = None  # before its first fit: the matches a placement takes at least


def seats_besides(players: int) -> int:
    """The bots a match seats besides one: 1 in 1v1, 3 in individual 2v2."""
    return players - 1


def bound(players: int) -> int:
    """Matches at even odds a placement takes at least (the information bound)."""
    return even_matches_to_place(players_a_side=players // 2)


def raw_estimate(
    matches: int,
    halfwidth: float | None,
    players: int,
    fit_games: int | None = None,
    rated_games: int | None = None,
) -> int:
    """About how many ladder matches the bot's placement takes in all (the bound before its
    first fit). The interval narrows as one over the square root of the information, so at
    the fit, which saw ``fit_games`` rated matches, it needed ``fit_games ((w / 100)^2 - 1)``
    more at the same pace; those played since (``rated_games - fit_games``) count against them.
    Without those counts, the ladder matches stand for both."""
    if halfwidth is None or matches == 0:
        return max(matches + 1, bound(players))
    if halfwidth < PLACEMENT_HALFWIDTH:
        return matches
    seen = fit_games if fit_games is not None else matches
    since = 0 if rated_games is None or fit_games is None else max(0, rated_games - fit_games)
    needed = seen * ((halfwidth / PLACEMENT_HALFWIDTH) ** 2 - 1) - since
    return matches + max(1, math.ceil(needed))


def held(raw: int, matches: int, first: int | None) -> int | None:
    """The estimate shown: ``raw`` kept within ``first / BAND`` and ``first * BAND``; None when
    the bot has outgrown its band (it needs opponents that teach it more)."""
    if first is None:
        return max(raw, matches + 1)
    if matches >= first * BAND:
        return None
    low = max(math.ceil(first / BAND), matches + 1)
    return min(max(raw, low), math.floor(first * BAND))


def pair_limit(about: int, opponents: int, players: int, per_day: int, cap: int) -> int:
    """The meetings a pair with this placing bot may have today: enough for ``about`` matches
    spread over its ``opponents``, between ``per_day`` and ``cap``."""
    if opponents <= 0:
        return per_day
    spread = math.ceil(about * seats_besides(players) / opponents)
    return max(per_day, min(cap, spread))


def needed_opponents(about: int, players: int, cap: int) -> int:
    """Bots of other owners a placement of ``about`` matches needs within one day."""
    return max(seats_besides(players), math.ceil(about * seats_besides(players) / cap))


def standings(
    candidates: Sequence[Candidate],
    met_today: Mapping[tuple[int, int], int],
    *,
    players: int,
    per_day: int,
    cap: int,
    linked: Collection[OwnerPair] = frozenset(),
) -> list[Standing]:
    """Each candidate's standing (module docstring), in the order given; ``linked``: owners
    whose bots never meet (:mod:`services.ladder.links`). Costs ``O(n)`` plus one pass over
    today's meetings and the links."""
    bots_of = Counter(c.owner for c in candidates)
    owner_of = {c.bot_id: c.owner for c in candidates}
    partners: dict[int, set[int]] = {}
    for a, b in linked:
        if a in bots_of and b in bots_of:
            partners.setdefault(a, set()).add(b)
            partners.setdefault(b, set()).add(a)
    total = len(candidates)

    def opponents_of(owner: int) -> int:
        return total - bots_of[owner] - sum(bots_of[o] for o in partners.get(owner, ()))

    def other_owners(owner: int) -> int:
        return len(bots_of) - 1 - len(partners.get(owner, ()))

    raw = [
        raw_estimate(c.matches, c.halfwidth, players, c.fit_games, c.rated_games)
        for c in candidates
    ]
    placed = [c.halfwidth is not None and c.halfwidth < PLACEMENT_HALFWIDTH for c in candidates]
    limits: dict[int, int] = {}
    for c, estimate, done in zip(candidates, raw, placed, strict=True):
        # before its first fit a bot's matches say nothing of what it still needs: the bound
        # (else a pool faster than the fit would spend every meeting before it is fitted)
        unfitted = c.halfwidth is None
        wanted = (
            bound(players) if unfitted else estimate if c.first is None else max(estimate, c.first)
        )
        limits[c.bot_id] = (
            per_day if done else pair_limit(wanted, opponents_of(c.owner), players, per_day, cap)
        )
    full: Counter[int] = Counter()  # opponents a bot has met as often as today allows
    for (a, b), times in met_today.items():
        if a not in owner_of or b not in owner_of:
            continue
        if kept_apart(owner_of[a], owner_of[b], linked):
            continue
        if times >= max(limits[a], limits[b]):
            full[a] += 1
            full[b] += 1
    out = []
    for c, estimate, done in zip(candidates, raw, placed, strict=True):
        opponents = opponents_of(c.owner)
        limit = limits[c.bot_id]
        if done:
            out.append(Standing("placed", c.matches, None, opponents, None, limit, c.matches))
            continue
        # before its first fit there is no estimate, only the bound (what its matches taught
        # is unknown): "at least 46"; from the fit on, "about N", held in its band
        fitted = c.halfwidth is not None
        about = held(estimate, c.matches, c.first) if fitted else None
        floor = None if fitted else bound(players)
        outgrown = fitted and about is None
        seatable = other_owners(c.owner) >= seats_besides(players)
        reachable = opponents - full[c.bot_id]
        stuck = not seatable or outgrown or reachable < seats_besides(players)
        if stuck:
            target = about or (estimate if fitted else bound(players))
            needed = max(opponents + 1, needed_opponents(target, players, cap))
            state: PlacementState = "needs_opponents"
        else:
            needed = None
            state = "waiting" if c.matches == 0 else "placing"
        out.append(
            Standing(state, c.matches, about, opponents, needed, limit, estimate, at_least=floor)
        )
    return out


def first_estimates(candidates: Sequence[Candidate], found: Sequence[Standing]) -> dict[int, int]:
    """The estimates to keep as ``first`` now: for each bot not placed, with none kept yet,
    whose interval was fitted on at least :data:`STEADY_FROM` of its rated matches (an
    estimate from a fit of two warm-up games is no yardstick) and which has played as many on
    the ladder."""
    return {
        c.bot_id: s.raw_about
        for c, s in zip(candidates, found, strict=True)
        if c.first is None
        and c.matches >= STEADY_FROM
        and c.halfwidth is not None
        and (c.fit_games is None or c.fit_games >= STEADY_FROM)
        and s.state != "placed"
        and s.raw_about is not None
    }
