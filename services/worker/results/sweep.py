"""``truco.requeue_stale_matches``: the recovery sweeper (beat, trusted worker, queue ``results``).

Matches get lost in two ways, and this finds both:

* **never sent**: a match still ``pending`` ``TRUCO_SWEEP_PENDING_AFTER_S`` (60 s) after it was
  created. ``flow.record_result`` commits the next round and only then does the trusted
  worker send it (``dispatch.send_matches``); a worker that dies in between, or a broker that is
  down at that moment, leaves the round ``pending`` for good.
* **sent, never finished**: a match ``queued`` (or ``running``) for longer than its task's
  hard time limit (``limits.match_task_limits``, from its own settings) plus
  ``TRUCO_SWEEP_MARGIN_S`` (60 s). No live worker can still be playing it: the hard limit kills
  the process that runs it. Its message was lost with a worker killed outright (Redis would
  hand it out again only after the 2 h visibility timeout), or with the broker's data.

Both are sent again through ``dispatch.send_matches`` (``attempts`` + 1). A match that is stale
again after ``TRUCO_SWEEP_MAX_ATTEMPTS`` (5) sends is given up: in a tournament it is decided
with **no winner and no rating change** (status ``forfeit``, result reason ``error``, nobody is
the forfeiting side: Swiss and round robin count it as a draw, a bracket sends the better seed
through), so the event goes on; a challenge becomes ``error``, and so does a pair of an SPRT
test, whose test ends ``failed`` (``services.flow.sprt_pairs``). A match that ran twice is stored
once (``UNIQUE (match_id)``), so sending again is always safe; a real result that arrives late
for a match given up changes nothing.

**Stopping matches** (decided without their play while a worker may still play them:
:mod:`services.worker.stops`): every pass sets their stop flags again (in case Redis missed
them when they were decided, or they were decided by a result, as an SPRT test's unplayed
pairs), and once one was decided longer ago than the longest a match may run
(``MATCH_HARD_LIMIT_S`` + ``TRUCO_SWEEP_MARGIN_S``, or ``TRUCO_SWEEP_QUEUED_AFTER_S``) it is
marked stopped: no worker can still be playing it.

False alarms are avoided: while messages still wait in the broker (``matches`` or
``results`` list not empty), a ``queued`` match may just be waiting its turn, so only
``pending`` matches are sent that time. (A match whose bot stays at its concurrency cap longer
than the threshold is the one case that may be sent twice; that is harmless.)

Tests shorten the thresholds with the same variables (``TRUCO_SWEEP_QUEUED_AFTER_S`` replaces
the per-match threshold with a fixed one, ``TRUCO_SWEEP_EVERY_S`` the beat period).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from typing import cast

import asyncpg
import redis

from arena.match.runner import MatchSettings
from services.base.config import RedisSettings, SweepSettings
from services.base.limits import (
    MATCH_HARD_LIMIT_S,
    SHORT_HARD_LIMIT_S,
    SHORT_SOFT_LIMIT_S,
    match_task_limits,
)
from services.db import stopping as db_stopping
from services.db import sweep as db_sweep
from services.flow import decided
from services.flow.matches import match_settings as settings_of_match
from services.worker.app import app
from services.worker.names import MATCHES, REQUEUE_STALE, RESULTS
from services.worker.results.db import run_db
from services.worker.results.dispatch import send_matches
from services.worker.senders import stop_matches
from services.worker.task import platform_task

logger = logging.getLogger(__name__)


def match_settings(match: db_sweep.OpenMatch) -> MatchSettings:
    """The settings the match is played under (``flow.match_settings``, as it was sent)."""
    return settings_of_match(match)


def stale_after_s(match: db_sweep.OpenMatch, settings: SweepSettings) -> float:
    """How long ``match`` may stay in its status before the sweeper acts."""
    if match.status == "pending":
        return settings.pending_after_s
    if settings.queued_after_s is not None:
        return settings.queued_after_s
    entrants = 4 if match.partnership == "individual" else 2
    return match_task_limits(match_settings(match), entrants)[1] + settings.margin_s


@dataclass
class SweepReport:
    requeued: list[int] = field(default_factory=list)
    gave_up: list[int] = field(default_factory=list)
    advanced: list[int] = field(default_factory=list)
    """Matches the given-up ones made ready (sent too)."""
    waiting_in_broker: int = 0
    flagged: list[int] = field(default_factory=list)
    """Stopping matches whose stop flags were set again."""
    stopped: list[int] = field(default_factory=list)
    """Stopping matches no worker can still be playing, marked stopped."""

    def as_dict(self) -> dict[str, object]:
        return {
            "requeued": self.requeued,
            "gave_up": self.gave_up,
            "advanced": self.advanced,
            "waiting_in_broker": self.waiting_in_broker,
            "flagged": self.flagged,
            "stopped": self.stopped,
        }


def stopping_after_s(settings: SweepSettings) -> float:
    """How long after it was decided a stopping match is surely stopped."""
    if settings.queued_after_s is not None:
        return settings.queued_after_s
    return MATCH_HARD_LIMIT_S + settings.margin_s


async def sweep_stopping(pool: asyncpg.Pool, settings: SweepSettings, report: SweepReport) -> None:
    """Stopping matches: flags set again, the old ones marked stopped (module docstring)."""
    stopping = await db_stopping.stopping_matches(pool)
    if not stopping:
        return
    report.stopped = await db_stopping.clear_stopping_older_than(pool, stopping_after_s(settings))
    report.flagged = [m for m, _age in stopping if m not in set(report.stopped)]
    await asyncio.to_thread(stop_matches, report.flagged)


async def _give_up(
    pool: asyncpg.Pool, match: db_sweep.OpenMatch, attempts: int
) -> tuple[bool, list[int]]:
    """Decide ``match`` without a winner (see the module docstring): (given up?, the matches
    that made ready). Locks in the platform's order (``flow.decided.lock_owner``, then the
    match) and re-checks: a result or a send that landed meanwhile wins."""
    async with pool.acquire() as conn, conn.transaction():
        tournament = await decided.lock_owner(conn, match.id, match.tournament_id)
        locked = await db_sweep.lock_open(conn, match.id)
        if locked is None or locked[1] != match.attempts:
            return False, []
        detail = f"no result after {attempts} attempt(s); given up by the recovery sweeper"
        if not await db_sweep.give_up(
            conn, match.id, in_tournament=match.tournament_id is not None, detail=detail
        ):
            return False, []
        # in the same transaction as the decision: what this made ready
        return True, await decided.follow_given_up(
            conn, match.id, tournament, match.ladder_pool, detail
        )


async def sweep(
    pool: asyncpg.Pool, settings: SweepSettings, *, waiting_in_broker: int = 0
) -> SweepReport:
    """One pass: send stale matches again, give up on the hopeless ones."""
    report = SweepReport(waiting_in_broker=waiting_in_broker)
    floor = settings.queued_after_s if settings.queued_after_s is not None else settings.margin_s
    found = await db_sweep.open_matches(
        pool, pending_after_s=settings.pending_after_s, queued_after_s=max(floor, 0.5)
    )
    resend: list[int] = []
    for match in found:
        if match.status != "pending" and waiting_in_broker > 0:
            continue  # it may be waiting its turn behind the backlog
        if match.age_s < stale_after_s(match, settings):
            continue
        if match.status != "pending" and match.attempts >= settings.max_attempts:
            done, made_ready = await _give_up(pool, match, match.attempts)
            if done:
                report.gave_up.append(match.id)
                report.advanced += made_ready
                logger.error(
                    "match %s: no result after %s attempts; given up (no winner, unrated)",
                    match.id,
                    match.attempts,
                )
            continue
        resend.append(match.id)
    if resend:
        logger.warning("re-sending stale matches %s", resend)
        await send_matches(pool, resend)
        report.requeued = resend
    if report.advanced:
        await send_matches(pool, report.advanced)
    await sweep_stopping(pool, settings, report)
    return report


def waiting_in_broker(settings: RedisSettings) -> int:
    """Messages waiting in the ``matches`` and ``results`` lists (-1 if Redis does not answer:
    then only never-sent matches are handled)."""
    try:
        with contextlib.closing(
            redis.Redis.from_url(settings.url_or_local, socket_timeout=5, socket_connect_timeout=5)
        ) as client:
            return sum(cast(int, client.llen(settings.prefix + q)) for q in (MATCHES, RESULTS))
    except redis.RedisError:
        logger.warning("the broker did not answer; only never-sent matches are handled")
        return -1


@platform_task(REQUEUE_STALE, limits=(SHORT_SOFT_LIMIT_S, SHORT_HARD_LIMIT_S))
def requeue_stale_matches() -> dict[str, object]:
    """Beat's recovery pass (see the module docstring); what it did."""
    settings = app.settings
    backlog = waiting_in_broker(settings.redis)
    # Redis not answering (-1) counts as a backlog: only never-sent matches are handled
    report = run_db(lambda pool: sweep(pool, settings.sweep, waiting_in_broker=abs(backlog)))
    return report.as_dict()
