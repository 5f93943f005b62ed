"""The trusted worker's side against a real database: a result is stored exactly once even
when the match task ran twice; bot health checks; starting due tournaments."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import msgspec
import pytest

from engine.rules import Rules
from services.base.config import Secret, SecretSettings, Settings
from services.db import bot_health
from services.domain.match_order import MatchOrder
from services.worker import senders
from services.worker.app import WorkerApp
from services.worker.matches import play_match as play
from services.worker.matches.probe import probe_all
from services.worker.messages import ProbeOutcome, ProbeTarget
from services.worker.results import dispatch, periodic, store
from tests.services.helpers.api_helpers import NetworkGuard
from tests.services.worker.fixtures import BOX, SECRET_KEY, make_account, make_bot, rated_challenge

pytestmark = pytest.mark.anyio


@pytest.fixture
def captured(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, list[Any]]]:
    calls: list[tuple[str, list[Any]]] = []

    def send_task(name: str, args: list[Any], **options: Any) -> object:
        calls.append((name, args))
        return type("R", (), {"id": "x"})()

    sender = WorkerApp(
        "truco-test-sender", settings=Settings(secrets=SecretSettings(key=Secret(SECRET_KEY)))
    )
    monkeypatch.setattr(sender, "send_task", send_task)
    monkeypatch.setattr(senders, "current_app", lambda: sender)
    return calls


async def test_result_is_stored_once_when_the_match_ran_twice(
    pool: asyncpg.Pool, bot_server_factory: Any, captured: list[tuple[str, list[Any]]]
) -> None:

    match_id, bots, keys = await rated_challenge(pool, bot_server_factory)
    await dispatch.send_matches(pool, [match_id])  # marks it queued, sends truco.play_match
    assert [name for name, _ in captured] == ["truco.play_match"]
    message = msgspec.convert(captured[0][1][0], MatchOrder)
    assert message.match_id == match_id and message.entrants[0].secret == keys[0]

    # the bot-calling worker runs it twice (say Redis redelivered it): two results are sent
    first = await play.play(message, allow_loopback=True)
    second = await play.play(message, allow_loopback=True)
    for task_id, replay in (("a", first), ("b", second)):
        checked = store.check_replay(match_id, msgspec.json.encode(replay))
        await store.store(pool, match_id, checked, task_id)

    assert (
        await pool.fetchval("SELECT count(*) FROM match_results WHERE match_id = $1", match_id) == 1
    )
    assert (
        await pool.fetchval("SELECT task_id FROM match_results WHERE match_id = $1", match_id)
        == "a"
    )
    history = await pool.fetchval(
        "SELECT count(*) FROM rating_history WHERE match_id = $1", match_id
    )
    assert first.result.reason != "walkover"  # two healthy bots: a played, rated match
    assert history == 2
    matches = await pool.fetch(
        "SELECT matches FROM ratings WHERE mode = '1v1' AND bot_id = ANY($1)", bots
    )
    assert [row["matches"] for row in matches] == [1, 1]
    status = await pool.fetchval("SELECT status FROM matches WHERE id = $1", match_id)
    assert status == "done"


async def test_health_marks_unavailable_after_n_failures_and_back(pool: asyncpg.Pool) -> None:
    owner = await make_account(pool)
    bot = await make_bot(pool, owner, "http://127.0.0.1:9")
    for n in (1, 2):
        recorded = await bot_health.record_check(
            pool, bot, ok=False, error="connect: refused", failures_to_unavailable=3
        )
        assert (
            recorded is not None
            and recorded.after == "active"
            and recorded.consecutive_failures == n
        )
    recorded = await bot_health.record_check(
        pool, bot, ok=False, error="connect: refused", failures_to_unavailable=3
    )
    assert recorded is not None and recorded.became_unavailable
    again = await bot_health.record_check(pool, bot, ok=False, error="x", failures_to_unavailable=3)
    assert again is not None and not again.became_unavailable and again.after == "unavailable"
    back = await bot_health.record_check(pool, bot, ok=True, error=None, failures_to_unavailable=3)
    assert back is not None and back.came_back and back.consecutive_failures == 0
    row = await pool.fetchrow("SELECT status, last_error, last_ok_at FROM bots WHERE id = $1", bot)
    assert row["status"] == "active" and row["last_error"] is None and row["last_ok_at"]
    await pool.execute("UPDATE bots SET status = 'deleted', deleted_at = now() WHERE id = $1", bot)
    assert (
        await bot_health.record_check(pool, bot, ok=True, error=None, failures_to_unavailable=3)
        is None
    )
    later = datetime.now(UTC) + timedelta(minutes=1)  # checked or not, a deleted bot is left out
    to_check = await bot_health.bots_to_check(pool, later, checked_before=later)
    assert bot not in [c.bot_id for c in to_check]


async def test_probes_through_the_guarded_client(bot_server_factory: Any) -> None:
    """Probes go through the egress guard; the test's resolver and network backend fail the
    test if anything but loopback is ever resolved or connected to."""
    server = bot_server_factory("random")
    guard = NetworkGuard()
    targets = [
        ProbeTarget(1, server.url),
        ProbeTarget(2, "http://127.0.0.1:9"),  # nothing listens
        ProbeTarget(3, "http://169.254.169.254"),  # refused by the egress guard
        ProbeTarget(4, "http://rebind.example"),  # resolves to loopback AND a private address
    ]
    outcomes = await probe_all(targets, allow_loopback=True, make_client=guard.factory)
    assert [o.ok for o in outcomes] == [True, False, False, False]
    assert outcomes[1].error is not None and outcomes[1].error.startswith("connect")
    assert outcomes[2].error is not None and "metadata" in outcomes[2].error
    assert outcomes[3].error is not None and "non-public address (private)" in outcomes[3].error
    assert not any("10.0.0.5" in (o.error or "") for o in outcomes)  # addresses never shown
    refused = await probe_all(
        [ProbeTarget(1, server.url)], allow_loopback=False, make_client=guard.factory
    )
    assert not refused[0].ok and "loopback" in (refused[0].error or "")
    assert guard.refused == []  # nothing but loopback was ever resolved or connected to
    assert {host for host, _ in guard.connected} == {"127.0.0.1"}


async def test_unavailable_bot_withdraws_from_its_tournament(
    pool: asyncpg.Pool, captured: list[tuple[str, list[Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    from services import flow

    flagged: list[list[int]] = []
    monkeypatch.setattr(periodic, "stop_matches", lambda ids: flagged.append(list(ids)))

    owner = await make_account(pool)
    bots = [await make_bot(pool, owner, f"http://127.0.0.1:{9000 + i}") for i in range(4)]
    tournament = await flow.create_tournament(
        pool,
        organiser_id=owner,
        name="health cup",
        format="swiss",
        mode="1v1",
        settings=flow.TournamentSettings(rules=Rules(points_to_win=15)),
    )
    for bot in bots:
        await flow.enter_tournament(pool, tournament.id, bot)
    await dispatch.send_matches(pool, await flow.start_tournament(pool, tournament.id))
    failing = [ProbeOutcome(bots[0], False, "connect: refused")]
    for _ in range(2):
        assert await periodic.record_health(pool, failing, 3) == {"unavailable": [], "active": []}
    assert await periodic.record_health(pool, failing, 3) == {
        "unavailable": [bots[0]],
        "active": [],
    }
    withdrawn = await pool.fetchval(
        "SELECT withdrawn_at FROM tournament_entries WHERE tournament_id = $1 AND bot_id = $2",
        tournament.id,
        bots[0],
    )
    assert withdrawn is not None
    # its match was sent (queued): forfeited, stopping, and its worker asked to stop
    (forfeited,) = await pool.fetch(
        "SELECT m.id, m.status, m.stopping_since FROM matches m JOIN match_entrants e "
        "ON e.match_id = m.id WHERE m.tournament_id = $1 AND e.bot_id = $2",
        tournament.id,
        bots[0],
    )
    assert forfeited["status"] == "forfeit" and forfeited["stopping_since"] is not None
    assert flagged == [[forfeited["id"]]]
    assert await periodic.record_health(pool, [ProbeOutcome(bots[0], True)], 3) == {
        "unavailable": [],
        "active": [bots[0]],
    }


async def test_due_tournaments_start_and_queue(
    pool: asyncpg.Pool, captured: list[tuple[str, list[Any]]]
) -> None:
    from services import flow

    owner = await make_account(pool)
    bots = [await make_bot(pool, owner, f"http://127.0.0.1:{9100 + i}") for i in range(2)]
    now = datetime.now(UTC)
    tournament = await flow.create_tournament(
        pool,
        organiser_id=owner,
        name="due cup",
        format="round_robin",
        mode="1v1",
        settings=flow.TournamentSettings(),
        start_at=now - timedelta(seconds=1),
    )
    for bot in bots:
        await flow.enter_tournament(pool, tournament.id, bot)
    started = await periodic.start_due(pool, now)
    assert list(started) == [tournament.id] and len(started[tournament.id]) == 1
    assert [name for name, _ in captured] == ["truco.play_match"]
    assert await periodic.start_due(pool, now) == {}
    assert BOX.key_id
