"""Sending tasks, by both worker processes and the API. No database here: matches are sent from
the database by :func:`services.worker.results.dispatch.send_matches`, which reads their orders
and hands them to :func:`send_orders`.

Tasks are sent by name (``app.send_task``) to their queue: a sender never runs task code, and
what travels is JSON of the shapes in :mod:`services.worker.messages` and
:class:`services.domain.match_order.MatchOrder`.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import msgspec

from services.base.limits import match_task_limits
from services.base.secretbox import SecretBox
from services.domain.match_order import MatchOrder
from services.play.items import PlayOrder
from services.worker.app import WorkerApp, app
from services.worker.celery_types import CeleryOptions
from services.worker.messages import ProbeOutcome, ProbeTarget
from services.worker.names import (
    MATCH_REFUSED,
    MATCH_STARTED,
    MATCH_STOPPED,
    MATCHES,
    PLAY_MATCH,
    PLAY_PERSON,
    PROBE_BOTS,
    RECORD_BOT_HEALTH,
    RESULTS,
    STORE_PLAY_RESULT,
    STORE_RESULT,
)
from services.worker.stops import flags_client, request_stops

logger = logging.getLogger(__name__)

PROBE_EXPIRES_S = 120  # a probe not started by then is dropped: the next round of checks comes


def current_app() -> WorkerApp:
    """The Celery app every sender sends with (tests replace this function to capture sends)."""
    return app


def send_started(match_id: int) -> None:
    """Tell the trusted worker that the match is being played (best effort)."""
    try:
        current_app().send_task(MATCH_STARTED, args=[match_id], queue=RESULTS)
    except Exception as exc:  # the status is cosmetic; the match must go on
        logger.warning("could not send %s for match %s: %s", MATCH_STARTED, match_id, exc)


def play_options(message: MatchOrder, queue: str = MATCHES) -> CeleryOptions:
    """Queue and time limits of one match's task: its own deadline, never above the cap."""
    soft, hard = match_task_limits(message.settings, len(message.entrants))
    return {"queue": queue, "soft_time_limit": soft, "time_limit": hard}


def send_orders(specs: Sequence[MatchOrder], queue: str = MATCHES) -> list[str]:
    """Send ``truco.play_match`` for each match order to ``queue`` (``matches``, or
    ``ladder`` for ladder matches)."""
    task_ids = []
    for spec in specs:
        # one conversion here (the struct to JSON's types) and one in the worker (back to the
        # struct, checked there: the worker trusts no message's shape)
        body = msgspec.to_builtins(spec)
        sent = current_app().send_task(PLAY_MATCH, args=[body], **play_options(spec, queue))
        task_ids.append(str(sent.id))
    return task_ids


def send_play(order: PlayOrder) -> str:
    """Send ``truco.play_person`` (a /play session) to the bot-calling workers. It carries the
    bots' decrypted secrets as a match order does; its limits are the longest match's (a
    session ends within its games' banks of the person's time: docs/play.md)."""
    body = msgspec.to_builtins(order)
    sent = current_app().send_task(
        PLAY_PERSON, args=[body], queue=MATCHES, retry=True, retry_policy=RESULT_RETRY_POLICY
    )
    return str(sent.id)


def send_play_result(play_id: int, packed: bytes | None, cause: str | None) -> None:
    """Hand the end of a /play session to the trusted worker: its packed replay, or None and
    why it was abandoned."""
    current_app().send_task(
        STORE_PLAY_RESULT,
        args=[play_id, packed, cause],
        queue=RESULTS,
        retry=True,
        retry_policy=RESULT_RETRY_POLICY,
    )


def worker_secret_box() -> SecretBox:
    """The sending app's cipher of bots' signing secrets (from its settings)."""
    return current_app().secret_box


RESULT_RETRY_POLICY = {
    "max_retries": 20,
    "interval_start": 0.2,
    "interval_step": 0.5,
    "interval_max": 2.0,
}
"""How long a played match's result keeps trying to reach the broker: about 35 s in all (Celery's
default gives up after under a second). A Redis restart in that window no longer throws away a
whole played match (the sweeper would have sent it to be played again)."""


def send_result(match_id: int, packed: bytes, task_id: str | None) -> None:
    """Hand a finished match to the trusted worker: its replay packed once
    (:func:`services.domain.packed_replay.pack`), carried as bytes."""
    current_app().send_task(
        STORE_RESULT,
        args=[match_id, packed, task_id],
        queue=RESULTS,
        retry=True,
        retry_policy=RESULT_RETRY_POLICY,
    )


def stop_matches(match_ids: Sequence[int]) -> None:
    """Set the stop flags of matches decided without their play (:mod:`services.worker.stops`)
    on the sending app's Redis; a failure is logged (the sweeper sets them again)."""
    if not match_ids:
        return
    try:
        sender = current_app()
        url, prefix = sender.settings.redis.url_or_local, sender.settings.redis.prefix
        flags = sender.resources.kept("stop-flags", url, lambda: flags_client(url))
        request_stops(flags, prefix, match_ids)
    except Exception:  # whoever asked (a request, beat, the sweeper) goes on regardless
        logger.exception("stop flags of matches %s not set; the sweeper sets them", match_ids)


def send_stopped(match_id: int) -> None:
    """Tell the trusted worker that this worker stopped playing a decided match."""
    current_app().send_task(
        MATCH_STOPPED, args=[match_id], queue=RESULTS, retry=True, retry_policy=RESULT_RETRY_POLICY
    )


def send_refused(match_id: int, detail: str) -> None:
    """Tell the trusted worker that this worker refused a match it can never play, and why
    (it is decided as the platform's fault: :func:`services.flow.platform_faults.refused`)."""
    current_app().send_task(
        MATCH_REFUSED,
        args=[match_id, detail],
        queue=RESULTS,
        retry=True,
        retry_policy=RESULT_RETRY_POLICY,
    )


def send_probe(targets: Sequence[ProbeTarget]) -> None:
    current_app().send_task(
        PROBE_BOTS,
        args=[msgspec.to_builtins(list(targets))],
        queue=MATCHES,
        expires=PROBE_EXPIRES_S,
    )


def send_health(outcomes: Sequence[ProbeOutcome]) -> None:
    current_app().send_task(
        RECORD_BOT_HEALTH, args=[msgspec.to_builtins(list(outcomes))], queue=RESULTS
    )
