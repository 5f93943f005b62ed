"""``truco.play_match``: the bot-calling worker plays one match and sends the replay back.

This worker holds no database credentials: the match, its bots' URLs and signing secrets come
in the message; the replay leaves as a ``truco.store_result`` message to the trusted worker.
Bots are called through the arena's guarded client (loopback only when ``TRUCO_ENV=local``);
a ``builtin:NAME`` bot (a house bot) is the strategy itself, played in this process.

Execution model: one long-lived event loop per worker process (:func:`match_loop`). Each Celery
task (a thread of the ``threads`` pool, which may have a thousand of them) takes its message,
holds its bots' slots, submits its match coroutine to that loop and blocks on the future until
the replay is in; only then does it send the result, and only after the task returns is the
message acknowledged (``acks_late``). So every bot call of the process shares one loop, a
waiting thread costs no CPU, and a killed worker's unacknowledged matches are played again.
The state of a match (its clients, their connection pools and deadlines, its time banks) is
its own, made inside its coroutine; nothing of it is shared between matches but the loop and
the TLS context. Before it takes its bots' slots, a match passes the process's gate
(:func:`match_admission`): only as many play at once as the loop keeps up with, the others wait
in their threads, their messages held and unacknowledged.

While it plays, the match is published for spectators (:mod:`services.live.publisher`): a
``truco.match_started`` message when play begins, then one Redis item per decision, written
in batches.

A match decided meanwhile (cancelled, a bot withdrawn) is stopped (:mod:`services.worker.stops`):
its flag is checked before play begins and watched while it plays; a stopped match calls no
bot again, sends no result, and says ``truco.match_stopped`` instead.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import random
from typing import Any, NotRequired, TypedDict, cast

import msgspec
import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from arena.client.bot_client import BotClient, ClientConfig
from arena.client.connection import BotConnection, HttpBot
from arena.client.egress import EgressPolicy
from arena.match.entrants import builtin_bot, builtin_name
from arena.match.replay import EntrantRecord, Replay
from arena.match.runner import UnplayableMatch, check_playable, run_match
from services.base.config import Settings
from services.base.limits import MATCH_HARD_LIMIT_S, MATCH_SOFT_LIMIT_S, match_deadline_s
from services.base.log_format import match_context
from services.domain.match_order import EntrantOrder, MatchOrder
from services.domain.packed_replay import pack
from services.live.client import live_redis
from services.live.publisher import LivePublisher
from services.live.sink import QueuedRedis
from services.metrics.catalog import MATCHES_PLAYED
from services.worker.app import app
from services.worker.loop_thread import BOT_CALLS, LoopThread
from services.worker.matches.admission import Admission
from services.worker.matches.attempts import next_attempt
from services.worker.matches.match_metrics import count_ending, counting, playing, waiting
from services.worker.matches.slots import BotSlots
from services.worker.names import PLAY_MATCH
from services.worker.senders import send_refused, send_result, send_started, send_stopped
from services.worker.stops import StopWatch, flags_client
from services.worker.task import platform_task

logger = logging.getLogger(__name__)

BUSY_RETRY_S = 5.0
BUSY_RETRY_MAX_S = 60.0


SLOTS_RETRY_BACKOFF = ExponentialBackoff(cap=2.0, base=0.2)
SLOTS_RETRIES = 20
"""A slot call that meets a lost connection is tried again for about 35 s (0.2 s doubling to
2 s between tries): a short Redis restart neither fails a match at its start nor leaves its
bots' slots held until they expire at its end."""


def slots_client(url: str) -> redis.Redis:
    """A Redis client for the per-bot slots, retrying through short outages."""
    return redis.Redis.from_url(
        url,
        # OSError too: a refused connect (the server is down) is not a redis error
        retry=Retry(
            SLOTS_RETRY_BACKOFF,
            SLOTS_RETRIES,
            supported_errors=(redis.ConnectionError, redis.TimeoutError, OSError),
        ),
        socket_connect_timeout=2.0,
        socket_timeout=10.0,
    )


def _redis_client(url: str) -> redis.Redis:
    """This process's client for the bots' slots and the attempt counters."""
    return app.resources.kept("slots-redis", url, lambda: slots_client(url))


def live_writes(url: str) -> QueuedRedis:
    """Where the live feed's writes go: queued, and sent by a thread of their own
    (:mod:`services.live.sink`), so the match loop never waits on Redis. One per
    process (made again after a fork: the writer thread does not cross it)."""
    return app.resources.kept("live-writes", url, lambda: QueuedRedis(live_redis(url)))


