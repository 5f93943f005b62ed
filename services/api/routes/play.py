"""``/v1/play``: a person plays a bot (docs/play.md).

``POST /v1/play`` starts a match of a person against a bot, played by a bot-calling worker
with the session's state in Redis, so any API process serves it (:mod:`services.api.
play_sessions`), and answers its id and a token (shown once; send it as
``X-Play-Token``, or ``?token=`` where a header cannot be set: EventSource). Without an
account the opponent is a house bot; with one, any open bot or one's own. The person's view is
their own seat's observation and the decision they owe: ``GET /v1/play/{id}`` (with
``?after=VERSION``, a long poll), ``GET /v1/play/{id}/stream`` (Server-Sent Events);
``POST /v1/play/{id}/act`` answers it, ``POST /v1/play/{id}/leave`` forfeits.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
from collections.abc import AsyncIterator
from typing import Annotated, Any, Final

import asyncpg
from litestar import Controller, Request, Response, get, post
from litestar.background_tasks import BackgroundTask
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import JSONBody, Parameter
from litestar.response import Stream
from redis.exceptions import RedisError

from arena.client.connection import BotConnection, HttpBot
from arena.client.egress import EgressPolicy
from arena.match.entrants import BadBotSpec, builtin_bot, builtin_name
from arena.match.human import Turn, check_choice
from arena.match.replay import EntrantRecord, Replay
from arena.match.runner import MatchSettings
from arena.wire.protocol import ActResponse
from engine.rules import Rules
from services.api.auth import OPTIONAL_SECURITY, PLAY_SECURITY, request_account
from services.api.deps import Services, services_of
from services.api.guard import play_limits
from services.api.guard.client_address import client_address_reader
from services.api.guard.read_lane import READ_LANE
from services.api.guard.request_caps import held_long
from services.api.guard.stream_caps import Slot
from services.api.play_sessions import PlayRoom
from services.api.problems import ProblemError, problem_responses
from services.api.routes.streams import caps_of
from services.api.schemas.play import Opponent, PlayAct, PlayCreate, PlayCreated, PlayView
from services.api.sse.frames import HEARTBEAT, json_frame, parse_last_event_id
from services.base.secretbox import SecretBoxError
from services.db import bots as db_bots
from services.db import play_matches as db_play
from services.db.bots import Bot
from services.domain.match_order import EntrantOrder
from services.play.items import PersonAnswer, PlayOrder, PlayStatic
from services.play.store import Session
from services.worker.results.play_results import end_play
from services.worker.senders import send_play

HOUSE_ACCOUNT: Final = "house"
"""The account whose open bots are house bots in local mode (``services.launch.local``)."""
TOKEN_HEADER: Final = "x-play-token"
TOKEN_BYTES: Final = 32
"""Random bytes of a play token (43 characters of URL-safe base64), as docs/security.md says."""
LONG_POLL_S: Final = 25.0
HEARTBEAT_S: Final = 15.0
ACT_WAIT_S: Final = 2.0
"""How long an answer waits for the player to take it (it answers with what came of it)."""
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
Since = Annotated[
    int | None,
    Parameter(
        ge=0,
        le=2**31,
        description=(
            "the view's `log` from this item number on (default: the items of the current "
            "game); on the stream, each later view holds the items since the one before"
        ),
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
        found = state[_ROOM] = PlayRoom.of(services_of(state).settings)
    return found


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def _unavailable() -> ProblemError:
    """The sessions' Redis does not answer: a 503 to try again, never a 500."""
    return ProblemError(
        503,
        "play sessions are unavailable for a moment; try again",
        slug="play-unavailable",
        headers={"Retry-After": "5"},
    )


def _not_found(play_id: int) -> ProblemError:
    return ProblemError(404, f"there is no play session {play_id}", slug="play-not-found")


async def _session(request: Request[Any, Any, State], play_id: int, token: str | None) -> Session:
    """The session ``play_id`` (from Redis: any process serves it) whose token the request
    carries (401 without one, 403 with another's, 404 when there is none)."""
    try:
        session = await room_of(request.app.state).read(play_id)
    except RedisError as exc:
        raise _unavailable() from exc
    if session is None:
        raise _not_found(play_id)
    given = request.headers.get(TOKEN_HEADER) or token
    if not given:
        raise ProblemError(
            401,
            "send the session's token as the X-Play-Token header (or ?token=)",
            slug="play-token-missing",
        )
    if not hmac.compare_digest(_digest(given).hex(), session.token):
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


