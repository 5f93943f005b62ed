"""The home page: the leaderboards."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.db.pages import LeaderRow
from services.ratings import PROVISIONAL_UNTIL
from services.web.views.common import BotLink


@dataclass(frozen=True, slots=True)
class LeaderView:
    rank: int
    bot: BotLink
    rating: int
    provisional: bool
    matches: int
    record: str
    trend: int


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
        )
        for k, r in enumerate(rows)
    ]
