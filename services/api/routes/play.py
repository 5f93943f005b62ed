"""``/v1/play``: a person plays a bot (docs/play.md).

``POST /v1/play`` starts a match of a person against a bot in this API process
(:mod:`services.api.play_sessions`) and answers its id and a token (shown once; send it as
``X-Play-Token``, or ``?token=`` where a header cannot be set: EventSource). Without an
account the opponent is a house bot; with one, any open bot or one's own. The person's view is
their own seat's observation and the decision they owe: ``GET /v1/play/{id}`` (with
``?after=VERSION``, a long poll), ``GET /v1/play/{id}/stream`` (Server-Sent Events);
``POST /v1/play/{id}/act`` answers it, ``POST /v1/play/{id}/leave`` forfeits.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Final

import asyncpg
from litestar import Controller, Request, Response, get, post
from litestar.background_tasks import BackgroundTask
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import JSONBody, Parameter
from litestar.response import Stream

from arena.client.connection import BotConnection, HttpBot
from arena.client.egress import EgressPolicy
from arena.match.entrants import BadBotSpec, builtin_bot, builtin_name
from arena.match.human import HumanSeat
from arena.match.replay import EntrantRecord
from arena.match.runner import MatchSettings
from arena.wire.protocol import ActResponse
from engine.rules import Rules
from services.api.auth import request_account
from services.api.deps import Services, services_of
from services.api.guard.client_address import client_address_reader
from services.api.guard.stream_caps import Slot, StreamCaps
from services.api.play_sessions import PlayRoom, PlaySession
from services.api.problems import ProblemError, problem_responses
from services.api.routes.streams import caps_of
from services.api.schemas.play import Opponent, PlayAct, PlayCreate, PlayCreated, PlayView
from services.api.sse.frames import HEARTBEAT, json_frame
from services.base.secretbox import SecretBoxError
from services.db import bots as db_bots
from services.db import play_matches as db_play
from services.db.bots import Bot

HOUSE_ACCOUNT: Final = "house"
"""The account whose open bots are house bots in local mode (``services.launch.local``)."""
TOKEN_HEADER: Final = "x-play-token"
LONG_POLL_S: Final = 25.0
HEARTBEAT_S: Final = 15.0
_ROOM: Final = "play_room"
EVENT_STREAM: Final = "text/event-stream"

PlayId = Annotated[int, Parameter(ge=1, le=2**63 - 1, description="the play session's id")]
Token = Annotated[
    str | None,
    Parameter(
        max_length=100,
        description="the session's token, where the X-Play-Token header cannot be sent",
    ),
]
After = Annotated[
    int | None,
    Parameter(
        ge=0,
        le=2**31,
        description="answer once the view's version is past this (a long poll, up to 25 s)",
    ),
]


def room_of(state: State) -> PlayRoom:
    found = state.get(_ROOM)
    if not isinstance(found, PlayRoom):
        limits = services_of(state).settings.play
        found = state[_ROOM] = PlayRoom(
            StreamCaps(per_address=limits.per_address, total=limits.total)
        )
    return found


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _address_key(svc: Services, address: str) -> bytes:
    assert svc.settings.secrets.key is not None
    key = svc.settings.secrets.key.reveal().encode()
    return hmac.new(key, b"play-address:" + address.encode(), hashlib.sha256).digest()


def _not_found(play_id: int) -> ProblemError:
    return ProblemError(404, f"there is no play session {play_id}", slug="play-not-found")


def _session(request: Request[Any, Any, State], play_id: int, token: str | None) -> PlaySession:
    """The live session ``play_id`` whose token the request carries (401 without one, 403
    with another's, 404 when there is none in this process)."""
    session = room_of(request.app.state).get(play_id)
    if session is None:
        raise _not_found(play_id)
    given = request.headers.get(TOKEN_HEADER) or token
    if not given:
        raise ProblemError(
            401,
            "send the session's token as the X-Play-Token header (or ?token=)",
            slug="play-token-missing",
        )
    if not hmac.compare_digest(_digest(given), session.token_hash):
        raise ProblemError(403, "this token is not this play session's", slug="play-token-wrong")
    return session


async def _opponent(
    pool: asyncpg.Pool, request: Request[Any, Any, State], bot_id: int | None
) -> Bot:
    """The bot to play: a house bot by default; any open bot (or one's own) when signed in."""
    svc = services_of(request.app.state)
    house_name = HOUSE_ACCOUNT if svc.settings.allow_loopback_bots else None
    house = await db_play.house_bots(pool, house_account=house_name)
    if bot_id is None:
        if not house:
            raise ProblemError(
                404, "there is no house bot to play on this server", slug="no-house-bot"
            )
        exact = [b for b in house if b.url == "builtin:heuristic" or b.name == "house-heuristic"]
        heuristic = [b for b in house if "heuristic" in b.url or "heuristic" in b.name]
        return (exact or heuristic or house)[0]
    for known in house:
        if known.id == bot_id:
            return known
    account = await request_account(request)
    if account is None:
        raise ProblemError(
            401,
            "without an account you may play the house bots only; sign in "
            "(Authorization: Bearer <api_key>) to play another open bot",
            slug="play-needs-account",
        )
    bot = await db_bots.get_bot(pool, bot_id)
    if bot is None or bot.status == "deleted":
        raise ProblemError(404, f"there is no bot {bot_id}", slug="bot-not-found")
    if not bot.open and bot.owner_id != account.id:
        raise ProblemError(403, f"bot {bot_id} is not open to play", slug="bot-not-open")
    if bot.status != "active":
        raise ProblemError(409, f"bot {bot_id} is unavailable now", slug="bot-unavailable")
    return bot


async def _connection(
    pool: asyncpg.Pool, svc: Services, bot: Bot, seed: int
) -> tuple[EntrantRecord, BotConnection]:
    if builtin_name(bot.url) is not None:
        try:
            return EntrantRecord(bot.name, f"bot:{bot.id}"), builtin_bot(
                bot.url, seed=seed, label=bot.name
            )
        except BadBotSpec as exc:
            raise ProblemError(
                409, f"bot {bot.id} cannot play: {exc}", slug="bot-unavailable"
            ) from exc
    sealed = await db_bots.signing_secret(pool, bot.id)
    if sealed is None:
        raise ProblemError(409, f"bot {bot.id} cannot play now", slug="bot-unavailable")
    try:
        secret = svc.secret_box.decrypt(sealed[0], bot.id)
    except SecretBoxError as exc:  # sealed under another key: it cannot be called now
        raise ProblemError(409, f"bot {bot.id} cannot play now", slug="bot-unavailable") from exc
    policy = EgressPolicy(allow_loopback=svc.settings.allow_loopback_bots)
    client = svc.bot_client_factory(bot.url, secret, policy)
    return EntrantRecord(bot.name, f"bot:{bot.id}"), HttpBot(bot.name, client)


class PlayController(Controller):
    path = "/v1/play"
    tags = ("play",)

    @post(
        "/",
        operation_id="createPlay",
        summary="Play a bot yourself: start a match of a person against a bot",
        description=(
            "No account needed for the house bots (`bot_id` left out: the house heuristic); "
            "signed in (`Authorization: Bearer`), any open bot or your own. `players: 4` is a "
            "2v2: you and a house bot partner against two seats of the bot (señas go with an "
            "action as `sena`). Rules: to 15 or 30 points, flor or not, 1 to 3 games. The "
            "answer's `token` is shown once: send it as `X-Play-Token` (or `?token=`) to see "
            "and act. Each decision has a clock "
            "(TRUCO_PLAY_CLOCK_S, 60 s): no answer is a timeout fault and the fallback action "
            "is played; the fault limit forfeits. Matches against people never change a bot's "
            "rating. Caps: TRUCO_PLAY_PER_ADDRESS sessions at once per client address, "
            "TRUCO_PLAY_TOTAL per server, TRUCO_PLAY_STARTS_PER_HOUR starts an hour per "
            "address: past any, a 429 (`/problems/too-many-play-sessions`)."
        ),
        status_code=201,
        responses=problem_responses(401, 403, 404, 409, 413, 415, 422, 429),
    )
    async def create_play(
        self,
        request: Request[Any, Any, State],
        data: JSONBody[PlayCreate],
        pool: NamedDependency[asyncpg.Pool],
    ) -> PlayCreated:
        svc = services_of(request.app.state)
        limits = svc.settings.play
        bot = await _opponent(pool, request, data.bot_id)
        partner = None if data.players == 2 else await _opponent(pool, request, None)
        address = client_address_reader(svc.settings.web.trusted_proxies)(request)
        address_key = _address_key(svc, address)
        since = datetime.now(UTC) - timedelta(hours=1)
        if await db_play.starts_since(pool, address_key, since) >= limits.starts_per_hour:
            raise ProblemError(
                429,
                f"at most {limits.starts_per_hour} play sessions an hour from one address",
                slug="too-many-play-sessions",
                headers={"Retry-After": "600"},
            )
        room = room_of(request.app.state)
        slot = room.caps.acquire(address)
        if slot is None:
            raise ProblemError(
                429,
                "too many play sessions going on (from this address or on this server); "
                "finish or leave one first",
                slug="too-many-play-sessions",
                headers={"Retry-After": "60"},
            )
        bots: list[tuple[EntrantRecord, BotConnection]] = []
        try:
            rules = Rules(players=data.players, points_to_win=data.points_to_win, flor=data.flor)
            settings = MatchSettings(rules=rules, games_per_match=data.games)
            seed = secrets.randbits(62)
            token = secrets.token_urlsafe(24)
            bots.append(await _connection(pool, svc, bot, seed + 1))
            if partner is not None:
                bots.append(await _connection(pool, svc, partner, seed + 2))
                bots.append(await _connection(pool, svc, bot, seed + 3))
            stored = await db_play.create_play_match(
                pool,
                bot_id=bot.id,
                account_id=None if (a := await request_account(request)) is None else a.id,
                person_side=0,
                rules=rules,
                games=data.games,
                seed=seed,
                token_hash=_digest(token),
                address_key=address_key,
            )
        except BaseException:
            slot.release()
            for _, connection in bots:
                await connection.close()
            raise
        session = PlaySession(
            id=stored.id,
            token_hash=stored.token_hash,
            seat=HumanSeat("person", clock_s=limits.clock_s),
            opponent=Opponent(bot_id=bot.id, name=bot.name),
            person_side=0,
            settings=settings,
            slot=slot,
            partner=None if partner is None else Opponent(bot_id=partner.id, name=partner.name),
        )
        room.begin(pool, session, bots, seed)
        return PlayCreated(id=session.id, token=token, view=session.view())

    @get(
        "/{play_id:int}",
        operation_id="getPlay",
        summary="A play session as the person sees it (a long poll with ?after=)",
        description=(
            "Your seat's observation (never the bot's unplayed cards), the decision you owe "
            "(`turn`: its `number`, `legal_actions` and the clock) and, once over, the outcome "
            "and the replay's address. With `after=VERSION` it answers as soon as `version` "
            "is past it (or after 25 s)."
        ),
        responses=problem_responses(401, 403, 404),
    )
    async def get_play(
        self,
        request: Request[Any, Any, State],
        play_id: PlayId,
        token: Token = None,
        after: After = None,
    ) -> PlayView:
        session = _session(request, play_id, token)
        if after is not None and session.status == "playing":
            await session.seat.wait_change(after, LONG_POLL_S)
        return session.view()

    @get(
        "/{play_id:int}/stream",
        operation_id="streamPlay",
        summary="A play session as the person sees it: Server-Sent Events",
        description=(
            "`text/event-stream`: the whole view (as GET /v1/play/{id}) at once and on every "
            "change (`event: view`, `id` its version), a comment every 15 s when idle, and "
            "`event: end` with the last view when the match is over. It counts against the "
            "live streams' caps (TRUCO_STREAMS_PER_ADDRESS, TRUCO_STREAMS_TOTAL: a 429 "
            "`/problems/too-many-streams` past them)."
        ),
        media_type=EVENT_STREAM,
        responses={
            200: ResponseSpec(
                data_container=str,
                description="A text/event-stream of views",
                media_type=EVENT_STREAM,
                generate_examples=False,
            ),
            **problem_responses(401, 403, 404),
        },
    )
    async def stream_play(
        self, request: Request[Any, Any, State], play_id: PlayId, token: Token = None
    ) -> Stream:
        session = _session(request, play_id, token)
        settings = services_of(request.app.state).settings
        address = client_address_reader(settings.web.trusted_proxies)(request)
        slot = caps_of(request.app.state).acquire(address)  # the live streams' caps
        if slot is None:
            raise ProblemError(
                429,
                "too many open live streams (from this address or on this server); close one "
                "or poll GET /v1/play/{id}?after= instead",
                slug="too-many-streams",
                headers={"Retry-After": "30"},
            )
        return Stream(
            _views(session, slot),
            media_type=EVENT_STREAM,
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
            background=BackgroundTask(slot.release),
        )

    @post(
        "/{play_id:int}/act",
        operation_id="actInPlay",
        summary="Answer the decision you owe with one of its legal actions",
        description=(
            "`number` is the open turn's; `action` and `card` one of its `legal_actions`; "
            "in 2v2 a `sena` may go with it (one of the protocol's señas). A stale number is a "
            "409 (`/problems/play-turn-closed`), an action that is not legal now a 422 "
            "(`/problems/illegal-action`)."
        ),
        status_code=200,
        responses=problem_responses(401, 403, 404, 409, 413, 415, 422),
    )
    async def act(
        self,
        request: Request[Any, Any, State],
        play_id: PlayId,
        data: JSONBody[PlayAct],
        token: Token = None,
    ) -> PlayView:
        session = _session(request, play_id, token)
        if session.status != "playing":
            raise ProblemError(409, "this match is over", slug="play-over")
        response = ActResponse(action=data.action, card=data.card, sena=data.sena)
        rejected = session.seat.submit(data.number, response)
        if rejected is not None:
            if rejected.kind == "stale":
                raise ProblemError(409, rejected.detail, slug="play-turn-closed")
            raise ProblemError(422, rejected.detail, slug="illegal-action")
        return session.view()

    @post(
        "/{play_id:int}/leave",
        operation_id="leavePlay",
        summary="Leave the table: the match is forfeited",
        status_code=200,
        responses=problem_responses(401, 403, 404),
    )
    async def leave(
        self, request: Request[Any, Any, State], play_id: PlayId, token: Token = None
    ) -> PlayView:
        session = _session(request, play_id, token)
        session.seat.leave()
        if session.task is not None and not session.task.done():
            await _settled(session)
        return session.view()

    @get(
        "/{play_id:int}/replay",
        operation_id="getPlayReplay",
        summary="The replay of a finished play match (verifiable like any match's)",
        responses=problem_responses(404),
    )
    async def replay(self, pool: NamedDependency[asyncpg.Pool], play_id: PlayId) -> Response[bytes]:
        document = await db_play.play_replay(pool, play_id)
        if document is None:
            raise ProblemError(
                404,
                f"play session {play_id} has no replay (unknown, or not over)",
                slug="play-not-found",
            )
        return Response(content=document, media_type="application/json")


async def _settled(session: PlaySession, timeout_s: float = 10.0) -> None:
    """Wait (a little) for a left session's match to end: its faults are instant."""
    version = session.seat.version
    for _ in range(50):
        if session.status != "playing":
            return
        version = await session.seat.wait_change(version, timeout_s / 50)


def _frame(view: PlayView, event: str) -> bytes:
    return json_frame(view, event=event, id=view.version)


async def _views(session: PlaySession, slot: Slot) -> AsyncIterator[bytes]:
    try:
        async for chunk in _changes(session):
            yield chunk
    finally:
        slot.release()


async def _changes(session: PlaySession) -> AsyncIterator[bytes]:
    shown = -1
    while True:
        view = session.view()
        if view.status != "playing":
            yield _frame(view, "end")
            return
        if view.version != shown:
            shown = view.version
            yield _frame(view, "view")
        version = await session.seat.wait_change(shown, HEARTBEAT_S)
        if version == shown and session.status == "playing":
            yield HEARTBEAT