async def _entrant(pool: asyncpg.Pool, svc: Services, bot: Bot) -> EntrantOrder:
    """The bot as a worker plays it: its URL and decrypted signing secret, as a match order
    carries them (a ``builtin:`` house bot needs no secret)."""
    if builtin_name(bot.url) is not None:
        return EntrantOrder(bot.id, bot.name, bot.url, "")
    sealed = await db_bots.signing_secret(pool, bot.id)
    if sealed is None:
        raise ProblemError(409, f"bot {bot.id} cannot play now", slug="bot-unavailable")
    try:
        secret = svc.secret_box.decrypt(sealed[0], bot.id)
    except SecretBoxError as exc:  # sealed under another key: it cannot be called now
        raise ProblemError(409, f"bot {bot.id} cannot play now", slug="bot-unavailable") from exc
    return EntrantOrder(bot.id, bot.name, bot.url, secret)


def _connection(svc: Services, entrant: EntrantOrder, seed: int) -> BotConnection:
    """How this process reaches a bot when it plays a session itself (no workers share its
    Redis: see :mod:`services.api.play_sessions`)."""
    if builtin_name(entrant.url) is not None:
        try:
            return builtin_bot(entrant.url, seed=seed, label=entrant.name)
        except BadBotSpec as exc:
            raise ProblemError(
                409, f"bot {entrant.bot_id} cannot play: {exc}", slug="bot-unavailable"
            ) from exc
    policy = EgressPolicy(allow_loopback=svc.settings.allow_loopback_bots)
    client = svc.bot_client_factory(entrant.url, entrant.secret, policy)
    return HttpBot(entrant.name, client)


