"""The recovery sweeper (``services.worker.results.sweep``) against a real PostgreSQL database.

Matches are made old by moving their timestamps back; sends go to a recording Celery stand-in
(``senders.current_app``), so ``send_matches`` runs for real up to the broker."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import pytest

from engine.rules import Rules
from services import flow
from services.base.config import ConfigError, Settings, SweepSettings
from services.base.environment import WORKER_NEEDS, load_settings
from services.base.secretbox import SecretBox
from services.db import sweep as db_sweep
from services.worker import senders
from services.worker.app import make_config
from services.worker.celery_app import app
from services.worker.names import REQUEUE_STALE, RESULTS
from services.worker.results import dispatch, sweep
from tests.services.helpers.flow_helpers import SECRET_KEY, make_account, make_bot, make_tournament

pytestmark = pytest.mark.anyio

FAST = SweepSettings(pending_after_s=30, queued_after_s=None, margin_s=60, max_attempts=3)


@dataclass
class Sent:
    id: str


@dataclass
class RecordingApp:
    sent: list[int] = field(default_factory=list)
    secret_box: SecretBox = field(default_factory=lambda: SecretBox(SECRET_KEY))

    def send_task(self, name: str, args: list[Any], **options: Any) -> Sent:
        assert name == "truco.play_match"
        self.sent.append(int(args[0]["match_id"]))
        return Sent(secrets.token_hex(4))


@pytest.fixture
def broker(monkeypatch: pytest.MonkeyPatch) -> RecordingApp:
    recording = RecordingApp()
    monkeypatch.setattr(senders, "current_app", lambda: recording)
    return recording


async def _swiss(pool: asyncpg.Pool, bots: int = 4, rounds: int = 2) -> tuple[int, list[int]]:
    tournament_id, _ = await make_tournament(pool, "swiss", bots, rounds=rounds)
    return tournament_id, await flow.start_tournament(pool, tournament_id)


async def _age(pool: asyncpg.Pool, match_ids: list[int], column: str, seconds: float) -> None:
    await pool.execute(
        f"UPDATE matches SET {column} = now() - make_interval(secs => $2) "
        "WHERE id = ANY($1::bigint[])",
        match_ids,
        seconds,
    )


async def _status(pool: asyncpg.Pool, match_id: int) -> tuple[str, int]:
    row = await pool.fetchrow("SELECT status, attempts FROM matches WHERE id = $1", match_id)
    assert row is not None
    return str(row["status"]), int(row["attempts"])


async def test_pending_matches_of_a_new_round_are_sent_once_they_are_old(
    pool: asyncpg.Pool, broker: RecordingApp
) -> None:
    """The trusted worker died after record_result committed round 1 and before it sent it."""
    _, ids = await _swiss(pool)
    assert [await _status(pool, m) for m in ids] == [("pending", 0)] * 2
    report = await sweep.sweep(pool, FAST)
    assert not set(ids) & set(report.requeued)  # just created: the sender may be on it
    await _age(pool, ids, "created_at", 31)
    report = await sweep.sweep(pool, FAST)
    assert set(ids) <= set(report.requeued) and set(ids) <= set(broker.sent)
    assert [await _status(pool, m) for m in ids] == [("queued", 1)] * 2
    again = await sweep.sweep(pool, FAST)  # now queued and fresh: left alone
    assert not set(ids) & set(again.requeued)


async def test_a_lost_task_is_sent_again_after_its_hard_limit_and_the_margin(
    pool: asyncpg.Pool, broker: RecordingApp
) -> None:
    _, ids = await _swiss(pool)
    await dispatch.send_matches(pool, ids)
    assert broker.sent == ids
    match = (await db_sweep.open_matches(pool, pending_after_s=0.5, queued_after_s=0.0))[-1]
    # default settings: 2 games, 30 s banks, 1 s calls -> deadline 160 s, hard limit 220 s
    assert sweep.stale_after_s(match, FAST) == 220 + 60
    await _age(pool, ids, "queued_at", 250)
    assert not set(ids) & set((await sweep.sweep(pool, FAST)).requeued)
    await _age(pool, ids[:1], "queued_at", 281)
    await pool.execute(  # the other one is being played: 'running' counts from its start
        "UPDATE matches SET status = 'running', started_at = now() - interval '10 s', "
        "queued_at = now() - interval '900 s' WHERE id = $1",
        ids[1],
    )
    report = await sweep.sweep(pool, FAST)
    assert ids[0] in report.requeued and ids[1] not in report.requeued
    assert await _status(pool, ids[0]) == ("queued", 2)
    await _age(pool, ids[1:], "started_at", 300)
    assert ids[1] in (await sweep.sweep(pool, FAST)).requeued
    assert await _status(pool, ids[1]) == ("queued", 2)


async def test_a_backlog_in_the_broker_holds_queued_matches_but_not_pending_ones(
    pool: asyncpg.Pool, broker: RecordingApp
) -> None:
    _, queued = await _swiss(pool)
    await dispatch.send_matches(pool, queued)
    await _age(pool, queued, "queued_at", 3600)
    _, pending = await _swiss(pool)
    await _age(pool, pending, "created_at", 3600)
    report = await sweep.sweep(pool, FAST, waiting_in_broker=7)
    assert set(pending) <= set(report.requeued)
    assert not set(queued) & set(report.requeued)
    report = await sweep.sweep(pool, FAST, waiting_in_broker=0)
    assert set(queued) <= set(report.requeued)


async def test_after_max_attempts_a_match_is_decided_without_winner_and_the_event_goes_on(
    pool: asyncpg.Pool, broker: RecordingApp
) -> None:
    tournament_id, ids = await _swiss(pool)
    for _ in range(FAST.max_attempts):
        await dispatch.send_matches(pool, ids)
    await _age(pool, ids, "queued_at", 3600)
    ratings_before = await pool.fetchval("SELECT count(*) FROM rating_history")
    report = await sweep.sweep(pool, FAST)
    assert set(ids) <= set(report.gave_up)
    assert len(report.advanced) == 2  # round 2 of the Swiss, sent at once
    assert set(report.advanced) <= set(broker.sent)
    for match_id in ids:
        row = await pool.fetchrow(
            "SELECT m.status, m.winner_side, r.result FROM matches m "
            "JOIN match_results r ON r.match_id = m.id WHERE m.id = $1",
            match_id,
        )
        assert row is not None
        assert (row["status"], row["winner_side"]) == ("forfeit", None)
        assert row["result"]["reason"] == "error" and row["result"]["forfeit"] is None
        assert "3 attempt(s)" in row["result"]["error"]
    assert await pool.fetchval("SELECT count(*) FROM rating_history") == ratings_before
    entrants, matches = await flow.event_state(pool, tournament_id)
    table = flow.standings("swiss", entrants, matches)
    assert sorted(row.points for row in table) == [0.5] * 4  # two draws each counted once
    rounds = await pool.fetchval(
        "SELECT current_round FROM tournaments WHERE id = $1", tournament_id
    )
    assert rounds == 2


async def test_a_challenge_given_up_becomes_error(pool: asyncpg.Pool, broker: RecordingApp) -> None:
    owner = await make_account(pool)
    a, b = await make_bot(pool, owner), await make_bot(pool, owner)
    match_id = await flow.create_challenge(
        pool, a, b, mode="1v1", rules={}, games_per_match=2, rated=True
    )
    for _ in range(FAST.max_attempts):
        await dispatch.send_matches(pool, [match_id])
    await _age(pool, [match_id], "queued_at", 3600)
    report = await sweep.sweep(pool, FAST)
    assert match_id in report.gave_up and report.advanced == []
    assert await _status(pool, match_id) == ("error", FAST.max_attempts)
    assert (
        await pool.fetchval("SELECT count(*) FROM match_results WHERE match_id = $1", match_id) == 0
    )


async def test_a_result_that_lands_first_wins_over_giving_up(
    pool: asyncpg.Pool, broker: RecordingApp
) -> None:
    _, ids = await _swiss(pool)
    for _ in range(FAST.max_attempts):
        await dispatch.send_matches(pool, ids)
    await _age(pool, ids, "queued_at", 3600)
    found = {
        m.id: m for m in await db_sweep.open_matches(pool, pending_after_s=1, queued_after_s=1)
    }
    await pool.execute(  # a result (or another send) lands between the scan and the decision
        "UPDATE matches SET attempts = attempts + 1 WHERE id = $1", ids[0]
    )
    assert await sweep._give_up(pool, found[ids[0]], FAST.max_attempts) == (False, [])
    assert await _status(pool, ids[0]) == ("queued", FAST.max_attempts + 1)


@pytest.mark.parametrize("status", ["finished", "cancelled"])
async def test_cancelled_and_finished_tournaments_are_left_alone(
    pool: asyncpg.Pool, broker: RecordingApp, status: str
) -> None:
    """Old, never-sent matches of an event that is over are neither sent again nor given up
    (the tournament's status is set directly, so its matches stay pending)."""
    tournament_id, ids = await _swiss(pool)
    before = [await _status(pool, match_id) for match_id in ids]
    assert {state for state, _ in before} == {"pending"}
    await _age(pool, ids, "created_at", 3600)
    await pool.execute(
        "UPDATE tournaments SET status = $2, finished_at = now() WHERE id = $1",
        tournament_id,
        status,
    )
    report = await sweep.sweep(pool, FAST)
    assert not set(ids) & set(report.requeued)
    assert not set(ids) & set(report.gave_up)
    assert [await _status(pool, match_id) for match_id in ids] == before


def test_settings_schedule_and_route(tmp_path: Path) -> None:
    def sweep_settings(environ: dict[str, str]) -> SweepSettings:
        return load_settings({**environ, "TRUCO_DATA_DIR": str(tmp_path)}, needs=WORKER_NEEDS).sweep

    assert sweep_settings({}) == SweepSettings()
    fast = sweep_settings(
        {
            "TRUCO_SWEEP_EVERY_S": "1",
            "TRUCO_SWEEP_PENDING_AFTER_S": "2",
            "TRUCO_SWEEP_QUEUED_AFTER_S": "6",
            "TRUCO_SWEEP_MARGIN_S": "0",
            "TRUCO_SWEEP_MAX_ATTEMPTS": "2",
        }
    )
    assert fast == SweepSettings(
        every_s=1, pending_after_s=2, queued_after_s=6, margin_s=0, max_attempts=2
    )
    with pytest.raises(ConfigError, match="TRUCO_SWEEP_EVERY_S"):
        sweep_settings({"TRUCO_SWEEP_EVERY_S": "soon"})
    with pytest.raises(ConfigError, match="TRUCO_SWEEP_MAX_ATTEMPTS"):
        sweep_settings({"TRUCO_SWEEP_MAX_ATTEMPTS": "0"})
    entry = app.conf.beat_schedule["requeue-stale-matches"]
    assert entry["task"] == REQUEUE_STALE and entry["schedule"] == app.settings.sweep.every_s
    assert entry["options"] == {"queue": RESULTS, "expires": app.settings.sweep.every_s}
    quick = make_config(Settings(sweep=fast))["beat_schedule"]["requeue-stale-matches"]
    assert quick["schedule"] == 1.0 and quick["options"]["expires"] == 1.0
    task = app.tasks[REQUEUE_STALE]
    visibility = app.conf.broker_transport_options["visibility_timeout"]
    assert task.acks_late and task.reject_on_worker_lost
    assert 0 < task.soft_time_limit < task.time_limit < visibility
    assert app.amqp.router.route({}, REQUEUE_STALE)["queue"].name == RESULTS


async def test_a_test_pair_given_up_fails_its_test_and_cancels_the_others(
    pool: asyncpg.Pool, broker: RecordingApp
) -> None:
    """An SPRT test whose pair can never be played ends ``failed`` (nothing waits for ever,
    its quota place frees) and its other pairs are cancelled."""
    from services.domain.sprt_runs import SprtParams
    from services.flow import sprt as flow_sprt

    owner = await make_account(pool)
    a, b = await make_bot(pool, owner), await make_bot(pool, owner)
    params = SprtParams(elo0=0, elo1=10, alpha=0.05, beta=0.05, max_games=100, concurrency=2)
    test_id, (stuck, other) = await flow_sprt.create_test(
        pool, owner_id=owner, bot_a=a, bot_b=b, mode="1v1", rules=Rules(), params=params
    )
    for _ in range(FAST.max_attempts):
        await dispatch.send_matches(pool, [stuck])
    await _age(pool, [stuck], "queued_at", 3600)
    report = await sweep.sweep(pool, FAST)
    assert stuck in report.gave_up and report.advanced == []
    assert await _status(pool, stuck) == ("error", FAST.max_attempts)
    assert (await _status(pool, other))[0] == "cancelled"
    row = await pool.fetchrow("SELECT status, error FROM sprt_tests WHERE id = $1", test_id)
    assert row is not None and row["status"] == "failed"
    assert "given up" in row["error"]
