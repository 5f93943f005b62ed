"""Matches: read one, its replay, and a bot's match history."""

from __future__ import annotations

from typing import Annotated, Any, cast

import asyncpg
import msgspec
from litestar import Controller, Request, Response, get
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import Parameter

from arena.match.replay import Replay
from services.api.deps import services_of
from services.api.params import BotIdParam
from services.api.problems import ProblemError, problem_responses
from services.api.routes.bodies import entrants_of, match_read
from services.api.schemas.matches import LiveReplay, MatchPage, MatchRead
from services.db import bots as db_bots
from services.db import matches as db_matches
from services.db.matches import StoredMatch
from services.domain import OPEN_STATUSES
from services.live.feed import LIVE_FORMAT, last_run
from services.live.reader import reader_for

MatchId = Annotated[int, Parameter(ge=1, le=2**63 - 1, description="the match's id")]


def _not_found(match_id: int) -> ProblemError:
    return ProblemError(404, f"there is no match {match_id}", slug="match-not-found")


class MatchController(Controller):
    path = "/v1/matches"
    tags = ("matches",)

    @get(
        "/{match_id:int}",
        operation_id="getMatch",
        summary="A match: entrants, games (score by side, winner), winner",
        description=(
            "The seed is shown once the match is over and no worker plays it any more (a "
            "match decided without its play, cancelled or withdrawn, may still be stopping)."
        ),
        responses=problem_responses(400, 404),
    )
    async def get_match(self, pool: NamedDependency[asyncpg.Pool], match_id: MatchId) -> MatchRead:
        match = await db_matches.get_match(pool, match_id)
        if match is None:
            raise _not_found(match_id)
        names = await db_matches.entrant_names(pool, list(match.bots))
        return match_read(match, names)

    @get(
        "/{match_id:int}/replay",
        operation_id="getMatchReplay",
        summary="The replay of a match: whole once finished, the spectator view while live",
        description=(
            "A finished match: seed, `deals` (independent or mirrored), rules and every "
            "game's deal and events (actions, say, faults, latencies), as verified by `truco "
            "replay verify` (format truco-arena-replay/2; a match stored before version 2 has "
            "`duplicate: true` in place of `deals: mirrored`). A pending, queued or running "
            'match: the spectator view so far (docs/rules.md, R-11), marked `"live": true` '
            "(format truco-arena-live/1): per "
            "game its seating, score and events without deals, señas or seeds; a "
            "`hand_started` event has no `deal`, a `decision` only its seat, latency and fault "
            "kind. A bye or a forfeit without play has no replay (404); a cancelled match is "
            "a 409."
        ),
        responses={
            200: ResponseSpec(
                # a union, which Litestar documents as oneOf (its annotation wants one type)
                data_container=cast("type[Any]", Replay | LiveReplay),
                description="The replay document, or the live spectator document",
                generate_examples=False,
            ),
            **problem_responses(400, 404, 409),
        },
    )
    async def get_replay(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        match_id: MatchId,
    ) -> Response[bytes]:
        match = await db_matches.get_match(pool, match_id)
        if match is None:
            raise _not_found(match_id)
        if match.status in OPEN_STATUSES:
            live = await _live(request, pool, match)
            if live is not None:
                return Response(content=live, media_type="application/json")
            match = await db_matches.get_match(pool, match_id)  # finished meanwhile
            assert match is not None
        if not match.finished:
            raise ProblemError(
                409,
                f"match {match_id} is {match.status}; its replay is served once it is finished",
                slug="match-not-finished",
            )
        document = await db_matches.replay_json(pool, match_id)
        if document is None:
            raise ProblemError(
                404,
                f"match {match_id} was decided without play: it has no replay",
                slug="no-replay",
            )
        return Response(content=document, media_type="application/json")


async def _live(
    request: Request[object, object, State], pool: asyncpg.Pool, match: StoredMatch
) -> bytes | None:
    """The live document of an open match; None if the match finished while reading (its
    live items are deleted once the result is stored: serve the stored replay then)."""
    state = request.app.state
    reader = reader_for(state, services_of(state).settings.redis)
    items = await reader.items(match.id)
    if not items:
        now = await db_matches.get_match(pool, match.id)
        if now is not None and now.finished:
            return None
    names = await db_matches.entrant_names(pool, list(match.bots))
    document = LiveReplay(
        format=LIVE_FORMAT,
        live=True,
        match_id=match.id,
        status=match.status,
        rules=match.rules,
        entrants=entrants_of(match, names),
        games=last_run(items),
    )
    return msgspec.json.encode(document)


class BotMatchController(Controller):
    path = "/v1/bots"
    tags = ("bots", "matches")

    @get(
        "/{bot_id:int}/matches",
        operation_id="listBotMatches",
        summary="A bot's matches, newest first",
        description="Keyset pages: pass the response's next_cursor as cursor; null means done.",
        responses=problem_responses(400, 404),
    )
    async def list_bot_matches(
        self,
        pool: NamedDependency[asyncpg.Pool],
        bot_id: BotIdParam,
        limit: Annotated[int, Parameter(ge=1, le=100, description="page size")] = 20,
        cursor: Annotated[
            int | None,
            Parameter(ge=1, le=2**63 - 1, description="the next_cursor of the previous page"),
        ] = None,
    ) -> MatchPage:
        if await db_bots.get_bot(pool, bot_id) is None:
            raise ProblemError(404, f"there is no bot {bot_id}", slug="bot-not-found")
        page, more = await db_matches.bot_matches(pool, bot_id, limit=limit, cursor=cursor)
        names = await db_matches.entrant_names(pool, sorted({b for m in page for b in m.bots}))
        return MatchPage(
            items=[match_read(m, names) for m in page],
            next_cursor=page[-1].id if more and page else None,
        )