def stop_watch(settings: Settings) -> StopWatch:
    """This process's watch on the stop flags of the matches it plays (one per process)."""
    url, prefix = settings.redis.url_or_local, settings.redis.prefix
    return app.resources.kept(
        "stop-watch", (url, prefix), lambda: StopWatch(flags_client(url), prefix)
    )


def bot_slots(settings: Settings) -> BotSlots:
    return BotSlots(
        _redis_client(settings.redis.url_or_local),
        cap=settings.worker.bot_max_matches,
        hold_s=MATCH_HARD_LIMIT_S + 60,
        prefix=settings.redis.prefix,
    )


def entrant_source(bot_id: int) -> str:
    """What a replay names as an entrant's source: its id, never its URL (replays are public)."""
    return f"bot:{bot_id}"


def entrant_client(entrant: EntrantOrder, config: ClientConfig) -> BotClient:
    """The guarded client of one entrant, signing with its previous secret too while that one's
    grace period lasts (the message carries it only then)."""
    previous = () if entrant.previous_secret is None else (entrant.previous_secret,)
    return BotClient(entrant.url, entrant.secret, previous_secrets=previous, config=config)


def bot_connection(entrant: EntrantOrder, config: ClientConfig, *, seed: int) -> BotConnection:
    """How this worker reaches an entrant: over HTTP through the guarded client, or, for a
    ``builtin:NAME`` bot (the platform's house bots; users can never register such a URL), the
    strategy in this process: no connection, no exception to the egress guard."""
    if builtin_name(entrant.url) is not None:
        return builtin_bot(entrant.url, seed=seed, label=entrant.name)
    return HttpBot(entrant.name, entrant_client(entrant, config))


def live_publisher(message: MatchOrder, settings: Settings | None) -> LivePublisher:
    """The spectator feed of this match (no Redis client without settings: tests)."""
    # the publisher calls only pipeline().delete/rpush/expire/execute: QueuedRedis has them
    url = None if settings is None else settings.redis.url_or_local
    client = None if url is None else cast(redis.Redis, live_writes(url))
    prefix = "" if settings is None else settings.redis.prefix
    return LivePublisher(client, prefix, message.match_id)


async def play(
    message: MatchOrder,
    *,
    allow_loopback: bool,
    live: Settings | None = None,
    attempt: int = 0,
) -> Replay:
    """Run attempt ``attempt`` of the match over HTTP through the guarded client, within the
    match's deadline, publishing it for spectators on ``live``'s Redis (when given)."""
    config = ClientConfig(
        timeout_ms=float(message.settings.timeout_ms),
        policy=EgressPolicy(allow_loopback=allow_loopback),
    )
    bots = [
        bot_connection(entrant, config, seed=message.seed + index)
        for index, entrant in enumerate(message.entrants)
    ]
    entrants: list[tuple[EntrantRecord, BotConnection]] = [
        (EntrantRecord(entrant.name, entrant_source(entrant.bot_id)), bot)
        for entrant, bot in zip(message.entrants, bots, strict=True)
    ]
    publisher = live_publisher(message, live)
    publisher.begin()
    try:
        async with asyncio.timeout(match_deadline_s(message.settings, len(message.entrants))):
            return await run_match(
                str(message.match_id),
                message.seed,
                message.settings,
                entrants,
                progress=counting(publisher.progress),
                attempt=attempt,
            )
    finally:
        publisher.close()


def match_loop() -> LoopThread:
    """The one event loop on which this process plays all its matches (see the module's
    docstring); the Celery thread of each match only waits for its result."""
    return app.resources.loop(BOT_CALLS)


def match_admission(loop: LoopThread) -> Admission:
    """The gate before a match starts on ``loop`` (one per loop, so one per process): at most as
    many matches play at once as the loop keeps up with (:mod:`services.worker.matches.admission`).
    One process's core is its limit: past it every call of every match would wait longer, and
    the bots would be charged (time banks, timeouts) for the platform's delay. A match beyond
    the cap waits in its Celery thread, its message held and unacknowledged."""

    def make() -> Admission:
        admission = Admission()
        loop.watch_lag(admission.observe)
        return admission

    return app.resources.kept("admission", loop, make)


def release_slots(slots: BotSlots, bot_ids: list[int], token: str) -> None:
    """Give the bots' slots back (the client retries through a short outage). A longer outage
    must not throw away the played match: the error is logged and the slots are left to expire
    (after the match's hard limit)."""
    try:
        slots.release(bot_ids, token)
    except redis.RedisError as exc:
        logger.warning("slots of bots %s not released (%s); they expire on their own", bot_ids, exc)


