"""A match being played, for the replay viewer: the games a spectator has seen so far, read
from the worker's live feed (``services.live.feed``), with no seed, deal or result."""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Request

from arena.match.replay import EntrantRecord, ReplayEvent
from arena.match.runner import seat_entrants
from engine.rules import Rules
from services.api.deps import services_of
from services.db import page_reads as db
from services.live.feed import last_run, viewer_events
from services.live.reader import LiveReader, reader_for
from services.web.i18n import gettext as _
from services.web.views.common import side_links


class LiveGameShown(msgspec.Struct, frozen=True):
    number: int
    teams: tuple[int, int]
    events: list[ReplayEvent]
    seats: tuple[int, ...] = ()


class LiveShown(msgspec.Struct, frozen=True):
    """A live match as the viewer reads it (``services.web.views.replay.Shown``)."""

    rules: Rules
    entrants: tuple[EntrantRecord, ...]
    games: list[LiveGameShown]


def reader(request: Request[Any, Any, Any]) -> LiveReader:
    state = request.app.state
    return reader_for(state, services_of(state).settings.redis)


async def live_replay(
    request: Request[Any, Any, Any], m: db.MatchRow
) -> tuple[LiveShown | None, int]:
    """The live match ``m`` (the page's own read of its row) as a spectator sees it so far
    (None before its first game), and how many items of the feed it was built from (the
    page's stream skips them)."""
    items = await reader(request).items(m.id)
    games = last_run(items)
    if not games:
        return None, len(items)
    rules = m.rules
    individual = len(m.entrants) == 4  # a bot a seat
    if individual:  # the records in slot order
        entrants = tuple(
            EntrantRecord(e.name, "live") for e in sorted(m.entrants, key=lambda e: e.slot)
        )
    else:
        entrants = tuple(
            EntrantRecord(
                " & ".join(b.name for b in side_links(m, side)) or _("side %(n)d") % {"n": side},
                "live",
            )
            for side in (0, 1)
        )
    shown = [
        LiveGameShown(
            number=g.number,
            teams=g.teams,
            events=viewer_events(g.events, rules.players),
            seats=seat_entrants(g.number - 1, 4, 4) if individual else (),
        )
        for g in games
    ]
    return LiveShown(rules, entrants, shown), len(items)
