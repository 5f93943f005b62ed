"""The end of a ``/play`` session, on the trusted side (docs/play.md).

``truco.store_play_result`` (sent by the bot-calling worker that played the session): the
replay is checked as a match's is (it must unpack within a bound, be this session's, and
re-simulate through the engine), stored in ``play_matches`` (never ``matches``: no rating
changes), and only then is the session ended in Redis as ``finished`` with its outcome, so the
replay's address answers as soon as any page shows the end. Without a replay (the match
failed) the session is stored and ended as ``abandoned`` with the cause. Both are idempotent:
a session already over is left as it is.

``truco.sweep_play_sessions`` (beat, every :data:`~services.play.store.SWEEP_EVERY_S`): a
session whose player's lease ran out (its worker died, or no worker began it) is stored and
ended as ``abandoned`` with that cause, within :data:`~services.play.store.ABANDONED_WITHIN_S`
of its worker's death; never left ``playing``. So is a play match stored with no session
behind it (its API process died between storing the row and making the session in Redis, so
no worker ever heard of it), once :data:`~services.play.store.ORPHAN_AFTER_S` old.

:func:`end_play` is also what the API calls when it plays a session itself (no Redis shared
with workers: tests, a bare app).
"""

from __future__ import annotations

import logging
import time

import asyncpg
import msgspec
import redis.asyncio as aioredis

from arena.match.replay import Replay, VerifyError, load_replay
from arena.match.verify import verify_replay
from services.base.limits import STORE_HARD_LIMIT_S, STORE_SOFT_LIMIT_S
from services.db import play_matches as db_play
from services.domain.packed_replay import TooLarge, unpack
from services.domain.result import played_result
from services.play.items import outcome
from services.play.store import CAUSE_NEVER_MADE, ORPHAN_AFTER_S, PlayStore
from services.worker.app import app
from services.worker.names import STORE_PLAY_RESULT, SWEEP_PLAY_SESSIONS
from services.worker.results.db import run_db
from services.worker.results.store import TRANSIENT, BadResult
from services.worker.task import Retry, platform_task

logger = logging.getLogger(__name__)


def play_match_id(play_id: int) -> str:
    """What the runner calls a play session's match (the replay's ``match_id``)."""
    return f"play-{play_id}"


async def end_play(
    pool: asyncpg.Pool,
    store: PlayStore,
    play_id: int,
    replay: Replay | None,
    cause: str | None = None,
) -> bool:
    """Store the end of session ``play_id`` (its replay, or abandoned for ``cause``), then end
    it in Redis; False when it was over already."""
    session = await store.read(play_id)
    if replay is not None:
        await db_play.finish_play_match(
            pool,
            play_id,
            status="finished",
            winner_side=replay.result.winner,
            result=played_result(replay),
            replay=msgspec.json.encode(replay),
        )
        side = 0 if session is None else session.static.person_side
        return await store.end(play_id, "finished", outcome(replay, side), None)
    await db_play.abandon_unfinished(pool, [play_id])
    return await store.end(play_id, "abandoned", None, cause)


def _store_of(client: aioredis.Redis) -> PlayStore:
    return PlayStore(client, app.settings.redis.prefix)


def _client() -> aioredis.Redis:
    client: aioredis.Redis = aioredis.Redis.from_url(app.settings.redis.url_or_local)
    return client


def checked_replay(play_id: int, packed: bytes) -> Replay:
    """The replay sent for session ``play_id``, unpacked within its bound and verified: this
    session's match, re-simulating through the engine; else :class:`BadResult`."""
    try:
        document = unpack(packed)
    except TooLarge as exc:
        raise BadResult(f"play {play_id}: the replay does not unpack: {exc}") from None
    try:
        replay = load_replay(document)
    except VerifyError as exc:
        raise BadResult(f"play {play_id}: the replay does not decode: {exc}") from None
    if replay.match_id != play_match_id(play_id):
        raise BadResult(f"play {play_id}: the replay is for match {replay.match_id!r}")
    try:
        verify_replay(replay)
    except VerifyError as exc:
        raise BadResult(f"play {play_id}: the replay does not re-simulate: {exc}") from None
    return replay


@platform_task(
    STORE_PLAY_RESULT,
    limits=(STORE_SOFT_LIMIT_S, STORE_HARD_LIMIT_S),
    retry=Retry(TRANSIENT, max_retries=20),
)
def store_play_result(play_id: int, packed: bytes | None, cause: str | None = None) -> bool:
    """Store the end of session ``play_id`` once (see the module docstring)."""
    replay = None
    if packed is not None:
        try:
            replay = checked_replay(play_id, packed)
        except BadResult as exc:  # a replay that does not verify is never stored
            logger.error("%s; the session is abandoned", exc)
            cause = "the match's replay did not verify; the match is abandoned"

    async def work(pool: asyncpg.Pool) -> bool:
        client = _client()
        try:
            return await end_play(pool, _store_of(client), play_id, replay, cause)
        finally:
            await client.aclose()

    ended: bool = run_db(work)
    return ended


async def sweep(pool: asyncpg.Pool, store: PlayStore, now: float) -> list[int]:
    """End as abandoned every session whose lease ran out, and every play match left
    ``playing`` with no session behind it (:data:`~services.play.store.ORPHAN_AFTER_S`); their
    ids."""
    swept = []
    for play_id in await db_play.abandon_orphans(pool, await store.live_ids(), ORPHAN_AFTER_S):
        logger.warning("play session %s: %s", play_id, CAUSE_NEVER_MADE)
        swept.append(play_id)
    for member in await store.expired(now):
        if not member.isdigit():  # a new session's reservation that was never made
            await store.forget(member)
            continue
        play_id = int(member)
        replay, cause = await _handed(store, play_id)
        if replay is not None:
            if await end_play(pool, store, play_id, replay):
                logger.warning("play session %s: its result was stored by the sweeper", play_id)
                swept.append(play_id)
        elif await end_play(pool, store, play_id, None, cause):
            logger.warning("play session %s: %s", play_id, cause)
            swept.append(play_id)
        await store.forget(member)
    return swept


async def _handed(store: PlayStore, play_id: int) -> tuple[Replay | None, str]:
    """The replay its player handed on with the session (verified), or why it is abandoned."""
    packed = await store.handed_replay(play_id)
    if packed is None:
        return None, await store.lost_cause(play_id)
    try:
        return checked_replay(play_id, packed), ""
    except BadResult as exc:
        logger.error("%s; the session is abandoned", exc)
        return None, "the match's replay did not verify; the match is abandoned"


@platform_task(SWEEP_PLAY_SESSIONS, limits=(STORE_SOFT_LIMIT_S, STORE_HARD_LIMIT_S))
def sweep_play_sessions() -> list[int]:
    """Abandon the sessions whose player is gone (see the module docstring)."""

    async def work(pool: asyncpg.Pool) -> list[int]:
        client = _client()
        try:
            return await sweep(pool, _store_of(client), time.time())
        finally:
            await client.aclose()

    swept: list[int] = run_db(work)
    return swept
