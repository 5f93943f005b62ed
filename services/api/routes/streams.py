"""Live streams (Server-Sent Events): ``GET /v1/matches/{id}/stream`` and
``GET /v1/tournaments/{id}/stream`` (docs/live.md).

Each open stream follows its match's or tournament's :class:`~services.api.sse.feeds.Feed`
(one poller per watched thing per process). Streams are capped per client address and per
process (``TRUCO_STREAMS_PER_ADDRESS``, ``TRUCO_STREAMS_TOTAL``: a 429 past them), send a
heartbeat comment when idle, and close when the client goes away or the thing is over.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial
from typing import Any, Final

import asyncpg
from litestar import Controller, Request, get
from litestar.background_tasks import BackgroundTask
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.response import Stream

from services.api.deps import services_of
from services.api.guard.client_address import client_address_reader
from services.api.guard.stream_caps import Slot, StreamCaps
from services.api.problems import ProblemError, problem_responses
from services.api.routes.matches import MatchId
from services.api.routes.tournaments import TournamentId
from services.api.schemas.streams import TournamentHead
from services.api.sse.feeds import (
    Feed,
    Hub,
    decided_in,
    end_of_match,
    follow,
    poll_match,
    poll_tournament,
)
from services.api.sse.frames import json_frame, parse_last_event_id
from services.db import matches as db_matches
from services.db import tournaments as db_tournaments
from services.domain import LIVE_TOURNAMENT_STATUSES, OPEN_STATUSES
from services.live.reader import reader_for

EVENT_STREAM: Final = "text/event-stream"
HEADERS: Final = {
    "Cache-Control": "no-store",
    "X-Accel-Buffering": "no",  # nginx: pass each message at once (infra/nginx example)
}
RETRY_AFTER_S: Final = 30
_HUB, _CAPS = "live_hub", "stream_caps"

_STREAM_DOC = ResponseSpec(
    data_container=str,
    description="A text/event-stream of messages (docs/live.md)",
    media_type=EVENT_STREAM,
    generate_examples=False,
)


def hub_of(state: State) -> Hub:
    found = state.get(_HUB)
    if not isinstance(found, Hub):
        found = state[_HUB] = Hub()
    return found


def caps_of(state: State) -> StreamCaps:
    found = state.get(_CAPS)
    if not isinstance(found, StreamCaps):
        limits = services_of(state).settings.streams
        found = state[_CAPS] = StreamCaps(per_address=limits.per_address, total=limits.total)
    return found


def _slot(request: Request[Any, Any, State]) -> Slot:
    settings = services_of(request.app.state).settings
    address = client_address_reader(settings.web.trusted_proxies)(request)
    slot = caps_of(request.app.state).acquire(address)
    if slot is None:
        raise ProblemError(
            429,
            "too many open live streams (from this address or on this server); close one "
            "or poll the replay instead",
            slug="too-many-streams",
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
    return slot


def _stream(body: AsyncIterator[bytes], slot: Slot | None = None) -> Stream:
    return Stream(
        body,
        media_type=EVENT_STREAM,
        headers=HEADERS,
        background=None if slot is None else BackgroundTask(slot.release),
    )


async def _once(chunk: bytes) -> AsyncIterator[bytes]:
    yield chunk


async def _watching(
    hub: Hub, key: tuple[str, int], poller: Any, cursor: int, slot: Slot
) -> AsyncIterator[bytes]:
    try:
        async with hub.watch(key, poller) as feed:
            async for chunk in follow(feed, cursor):
                yield chunk
    finally:
        slot.release()


class StreamController(Controller):
    tags = ("live",)

    @get(
        "/v1/matches/{match_id:int}/stream",
        operation_id="streamMatch",
        summary="A match as it is played: Server-Sent Events",
        description=(
            "`text/event-stream`. Each live item (as the spectator filter lets it out: no "
            "deal, no seña, no card before it is played) is one message whose `id` is its index "
            "in the match's live feed, so a client reconnecting with `Last-Event-ID` resumes "
            "after it; a run's header is `event: run`; `event: end` carries the final status "
            "(`{match_id, status, winner_side, games_won}`) and closes the stream (at once for "
            "a match already over). A comment every 15 s keeps it open. At most "
            "TRUCO_STREAMS_PER_ADDRESS streams per client address and TRUCO_STREAMS_TOTAL per "
            "server: past either a 429 (`/problems/too-many-streams`) with Retry-After."
        ),
        media_type=EVENT_STREAM,
        responses={200: _STREAM_DOC, **problem_responses(404)},
    )
    async def stream_match(
        self,
        request: Request[Any, Any, State],
        pool: NamedDependency[asyncpg.Pool],
        match_id: MatchId,
    ) -> Stream:
        try:
            last = parse_last_event_id(request.headers.get("last-event-id"))
        except ValueError as exc:
            raise ProblemError(400, str(exc), slug="bad-last-event-id") from exc
        match = await db_matches.get_match(pool, match_id)
        if match is None:
            raise ProblemError(404, f"there is no match {match_id}", slug="match-not-found")
        if match.status not in OPEN_STATUSES:
            return _stream(_once(end_of_match(match, match_id)))
        slot = _slot(request)
        state = request.app.state
        reader = reader_for(state, services_of(state).settings.redis)
        hub = hub_of(state)
        hub.listen(reader.notifications)

        async def poller(feed: Feed) -> None:
            await poll_match(feed, reader, match_id, decided_in(pool, match_id))

        cursor = 0 if last is None else last + 1
        body = _watching(hub, ("match", match_id), poller, cursor, slot)
        return _stream(body, slot)

    @get(
        "/v1/tournaments/{tournament_id:int}/stream",
        operation_id="streamTournament",
        summary="A tournament as it is played: Server-Sent Events",
        description=(
            "`text/event-stream`. First every match (`event: match`, "
            "`{id, round, board, status, winner_side, games_won}`) and the tournament "
            "(`event: tournament`, `{tournament_id, status, current_round}`), then each change "
            "as it is seen (checked every second); `event: end` once the tournament is "
            "finished or cancelled (at once if it already is). Messages are states, not "
            "deltas: a client reconnecting gets the whole picture again. Same caps as the "
            "match stream."
        ),
        media_type=EVENT_STREAM,
        responses={200: _STREAM_DOC, **problem_responses(404)},
    )
    async def stream_tournament(
        self,
        request: Request[Any, Any, State],
        pool: NamedDependency[asyncpg.Pool],
        tournament_id: TournamentId,
    ) -> Stream:
        tournament = await db_tournaments.get_tournament(pool, tournament_id)
        if tournament is None:
            raise ProblemError(
                404, f"there is no tournament {tournament_id}", slug="tournament-not-found"
            )
        if tournament.status not in LIVE_TOURNAMENT_STATUSES:
            head = TournamentHead(tournament.id, tournament.status, tournament.current_round)
            return _stream(_once(json_frame(head, event="end")))
        slot = _slot(request)
        poller = partial(poll_tournament, pool=pool, tournament_id=tournament_id)
        body = _watching(hub_of(request.app.state), ("tournament", tournament_id), poller, 0, slot)
        return _stream(body, slot)