def busy_countdown(retries: int) -> float:
    """Seconds before a match whose bot is at its cap is tried again (grows, with jitter)."""
    base = min(BUSY_RETRY_MAX_S, BUSY_RETRY_S * (1.5 ** min(retries, 10)))
    return round(base * random.uniform(0.8, 1.2), 2)


class PlayOutcome(TypedDict):
    """What ``truco.play_match`` returns (Celery keeps it as the task's result): the match, and
    why it was not played, or that it was stopped, or how it ended."""

    match_id: int
    refused: NotRequired[str]
    stopped: NotRequired[bool]
    winner: NotRequired[int | None]
    reason: NotRequired[str]


@platform_task(
    PLAY_MATCH, limits=(MATCH_SOFT_LIMIT_S, MATCH_HARD_LIMIT_S), bind=True, max_retries=None
)
def play_match(self: Any, spec: dict[str, Any]) -> PlayOutcome:
    """Play the match ``spec`` (a ``MatchOrder`` as JSON); send ``truco.store_result``.
    (The limits are the cap; each match is sent with its own, ``senders.play_options``.)"""
    message = msgspec.convert(spec, MatchOrder)
    with match_context(message.match_id):  # on every log line of this match, its loop's too
        return _play_match(self, message)


def _play_match(self: Any, message: MatchOrder) -> PlayOutcome:
    settings: Settings = app.settings
    refused = refusal(message)
    if refused is not None:  # never playable: decided as the platform's fault, not retried
        logger.error("match %s refused: %s", message.match_id, refused)
        send_refused(message.match_id, refused)
        return {"match_id": message.match_id, "refused": refused}
    loop = match_loop()
    admission = match_admission(loop)
    with waiting():
        waited = admission.enter()  # before taking the bots' slots
    try:
        if waited >= 1.0:
            logger.info(
                "match %s waited %.1fs to start: %s", message.match_id, waited, admission.figures()
            )
        slots = bot_slots(settings)
        token = slots.acquire(message.bot_ids)
        if token is None:
            countdown = busy_countdown(self.request.retries)
            logger.info("match %s: a bot is at its cap; again in %ss", message.match_id, countdown)
            raise self.retry(countdown=countdown)
        try:
            replay = play_unless_stopped(message, settings, loop)
        except UnplayableMatch as exc:  # found only once it began: refused all the same
            replay, refused = None, str(exc)
        finally:
            release_slots(slots, message.bot_ids, token)
    finally:
        admission.leave()
    live_writes(settings.redis.url_or_local).flush()  # its last items before the result
    if refused is not None:
        logger.error("match %s refused: %s", message.match_id, refused)
        send_refused(message.match_id, refused)
        return {"match_id": message.match_id, "refused": refused}
    if replay is None:
        send_stopped(message.match_id)
        MATCHES_PLAYED.labels("stopped").inc()
        return {"match_id": message.match_id, "stopped": True}
    count_ending(replay)
    send_result(message.match_id, pack(replay).data, self.request.id)
    MATCHES_PLAYED.labels("result").inc()
    result = replay.result
    return {"match_id": message.match_id, "winner": result.winner, "reason": result.reason}


def refusal(message: MatchOrder) -> str | None:
    """Why the match can never be played as ordered (its entrants cannot sit at its rules), or
    None. Such a match is refused at once: sent again, it would fail again, and left alone it
    would sit ``running`` with its bots shown playing."""
    try:
        check_playable(message.settings, len(message.entrants))
    except UnplayableMatch as exc:
        return str(exc)
    return None


def play_unless_stopped(message: MatchOrder, settings: Settings, loop: LoopThread) -> Replay | None:
    """Play the match on ``loop`` and wait for its replay; None if it was stopped, before it
    began or while it played (its stop flag: :mod:`services.worker.stops`)."""
    watch = stop_watch(settings)
    if watch.requested(message.match_id):
        logger.info("match %s: decided before it began; not played", message.match_id)
        return None
    # each beginning is dealt afresh (services.worker.matches.attempts)
    attempt = next_attempt(
        _redis_client(settings.redis.url_or_local),
        settings.redis.prefix,
        message.match_id,
        message.seed,
    )
    if attempt:
        logger.info("match %s: begun again, attempt %s", message.match_id, attempt)
    send_started(message.match_id)
    future = loop.submit(
        lambda: play(
            message, allow_loopback=settings.allow_loopback_bots, live=settings, attempt=attempt
        )
    )
    with watch.watching(message.match_id, future), playing():
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            if watch.stopped(future):
                return None
            raise
        except BaseException:
            future.cancel()  # a time limit, a shutdown: nothing left running for this task
            MATCHES_PLAYED.labels("error").inc()
            raise
