"""``truco.store_result``: the trusted worker stores a match's result and queues what follows.

Exactly once: ``flow.record_result`` inserts the result under the ``UNIQUE (match_id)``
constraint in the same transaction as the ratings, so a match task that ran twice (its worker
died after sending, or Redis redelivered it) sends a second message that changes nothing.

The message comes from the bot-calling worker, which talks to strangers' servers, so the replay
is checked before anything is stored: it must inflate within a bound, be for this match, and
every game must re-simulate through the engine to the recorded events and scores. It arrives
packed (:mod:`services.domain.packed_replay`: the JSON document, zlib-compressed once by the
worker) and those bytes are what is stored, once the document is the verified replay's own
encoding (else, as for a message of the previous version carrying JSON text, the verified
replay is packed here). Once the result is stored,
the match's live spectator feed (:mod:`services.live.publisher`) expires 30 s later.

``truco.match_started`` (sent by the bot-calling worker when play begins) marks the match
``running`` if it is still pending or queued; ``truco.match_stopped`` (sent when it stopped a
match decided without its play: :mod:`services.worker.stops`) marks it stopped, so its seeds
may be shown.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

import asyncpg
import kombu.exceptions
import msgspec

from arena.match.replay import Replay, VerifyError, load_replay
from arena.match.verify import verify_replay
from services import flow
from services.base.limits import STORE_HARD_LIMIT_S, STORE_SOFT_LIMIT_S
from services.base.log_format import match_context
from services.domain.packed_replay import PackedReplay, TooLarge, pack_document, unpack
from services.live.client import live_redis
from services.live.publisher import clear_live
from services.metrics.catalog import MATCHES_STORED, STORE_DURATION, STORE_REFUSED
from services.worker.app import app
from services.worker.names import MATCH_STARTED, MATCH_STOPPED, STORE_RESULT
from services.worker.results.db import run_db
from services.worker.results.dispatch import send_matches
from services.worker.results.ladder_tick import ladder_tick
from services.worker.senders import stop_matches
from services.worker.task import Retry, platform_task

TRANSIENT = (
    OSError,
    asyncpg.PostgresConnectionError,
    asyncpg.InterfaceError,
    asyncpg.TransactionRollbackError,  # serialization failure, deadlock: try again
    kombu.exceptions.OperationalError,
)


class BadResult(ValueError):
    """A replay that does not belong to its match or does not re-simulate."""


def check_replay(match_id: int, document: str | bytes) -> Replay:
    """Decode and verify a replay document sent for ``match_id``; raise :class:`BadResult` if
    wrong."""
    try:
        replay = load_replay(document)
    except VerifyError as exc:
        raise BadResult(f"match {match_id}: the replay does not decode: {exc}") from None
    if replay.match_id != str(match_id):
        raise BadResult(f"match {match_id}: the replay is for match {replay.match_id!r}")
    try:
        verify_replay(replay)
    except VerifyError as exc:
        raise BadResult(f"match {match_id}: the replay does not re-simulate: {exc}") from None
    return replay


def check_result(match_id: int, sent: bytes | str) -> tuple[Replay, PackedReplay]:
    """The replay of a ``truco.store_result`` message, verified, and the packed bytes to store:
    ``sent`` is the packed replay (bytes), or a previous version's JSON text."""
    if isinstance(sent, bytes):
        try:
            document = unpack(sent)
        except TooLarge as exc:
            raise BadResult(f"match {match_id}: the replay does not unpack: {exc}") from None
    else:
        document = sent.encode()
    replay = check_replay(match_id, document)
    own = msgspec.json.encode(replay)
    if isinstance(sent, bytes) and own == document:
        return replay, PackedReplay(sent, len(document))
    # a previous version's document, or one with more than the replay: store the replay's own
    return replay, pack_document(own)


async def store(
    pool: asyncpg.Pool,
    match_id: int,
    replay: Replay,
    task_id: str | None = None,
    packed: PackedReplay | None = None,
) -> list[int]:
    """Record the result (idempotent) and queue the matches it unlocked; returns their ids. A
    result that ended an SPRT test cancelled its pairs still in play: their workers are asked
    to stop (:mod:`services.worker.stops`). A ladder match's result runs the matchmaker at once
    (:func:`services.worker.results.ladder_tick.ladder_tick`, under its lease). All of it from
    what ``flow.record_result`` returns: nothing is read again."""
    recorded = await flow.record_result(pool, match_id, replay, task_id, packed=packed)
    kind = "duplicate" if not recorded.stored else "ladder" if recorded.ladder_pool else "other"
    MATCHES_STORED.labels(kind).inc()
    await send_matches(pool, recorded.next_ids)
    await asyncio.to_thread(stop_matches, recorded.stop)
    if recorded.ladder_pool is not None:
        # its two bots (and a bot still placing, about fifty matches in a row) play their
        # next match now, not at the next beat (up to TRUCO_LADDER_EVERY_S later)
        await ladder_tick(pool, app.settings.ladder, datetime.now(UTC), trigger="result")
    return recorded.next_ids


STORE_LIMITS = (STORE_SOFT_LIMIT_S, STORE_HARD_LIMIT_S)


@platform_task(STORE_RESULT, limits=STORE_LIMITS, retry=Retry(TRANSIENT, max_retries=20))
def store_result(match_id: int, sent: bytes | str, task_id: str | None = None) -> list[int]:
    """Store the result of ``match_id`` once; queue the next matches. Returns their ids."""
    with match_context(match_id):
        started = time.perf_counter()
        try:
            replay, packed = check_result(match_id, sent)
        except BadResult:
            STORE_REFUSED.inc()
            raise
        next_ids = run_db(lambda pool: store(pool, match_id, replay, task_id, packed))
        STORE_DURATION.observe(time.perf_counter() - started)
        drop_live(match_id)
        return next_ids


LIVE_LINGER_S = 30
"""How long a stored match's live feed stays: the API's pollers read its last items (written
just before the result was sent) before they end their streams. Deleted at once, a feed whose
poller was behind lost those items for every spectator (found by the cluster soak)."""


def drop_live(match_id: int) -> None:
    """Expire the live feed of a stored match :data:`LIVE_LINGER_S` from now (it expires by
    itself an hour after its last write if this fails)."""
    url, prefix = app.settings.redis.url_or_local, app.settings.redis.prefix
    client = app.resources.kept("live-redis", url, lambda: live_redis(url))
    clear_live(client, prefix, match_id, LIVE_LINGER_S)


@platform_task(
    MATCH_STARTED, limits=STORE_LIMITS, retry=Retry(TRANSIENT, max_retries=5, backoff_max_s=60)
)
def match_started(match_id: int) -> bool:
    """The bot-calling worker began playing ``match_id``: mark it running (idempotent)."""
    changed: bool = run_db(lambda pool: flow.mark_running(pool, match_id))
    return changed


@platform_task(
    MATCH_STOPPED, limits=STORE_LIMITS, retry=Retry(TRANSIENT, max_retries=5, backoff_max_s=60)
)
def match_stopped(match_id: int) -> bool:
    """The bot-calling worker stopped playing ``match_id``, which was decided without its play:
    it is no longer ``stopping`` (idempotent)."""
    changed: bool = run_db(lambda pool: flow.match_stopped(pool, match_id))
    drop_live(match_id)  # its spectator feed ends with it
    return changed
