"""``truco.play_person``: the bot-calling worker plays a /play session (docs/play.md).

The message is a :class:`~services.play.items.PlayOrder`: the bots (URLs and decrypted signing
secrets, or ``builtin:`` house bots), the match's settings, the person's clock and bank. The
session's state is in Redis (:mod:`services.play.store`); :func:`services.play.session.
play_session` plays it on this process's match loop, the person's answers coming from Redis,
and the replay leaves as ``truco.store_play_result`` to the trusted worker, which stores it
in ``play_matches`` and ends the session. A failed match is sent as abandoned, with its cause.

A message delivered again (its worker died) finds the session claimed and plays nothing: the
sweeper ends it as abandoned (a session is never played twice, the person having seen half of
it). The task's Celery thread only waits, like a match's.
"""

from __future__ import annotations

import logging
import os
import socket
from typing import Any, NotRequired, TypedDict

import msgspec
import redis.asyncio as aioredis

from arena.client.bot_client import ClientConfig
from arena.client.connection import BotConnection
from arena.client.egress import EgressPolicy
from arena.match.replay import EntrantRecord, Replay
from services.base.config import Settings
from services.base.limits import MATCH_HARD_LIMIT_S, MATCH_SOFT_LIMIT_S
from services.domain.packed_replay import pack
from services.play.items import PlayOrder
from services.play.session import play_session
from services.play.store import PlayStore
from services.worker.app import app
from services.worker.matches.play_match import bot_connection, entrant_source, match_loop
from services.worker.names import PLAY_PERSON
from services.worker.senders import send_play_result
from services.worker.task import platform_task

logger = logging.getLogger(__name__)


def player_mark(task_id: str | None) -> str:
    """What the claim writes: this worker and task (seen by an operator in Redis)."""
    return f"{socket.gethostname()}:{os.getpid()}:{task_id or '-'}"


async def play_order(order: PlayOrder, settings: Settings, mark: str) -> Replay | None:
    """Play ``order`` on this loop: its bots reached as a match's are (the guarded client,
    loopback only in local mode; a ``builtin:`` bot in process)."""
    config = ClientConfig(
        timeout_ms=float(order.settings.timeout_ms),
        policy=EgressPolicy(allow_loopback=settings.allow_loopback_bots),
    )
    bots: list[tuple[EntrantRecord, BotConnection]] = [
        (
            EntrantRecord(bot.name, entrant_source(bot.bot_id)),
            bot_connection(bot, config, seed=order.seed + 1 + index),
        )
        for index, bot in enumerate(order.bots)
    ]
    client = aioredis.Redis.from_url(settings.redis.url_or_local)
    try:
        return await play_session(
            PlayStore(client, settings.redis.prefix),
            play_id=order.play_id,
            mark=mark,
            address=order.address,
            seed=order.seed,
            settings=order.settings,
            clock_s=order.clock_s,
            bank_s=order.bank_s,
            bots=bots,
        )
    finally:
        await client.aclose()


class PlayPersonOutcome(TypedDict):
    """What ``truco.play_person`` returns (Celery keeps it as the task's result): the session,
    and that it failed, was not this worker's to play, or who won."""

    play_id: int
    failed: NotRequired[bool]
    played: NotRequired[bool]
    winner: NotRequired[int | None]


@platform_task(PLAY_PERSON, limits=(MATCH_SOFT_LIMIT_S, MATCH_HARD_LIMIT_S), bind=True)
def play_person(self: Any, spec: dict[str, Any]) -> PlayPersonOutcome:
    """Play the session ``spec`` (a ``PlayOrder`` as JSON); send ``truco.store_play_result``."""
    order = msgspec.convert(spec, PlayOrder)
    settings: Settings = app.settings
    mark = player_mark(self.request.id)
    future = match_loop().submit(lambda: play_order(order, settings, mark))
    try:
        replay = future.result()
    except Exception as exc:
        future.cancel()
        logger.exception("play session %s failed; sent as abandoned", order.play_id)
        send_play_result(
            order.play_id, None, f"the match failed on the worker ({type(exc).__name__})"
        )
        return {"play_id": order.play_id, "failed": True}
    except BaseException:
        future.cancel()  # a time limit, a shutdown: nothing left running for this task
        raise
    if replay is None:  # not this worker's to play, or lost meanwhile: the sweeper ends it
        return {"play_id": order.play_id, "played": False}
    send_play_result(order.play_id, pack(replay).data, None)
    return {"play_id": order.play_id, "winner": replay.result.winner}