class PlayController(Controller):
    path = "/v1/play"
    tags = ("play",)

    @post(
        "/",
        operation_id="createPlay",
        security=OPTIONAL_SECURITY,
        summary="Play a bot yourself: start a match of a person against a bot",
        description=(
            "No account needed for the house bots (`bot_id` left out: the house heuristic); "
            "signed in (`Authorization: Bearer`), any open bot or your own. `players: 4` is a "
            "2v2: you and a house bot partner against two seats of the bot (señas go with an "
            "action as `sena`). Rules: to 15 or 30 points, flor or not, 1 to 3 games. The "
            "answer's `token` is shown once: send it as `X-Play-Token` (or `?token=`) to see "
            "and act. Each decision has a clock "
            "(TRUCO_PLAY_CLOCK_S, 60 s) and each game a bank of thinking time "
            "(TRUCO_PLAY_BANK_S, 300 s; a decision's clock is at most what is left): no answer "
            "is a timeout fault and the fallback action is played; the fault limit forfeits. "
            "Matches against people never change a bot's rating. Caps: TRUCO_PLAY_PER_ADDRESS "
            "sessions at once per client address, "
            "TRUCO_PLAY_TOTAL on the platform, TRUCO_PLAY_STARTS_PER_HOUR starts an hour per "
            "address: past any, a 429 (`/problems/too-many-play-sessions`)."
        ),
        status_code=201,
        responses=problem_responses(401, 403, 404, 409, 413, 415, 422, 429, 503),
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
        assert svc.settings.secrets.key is not None
        address_key = play_limits.address_key(svc.settings.secrets.key, address)
        room = room_of(request.app.state)
        digest = address_key.hex()
        try:
            reservation = await play_limits.admit(pool, room.store, limits, digest, address_key)
        except RedisError as exc:
            raise _unavailable() from exc
        try:
            rules = Rules(players=data.players, points_to_win=data.points_to_win, flor=data.flor)
            settings = MatchSettings(rules=rules, games_per_match=data.games)
            seed = secrets.randbits(62)
            token = secrets.token_urlsafe(TOKEN_BYTES)
            entrants = [await _entrant(pool, svc, bot)]
            if partner is not None:
                entrants += [await _entrant(pool, svc, partner), entrants[0]]
            local: list[tuple[EntrantRecord, BotConnection]] = []
            if not room.on_workers:
                local = [
                    (EntrantRecord(e.name, f"bot:{e.bot_id}"), _connection(svc, e, seed + 1 + i))
                    for i, e in enumerate(entrants)
                ]
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
            await room.store.release(digest, reservation)
            raise
        static = PlayStatic(
            opponent=Opponent(bot_id=bot.id, name=bot.name),
            partner=None if partner is None else Opponent(bot_id=partner.id, name=partner.name),
            person_side=0,
            settings=settings,
        )
        await room.store.create(stored.id, stored.token_hash, digest, static, reservation)
        order = PlayOrder(
            play_id=stored.id,
            seed=seed,
            settings=settings,
            bots=entrants,
            clock_s=limits.clock_s,
            bank_s=limits.bank_s,
            address=digest,
        )
        if room.on_workers:
            try:
                await asyncio.to_thread(send_play, order)
            except Exception as exc:
                await end_play(pool, room.store, stored.id, None, "no worker could be asked")
                raise ProblemError(
                    503,
                    "the session could not be handed to a worker; try again",
                    slug="play-unavailable",
                ) from exc
        else:
            room.play_here(pool, order, local)
        session = await room.read(stored.id)
        assert session is not None
        return PlayCreated(id=stored.id, token=token, view=await room.view(session))

    @get(
        "/{play_id:int}",
        opt={READ_LANE: False},  # a long poll (no database)
        operation_id="getPlay",
        security=PLAY_SECURITY,
        summary="A play session as the person sees it (a long poll with ?after=)",
        description=(
            "Your seat's observation (never the bot's unplayed cards), the decision you owe "
            "(`turn`: its `number`, `legal_actions` and the clock) and, once over, the outcome "
            "and the replay's address. With `after=VERSION` it answers as soon as `version` "
            "is past it (or after 25 s)."
        ),
        responses=problem_responses(401, 403, 404, 503),
    )
    async def get_play(
        self,
        request: Request[Any, Any, State],
        play_id: PlayId,
        token: Token = None,
        after: After = None,
        since: Since = None,
    ) -> PlayView:
        session = await _session(request, play_id, token)
        room = room_of(request.app.state)
        if after is not None and session.status == "playing":
            held_long(request.scope)  # a long poll: not a request in flight of the server
            session = await room.wait_change(play_id, after, LONG_POLL_S) or session
        return await room.view(session, since)

    @get(
        "/{play_id:int}/stream",
        opt={READ_LANE: False},
        operation_id="streamPlay",
        security=PLAY_SECURITY,
        summary="A play session as the person sees it: Server-Sent Events",
        description=(
            "`text/event-stream`: the whole view (as GET /v1/play/{id}) at once and on every "
            "change (`event: view`, `id` its version), a comment every 15 s when idle, and "
            "`event: end` with the last view when the match is over. Any API process serves "
            "it: a client reconnecting with `Last-Event-ID` (the last view's version) gets "
            "the views after it, their log items from where it stopped (no gap, no "
            "duplicate). It counts against the "
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
            **problem_responses(401, 403, 404, 503),
        },
    )
    async def stream_play(
        self,
        request: Request[Any, Any, State],
        play_id: PlayId,
        token: Token = None,
        since: Since = None,
    ) -> Stream:
        await _session(request, play_id, token)
        room = room_of(request.app.state)
        shown = -1
        try:
            last = parse_last_event_id(request.headers.get("last-event-id"))
        except ValueError as exc:
            raise ProblemError(400, str(exc), slug="bad-last-event-id") from exc
        if last is not None:  # a reconnection: on from the view it had, on any process
            held = await room.store.mark(play_id, last)
            if held is None:
                raise ProblemError(
                    400,
                    f"Last-Event-ID {last} is not a version of this session's views",
                    slug="bad-last-event-id",
                )
            since, shown = held, last
        settings = services_of(request.app.state).settings
        address = client_address_reader(settings.web.trusted_proxies)(request)
        slot = caps_of(request.app.state).acquire(address)  # the live streams' caps
        if slot is not None:
            held_long(request.scope)
        if slot is None:
            raise ProblemError(
                429,
                "too many open live streams (from this address or on this server); close one "
                "or poll GET /v1/play/{id}?after= instead",
                slug="too-many-streams",
                headers={"Retry-After": "30"},
            )
        return Stream(
            _views(room, play_id, slot, since, shown),
            media_type=EVENT_STREAM,
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
            background=BackgroundTask(slot.release),
        )

    @post(
        "/{play_id:int}/act",
        operation_id="actInPlay",
        security=PLAY_SECURITY,
        summary="Answer the decision you owe with one of its legal actions",
        description=(
            "`number` is the open turn's; `action` and `card` one of its `legal_actions`; "
            "in 2v2 a `sena` may go with it (one of the protocol's señas). A stale number is a "
            "409 (`/problems/play-turn-closed`), an action that is not legal now a 422 "
            "(`/problems/illegal-action`)."
        ),
        status_code=200,
        responses=problem_responses(401, 403, 404, 409, 413, 415, 422, 503),
    )
    async def act(
        self,
        request: Request[Any, Any, State],
        play_id: PlayId,
        data: JSONBody[PlayAct],
        token: Token = None,
        since: Since = None,
    ) -> PlayView:
        session = await _session(request, play_id, token)
        if session.status != "playing":
            raise ProblemError(409, "this match is over", slug="play-over")
        response = ActResponse(action=data.action, card=data.card, sena=data.sena)
        open_turn = session.seat.turn
        turn = None
        if open_turn is not None and open_turn.number > session.answered:
            turn = Turn(number=open_turn.number, request=open_turn.request, clock_ms=0)
        rejected = check_choice(turn, data.number, response)
        if rejected is not None:
            if rejected.kind == "stale":
                raise ProblemError(409, rejected.detail, slug="play-turn-closed")
            raise ProblemError(422, rejected.detail, slug="illegal-action")
        room = room_of(request.app.state)
        answer = PersonAnswer(
            number=data.number, action=data.action, card=data.card, sena=data.sena
        )
        taken = await room.store.answer(play_id, answer)
        if taken == "over":
            raise ProblemError(409, "this match is over", slug="play-over")
        if taken != "ok":
            detail = f"decision {data.number} is not open (answered, or its clock ran out)"
            raise ProblemError(409, detail, slug="play-turn-closed")
        # the player takes it at once: answer with what it made of it
        session = await room.wait_change(play_id, session.version, ACT_WAIT_S) or session
        return await room.view(session, since)

    @post(
        "/{play_id:int}/leave",
        operation_id="leavePlay",
        security=PLAY_SECURITY,
        summary="Leave the table: the match is forfeited",
        description=(
            "The person's side forfeits the match at once; the answer is the session's final "
            "view. Needs the session's token (X-Play-Token, or ?token=)."
        ),
        status_code=200,
        responses=problem_responses(401, 403, 404, 503),
    )
    async def leave(
        self, request: Request[Any, Any, State], play_id: PlayId, token: Token = None
    ) -> PlayView:
        session = await _session(request, play_id, token)
        room = room_of(request.app.state)
        if session.status == "playing" and await room.store.leave(play_id):
            session = await _settled(room, session)
        return await room.view(session)

    @get(
        "/{play_id:int}/replay",
        operation_id="getPlayReplay",
        summary="The replay of a finished play match (verifiable like any match's)",
        description=(
            "The replay document of the match once it is over, the same format as GET "
            "/v1/matches/{match_id}/replay (`truco replay verify` checks it); public, like "
            "every match's replay. 404 while the session plays, or for an unknown one."
        ),
        responses={
            200: ResponseSpec(
                data_container=Replay,
                description="The replay document",
                generate_examples=False,
            ),
            **problem_responses(404),
        },
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


async def _settled(room: PlayRoom, session: Session, timeout_s: float = 10.0) -> Session:
    """Wait (a little) for a left session's match to end: its faults are instant."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    while session.status == "playing":
        left = deadline - asyncio.get_running_loop().time()
        if left <= 0:
            break
        session = await room.wait_change(session.play_id, session.version, left) or session
    return session


def _frame(view: PlayView, event: str) -> bytes:
    return json_frame(view, event=event, id=view.version)  # the log's events: encoded once


async def _views(
    room: PlayRoom, play_id: int, slot: Slot, since: int | None, shown: int
) -> AsyncIterator[bytes]:
    try:
        async for chunk in _changes(room, play_id, since, shown):
            yield chunk
    finally:
        slot.release()


async def _changes(
    room: PlayRoom, play_id: int, since: int | None, shown: int
) -> AsyncIterator[bytes]:
    """Each view once, with the log items this stream has not sent yet (none is skipped:
    views may be merged when changes come faster than they are sent, their items never).
    ``shown``: the version a reconnecting client had (its items up to ``since``)."""
    session = await room.read(play_id)
    while session is not None:
        if session.status != "playing" or session.version != shown:
            view = await room.view(session, since)
            since = session.seat.log_len
            if session.status != "playing":
                yield _frame(view, "end")
                return
            shown = session.version
            yield _frame(view, "view")
        session = await room.wait_change(play_id, shown, HEARTBEAT_S)
        if session is not None and session.version == shown and session.status == "playing":
            yield HEARTBEAT
