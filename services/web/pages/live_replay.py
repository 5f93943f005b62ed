"""A match being played, rebuilt for the replay viewer from the worker's live feed."""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec
from litestar import Request

from arena.match.replay import FORMAT, EntrantRecord, GameRecord, MatchResult, Replay, ReplayEvent
from arena.match.runner import seat_entrants
from engine.rules import Rules
from services.api.deps import services_of
from services.db import matches as db_matches
from services.db import page_reads as db
from services.web.i18n import gettext as _
from services.web.views.common import side_links
from services.worker.live import live_document, reader_for, to_replay_events


def reader(request: Request[Any, Any, Any]) -> Any:
    state = request.app.state
    return reader_for(state, services_of(state).settings.redis)


async def live_replay(
    request: Request[Any, Any, Any], pool: asyncpg.Pool, m: db.MatchRow
) -> tuple[Replay | None, int]:
    """A live match as a spectator replay for the viewer, from the worker's live feed
    (``services.worker.live``): no deals (empty hands), no señas, no seeds (None if empty);
    and how many items of the feed it was built from (the page's stream skips them)."""
    items = await reader(request).items(m.id)
    document = live_document(m.id, m.status, [], items)
    row = await db_matches.get_match(pool, m.id)
    if not document["games"] or row is None:
        return None, len(items)
    rules = Rules.from_dict(row.rules)
    names = [
        " & ".join(b.name for b in side_links(m, side)) or _("side %(n)d") % {"n": side}
        for side in (0, 1)
    ]
    games = [
        GameRecord(
            number=g["number"],
            game_id=f"{m.id}-g{g['number']}",
            seed=0,
            teams=(int(g["teams"][0]), int(g["teams"][1])),
            events=msgspec.convert(to_replay_events(g["events"], rules.players), list[ReplayEvent]),
            score=(int(g["score"][0]), int(g["score"][1])),
            seats=seat_entrants(g["number"] - 1, 4, 4) if row.individual else (),
        )
        for g in document["games"]
    ]
    entrants: tuple[EntrantRecord, ...] = (
        EntrantRecord(names[0], "live"),
        EntrantRecord(names[1], "live"),
    )
    if row.individual:  # a bot a seat: the records in slot order
        entrants = tuple(
            EntrantRecord(e.name, "live") for e in sorted(m.entrants, key=lambda e: e.slot)
        )
    return _replay(m, row, rules, entrants, games), len(items)


def _replay(
    m: db.MatchRow,
    row: Any,
    rules: Rules,
    entrants: tuple[EntrantRecord, ...],
    games: list[GameRecord],
) -> Replay:
    return Replay(
        format=FORMAT,
        match_id=str(m.id),
        seed=0,
        rules=rules,
        deals=row.deals,
        games_per_match=row.games_per_match,
        timeout_ms=0,
        time_bank_ms=0,
        fault_limit=0,
        entrants=entrants,
        games=games,
        result=MatchResult(games_won=(0, 0), tantos=(0, 0), winner=None, reason="draw"),
    )
