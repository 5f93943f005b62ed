"""A ladder's table as the matchmaker sees it (pure): each bot's estimate and half width, and
whether it may be given a match now (its pace, its cap, its matches in play).

:class:`LadderRow` is the row ``services.db.ladder.table`` reads; :func:`ladder_bots` turns a
pool's rows into the :class:`~services.ladder.model.LadderBot` values
:func:`services.ladder.matchmaker.pick_matches` chooses from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from services.ladder.model import NEW_BOT_HALFWIDTH, PLACEMENT_HALFWIDTH, LadderBot

DEFAULT_RATING = 1500.0
"""A pool's mean before any of its bots has a fitted rating."""


@dataclass(frozen=True, slots=True)
class LadderRow:
    """One bot of a ladder's table: its entry, its bot, the pool's fit (None before its
    first rated match there; ``los_next`` its LOS over ``los_next_bot``, the bot below it in
    this table when the fit ran), its rated ladder matches and whether it is playing one of
    this ladder now (``in_play``: its ladder matches not over, on any ladder)."""

    bot_id: int
    bot_name: str
    owner_id: int
    owner_name: str
    bot_status: str
    answered: bool  # the bot has answered a health check (the matchmaker waits for one)
    joined_at: datetime
    hourly_cap: int
    paused_at: datetime | None
    pause_cause: str | None
    elo: float | None
    rating: float | None
    low: float | None
    high: float | None
    los_next: float | None
    matches: int
    last_hour: int
    playing: bool
    in_play: int = 0  # its ladder matches not yet over (``playing`` is ``in_play > 0``)
    last_started: datetime | None = None  # its latest ladder match's creation
    last_hour_placing: int = 0  # of ``last_hour``, the matches chosen to place a bot
    last_paced: datetime | None = None  # its latest ladder match not chosen to place a bot
    # the pool's fit on luck-adjusted outcomes (docs/luck.md; None before one)
    adjusted_rating: float | None = None
    adjusted_low: float | None = None
    adjusted_high: float | None = None

    los_next_bot: int | None = None  # the bot below it in this table when the fit ran
    first_about: int | None = None  # its placement estimate at its 10th rated match
    rated_games: int = 0  # its rated matches in the pool now (ladder or not)
    fit_games: int | None = None  # its rated matches the pool's last fit saw


def estimate(row: LadderRow) -> tuple[float, float, float] | None:
    """The estimate the ladder places and matches a bot by: the pool's fit on luck-adjusted
    outcomes when there is one (the same mean as the results', a narrower interval: docs/luck.md),
    else the public fit on results; (rating, low, high), or None before a rated match."""
    adjusted = (row.adjusted_rating, row.adjusted_low, row.adjusted_high)
    if adjusted[0] is not None and adjusted[1] is not None and adjusted[2] is not None:
        return adjusted[0], adjusted[1], adjusted[2]
    if row.rating is None or row.low is None or row.high is None:
        return None
    return row.rating, row.low, row.high


def ladder_bot(
    row: LadderRow, pool_mean: float, platform_cap: int, now: datetime, placing_at_once: int = 1
) -> LadderBot:
    """A table row as the matchmaker sees it: the fit's estimate and half width, or the pool's
    mean and :data:`NEW_BOT_HALFWIDTH` before its first rated match.

    The hourly cap is a pace, not only a count: a bot plays at most ``hourly_cap`` ladder
    matches in any hour and starts one at most every ``3600 / hourly_cap`` seconds, so a pool
    that joins together does not spend its whole hour in its first minutes and then stand
    still (leaving a newcomer no one to play). A bot still placing whose owner kept the
    platform's cap (``platform_cap``, ``TRUCO_LADDER_HOURLY_CAP``) is held by neither, so a new
    bot is placed in minutes (about fifty matches, one at a time), and the matches chosen to
    place a bot do not count against the platform's cap of either bot (else a pool that placed
    itself together, or served a newcomer, would have spent its hour and leave the next
    newcomer no one to play: the live bench saw exactly that); a cap its owner lowered counts
    every match, always. Placement ends by itself (the interval narrows with every match), and
    leaving and joining again does not start it over (the interval is the pool fit's).

    A bot plays one ladder match at a time, except a bot still placing under the platform's
    cap: up to ``placing_at_once`` (``TRUCO_LADDER_PLACING_AT_ONCE``, 2), so its placement
    takes about half the minutes; an owner who lowered the cap keeps it to one."""
    found = estimate(row)
    if found is None:
        rating, halfwidth = pool_mean, NEW_BOT_HALFWIDTH
    else:
        rating, low, high = found
        halfwidth = max((high - low) / 2, 1.0)
    placed = halfwidth < PLACEMENT_HALFWIDTH
    owners_cap = row.hourly_cap < platform_cap
    if owners_cap:  # every match counts against a cap the owner lowered
        count, last = row.last_hour, row.last_started
    else:  # matches that placed a bot (its own or a newcomer's) do not spend the platform's
        count, last = row.last_hour - row.last_hour_placing, row.last_paced
    held = placed or owners_cap
    at_once = 1 if held else max(placing_at_once, 1)
    # (a last match stamped after ``now`` is the two clocks' skew, or a test's clock: not paced)
    since = None if last is None else (now - last).total_seconds()
    too_soon = since is not None and 0 <= since < 3600 / row.hourly_cap
    capped = held and (count >= row.hourly_cap or too_soon)
    return LadderBot(
        bot_id=row.bot_id,
        owner_id=row.owner_id,
        rating=rating,
        halfwidth=halfwidth,
        available=(
            row.paused_at is None
            and row.bot_status == "active"
            and row.answered
            and max(row.in_play, int(row.playing)) < at_once
            and not capped
        ),
    )


def ladder_bots(
    rows: Sequence[LadderRow], platform_cap: int, now: datetime, placing_at_once: int = 1
) -> list[LadderBot]:
    fitted = [found[0] for r in rows if (found := estimate(r)) is not None]
    mean = sum(fitted) / len(fitted) if fitted else DEFAULT_RATING
    return [ladder_bot(r, mean, platform_cap, now, placing_at_once) for r in rows]
