"""Celery beat's schedule and the scheduled tasks (trusted worker, queue ``results``).

The schedule itself is :mod:`services.worker.schedule` (made when the app is configured).

* every 30 s ``truco.start_due_tournaments``: starts tournaments whose start time has come
  and queues their first matches;
* every 60 s ``truco.check_bot_health``: sends the due bots to the bot-calling worker
  (``truco.probe_bots``), which answers with ``truco.record_bot_health``. A busy bot (in an
  open tournament, on a ladder, in a running test, or with a match in the last day) is due
  every round, an idle one every ``TRUCO_PROBE_IDLE_EVERY_S`` (an hour), and one account's
  bots get at most ``TRUCO_PROBES_PER_ACCOUNT_PER_MINUTE`` probes a minute
  (:mod:`services.domain.probe_plan`). After
  ``TRUCO_HEALTH_FAILURES`` (3) failures in a row a bot becomes 'unavailable' and withdraws from
  its tournaments (it forfeits what is left; the events go on); an unavailable bot that answers
  again becomes 'active';
* every 30 s (``TRUCO_SWEEP_EVERY_S``) ``truco.requeue_stale_matches``: the recovery sweeper
  (``services.worker.results.sweep``): sends again the matches that were never sent or whose
  task was lost, and gives up on a match after too many attempts;
* every 30 s ``truco.fit_ratings``: refits the rating pools whose results changed since their
  last fit (``services.worker.results.fit``: intervals and LOS for the leaderboards).

Scheduled messages expire after one period. Run exactly one beat
(``celery -A services.worker.celery_app beat``).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import msgspec

from services import flow
from services.base.config import FairPlaySettings, WorkerSettings
from services.base.limits import SHORT_HARD_LIMIT_S, SHORT_SOFT_LIMIT_S
from services.db import bot_health
from services.domain.probe_plan import ProbePolicy, plan_probes
from services.worker.app import app
from services.worker.messages import ProbeOutcome, ProbeTarget
from services.worker.names import CHECK_BOT_HEALTH, RECORD_BOT_HEALTH, START_DUE_TOURNAMENTS
from services.worker.results.db import run_db
from services.worker.results.dispatch import send_matches
from services.worker.schedule import HEALTH_EVERY_S
from services.worker.senders import send_probe, stop_matches
from services.worker.task import platform_task

logger = logging.getLogger(__name__)


PROBE_BATCH = 50


async def start_due(
    pool: asyncpg.Pool, now: datetime, fair_play: FairPlaySettings | None = None
) -> dict[int, list[int]]:
    """Start every due tournament and queue its first matches: {tournament id: match ids}.

    One tournament that fails to start is logged and does not stop the others. Entries of
    other owners' bots that do not accept the event's settings (``fair_play``'s floors, the
    bot's own minimum timeout) are left out (``services.flow.fair_play``)."""
    floors = flow.floors_of(fair_play or FairPlaySettings())
    started: dict[int, list[int]] = {}
    for tournament_id in await flow.due_tournaments(pool, now, floors):
        try:
            match_ids = await flow.start_tournament(pool, tournament_id, floors)
            await send_matches(pool, match_ids)
        except Exception:
            logger.exception("could not start due tournament %s", tournament_id)
            continue
        started[tournament_id] = match_ids
    return started


def probe_policy(settings: WorkerSettings) -> ProbePolicy:
    return ProbePolicy(
        round_every_s=HEALTH_EVERY_S,
        idle_every_s=settings.probe_idle_every_s,
        per_account_per_minute=settings.probes_per_account_per_minute,
    )


async def health_targets(
    pool: asyncpg.Pool, now: datetime, settings: WorkerSettings
) -> list[ProbeTarget]:
    """This round's probes (:func:`services.domain.probe_plan.plan_probes`): the due bots,
    busy ones every round, idle ones every ``probe_idle_every_s``, capped per account."""
    policy = probe_policy(settings)
    candidates = await bot_health.bots_to_check(
        pool,
        now,
        checked_before=now - timedelta(seconds=policy.round_every_s * 0.9),
        idle_checked_before=now - timedelta(seconds=policy.idle_every_s),
        idle_after=timedelta(seconds=settings.probe_idle_after_s),
    )
    return [ProbeTarget(c.bot_id, c.url) for c in plan_probes(candidates, now, policy)]


async def record_health(
    pool: asyncpg.Pool, outcomes: list[ProbeOutcome], failures_to_unavailable: int
) -> dict[str, list[int]]:
    """Record probe outcomes; withdraw bots that just became unavailable, queue what follows."""
    changes: dict[str, list[int]] = {"unavailable": [], "active": []}
    for outcome in outcomes:
        recorded = await bot_health.record_check(
            pool,
            outcome.bot_id,
            ok=outcome.ok,
            error=outcome.error,
            failures_to_unavailable=failures_to_unavailable,
        )
        if recorded is None:
            continue
        if recorded.became_unavailable:
            logger.warning("bot %s is unavailable: %s", outcome.bot_id, outcome.error)
            changes["unavailable"].append(outcome.bot_id)
            withdrawal = await flow.withdraw_bot(pool, outcome.bot_id)
            await asyncio.to_thread(stop_matches, withdrawal.forfeited)
            await send_matches(pool, withdrawal.ready)
        elif recorded.came_back:
            logger.info("bot %s answers again: active", outcome.bot_id)
            changes["active"].append(outcome.bot_id)
    return changes


SHORT_LIMITS = (SHORT_SOFT_LIMIT_S, SHORT_HARD_LIMIT_S)


@platform_task(START_DUE_TOURNAMENTS, limits=SHORT_LIMITS)
def start_due_tournaments() -> dict[str, list[int]]:
    fair_play = app.settings.fair_play
    started = run_db(lambda pool: start_due(pool, datetime.now(UTC), fair_play))
    return {str(tid): ids for tid, ids in started.items()}


@platform_task(CHECK_BOT_HEALTH, limits=SHORT_LIMITS)
def check_bot_health() -> int:
    """Send this round's bots to the bot-calling worker to probe; returns how many."""
    settings = app.settings.worker
    targets = run_db(lambda pool: health_targets(pool, datetime.now(UTC), settings))
    for start in range(0, len(targets), PROBE_BATCH):
        send_probe(targets[start : start + PROBE_BATCH])
    return len(targets)


@platform_task(RECORD_BOT_HEALTH, limits=SHORT_LIMITS)
def record_bot_health(outcomes: list[dict[str, Any]]) -> dict[str, list[int]]:
    decoded = msgspec.convert(outcomes, list[ProbeOutcome])
    threshold = app.settings.worker.health_failures
    return run_db(lambda pool: record_health(pool, decoded, threshold))
