"""The home page: the leaderboards."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.db.page_reads import LeaderRow
from services.domain.ratings import PROVISIONAL_UNTIL
from services.web.views.common import BotLink
from services.web.views.intervals import ErrorBar, error_bars, los_next


@dataclass(frozen=True, slots=True)
class LeaderView:
    rank: int
    bot: BotLink
    rating: int
    provisional: bool
    matches: int
    record: str
    trend: int
    bar: ErrorBar | None = None  # the 95% interval (services.web.views.intervals)
    los: str | None = None  # likelihood of superiority over the row below


def leaderboard_view(rows: Sequence[LeaderRow]) -> list[LeaderView]:
    return [
        LeaderView(
            rank=k + 1,
            bot=BotLink(r.name, r.bot_id),
            rating=round(r.rating),
            provisional=r.matches < PROVISIONAL_UNTIL,
            matches=r.matches,
            record=f"{r.wins}-{r.losses}-{r.draws}",
            trend=round(r.trend),
            bar=bar,
            los=los,
        )
        for k, (r, bar, los) in enumerate(zip(rows, error_bars(rows), los_next(rows), strict=True))
    ]
