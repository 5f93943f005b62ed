"""The rating fit on the pages: each leaderboard entry's 95% interval as an error bar on a
scale shared by its board, its likelihood of superiority over the entry below, and the words
for both (the model: docs/ratings.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.db.page_reads import LeaderRow, RatingRow
from services.web import i18n
from services.web.i18n import N_
from services.web.i18n import gettext as _

EXPLAINED = N_(
    "Bars: the range (95%) where each bot's strength lies, from a fit over every rated match "
    "of the pool; the mark is its Elo rating. LOS: the chance, by that fit, that it is stronger "
    "than the bot below it on this board; the board is in Elo order, so under 50% means the fit "
    "puts the bot below ahead."
)
"""Marked for the catalogues; shown translated."""


@dataclass(frozen=True, slots=True)
class ErrorBar:
    """Positions from 0 to 100 across the board's scale, and the numbers they stand for."""

    low: int
    high: int
    rating: int
    x_low: float
    x_high: float
    x_rating: float

    @property
    def label(self) -> str:
        return _("95%% interval %(low)d to %(high)d, Elo rating %(rating)d") % {
            "low": self.low,
            "high": self.high,
            "rating": self.rating,
        }


def error_bars(rows: Sequence[LeaderRow]) -> list[ErrorBar | None]:
    """One bar per row (None before the bot's first fit), all on the scale from the lowest to
    the highest number any fitted row shows."""
    fitted = [(r.low, r.high, r.rating) for r in rows if r.low is not None and r.high is not None]
    if not fitted:
        return [None] * len(rows)
    bottom = min(min(low, rating) for low, _, rating in fitted)
    top = max(max(high, rating) for _, high, rating in fitted)
    span = max(top - bottom, 1.0)

    def x(value: float) -> float:
        return round(100 * (value - bottom) / span, 2)

    return [
        None
        if r.low is None or r.high is None
        else ErrorBar(
            round(r.low), round(r.high), round(r.rating), x(r.low), x(r.high), x(r.rating)
        )
        for r in rows
    ]


def percent(probability: float) -> str:
    """A LOS as a person reads it: whole percents, a decimal near certainty, never 100%."""
    value = 100 * probability
    if value >= 99.95:
        return ">" + i18n.percent(0.999, 1)
    if value < 0.05:
        return "<" + i18n.percent(0.001, 1)
    if 1 <= value <= 99:
        return i18n.percent(probability)
    return i18n.percent(probability, 1)


def los_next(rows: Sequence[LeaderRow]) -> list[str | None]:
    """Each row's LOS over the row below, while the fit's neighbour is still that row."""
    below = [*(r.bot_id for r in rows[1:]), None][: len(rows)]
    return [
        percent(r.los_next)
        if r.los_next is not None and next_id is not None and r.next_bot_id == next_id
        else None
        for r, next_id in zip(rows, below, strict=True)
    ]


def rating_interval(row: RatingRow) -> str | None:
    """The bot page's words: "95% interval 1548-1672; stronger than X: 92%"."""
    if row.low is None or row.high is None:
        return None
    words = _("95%% interval %(low)d–%(high)d") % {"low": round(row.low), "high": round(row.high)}
    if row.los_next is not None and row.next_bot_name is not None:
        words += _("; stronger than %(name)s (next below): %(los)s") % {
            "name": row.next_bot_name,
            "los": percent(row.los_next),
        }
    return words
