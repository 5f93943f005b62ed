"""The Celery configuration: limits below the visibility timeout, late acks, queues, names."""

from __future__ import annotations

import ast
from pathlib import Path

import msgspec
import pytest

from arena.match.runner import MatchSettings
from engine.rules import Rules
from services.base import limits
from services.base.config import ConfigError
from services.base.environment import WORKER_NEEDS, load_settings
from services.domain.match_order import EntrantOrder, MatchOrder
from services.worker import task as task_module
from services.worker.app import celery_broker_url
from services.worker.celery_app import app, make_config
from services.worker.names import LADDER, MATCHES, RESULTS, TASK_QUEUES
from services.worker.senders import play_options
from services.worker.task import Retry, task_options

NAMES = {
    "truco.play_match",
    "truco.store_result",
    "truco.start_due_tournaments",
    "truco.check_bot_health",
    "truco.probe_bots",
    "truco.record_bot_health",
    "truco.match_started",
    "truco.match_stopped",
    "truco.match_refused",
    "truco.requeue_stale_matches",
    "truco.fit_ratings",
    "truco.ladder_tick",
    "truco.play_person",
    "truco.store_play_result",
    "truco.sweep_play_sessions",
}
WORKER = Path(task_module.__file__).parent


def test_task_names_are_stable_and_registered() -> None:
    assert set(app.tasks) >= NAMES
    assert set(TASK_QUEUES) == NAMES


def test_every_task_is_late_acked_and_limited_below_the_visibility_timeout() -> None:
    visibility = app.conf.broker_transport_options["visibility_timeout"]
    assert visibility == limits.VISIBILITY_TIMEOUT_S
    ours = {name for name in app.tasks if name.startswith("truco.")}
    assert ours >= NAMES
    for name in ours:  # every registered task, not only the listed ones
        task = app.tasks[name]
        assert task.acks_late is True, name
        assert task.reject_on_worker_lost is True, name
        assert task.soft_time_limit is not None and task.time_limit is not None, name
        assert 0 < task.soft_time_limit < task.time_limit < visibility, name
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.task_serializer == "json" and app.conf.accept_content == ["json"]


def test_queues_and_routes() -> None:
    queues = {q.name: q for q in app.conf.task_queues}
    assert set(queues) == {MATCHES, LADDER, RESULTS}
    for name, queue in queues.items():  # each queue its own exchange and key: no crossing
        assert queue.exchange.name == name and queue.routing_key == name
    router = app.amqp.router
    assert router.route({}, "truco.play_match")["queue"].name == MATCHES
    assert router.route({}, "truco.probe_bots")["queue"].name == MATCHES
    assert router.route({}, "truco.play_person")["queue"].name == MATCHES
    for name in NAMES - {"truco.play_match", "truco.probe_bots", "truco.play_person"}:
        assert router.route({}, name)["queue"].name == RESULTS
    for name in NAMES:  # each task declares the queue it is routed to
        assert app.tasks[name].queue == TASK_QUEUES[name]


def test_every_task_is_declared_with_the_platform_decorator() -> None:
    """No module but ``task.py`` calls ``app.task``: the shared options live in one place."""
    calls = []
    for path in sorted(WORKER.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == "task"
                and isinstance(node.value, ast.Name)
                and node.value.id == "app"
            ):
                calls.append(path.name)
    assert calls == ["task.py"]


def test_the_decorator_options() -> None:
    retry = Retry((OSError,), max_retries=5, backoff_max_s=60)
    options = task_options("truco.match_started", (60, 90), retry)
    assert options["queue"] == RESULTS and options["acks_late"] and options["reject_on_worker_lost"]
    assert (options["soft_time_limit"], options["time_limit"]) == (60, 90)
    assert options["autoretry_for"] == (OSError,) and options["max_retries"] == 5
    assert options["retry_backoff_max"] == 60 and options["retry_jitter"] is True
    stored = app.tasks["truco.store_result"]
    assert stored.max_retries == 20 and OSError in stored.autoretry_for
    assert app.tasks["truco.play_match"].max_retries is None  # busy bots: retried until free
    with pytest.raises(KeyError):
        task_options("truco.not_routed", (1, 2))
    with pytest.raises(ValueError, match="time limits"):
        task_options("truco.probe_bots", (90, 60))
    with pytest.raises(ValueError, match="time limits"):
        task_options("truco.probe_bots", (60, limits.VISIBILITY_TIMEOUT_S))


def test_beat_schedule() -> None:
    schedule = app.conf.beat_schedule
    by_task = {entry["task"]: entry for entry in schedule.values()}
    assert by_task["truco.start_due_tournaments"]["schedule"] == 30.0
    assert by_task["truco.check_bot_health"]["schedule"] == 60.0
    assert by_task["truco.fit_ratings"]["schedule"] == 30.0
    assert by_task["truco.ladder_tick"]["schedule"] == 5.0
    assert by_task["truco.sweep_play_sessions"]["schedule"] == 5.0  # /play: abandoned within 17 s
    for entry in schedule.values():
        assert entry["options"]["queue"] == RESULTS
        assert entry["options"]["expires"] <= entry["schedule"]


def test_config_from_environment(tmp_path: Path) -> None:
    def worker(environ: dict[str, str]) -> dict[str, object]:
        env = {**environ, "TRUCO_DATA_DIR": str(tmp_path)}
        return make_config(load_settings(env, needs=WORKER_NEEDS))

    config = worker({"REDIS_URL": "redis://127.0.0.1:6390/3", "TRUCO_REDIS_PREFIX": "t1:"})
    assert config["broker_url"] == "redis://127.0.0.1:6390/3"
    assert config["broker_transport_options"] == {
        "visibility_timeout": limits.VISIBILITY_TIMEOUT_S,
        "global_keyprefix": "t1:",
    }
    assert worker({})["broker_url"] == "redis://127.0.0.1:6379/0"  # local: the usual Redis
    with pytest.raises(ConfigError, match="REDIS_URL"):
        worker({"TRUCO_ENV": "production"})
    with pytest.raises(ConfigError, match="TRUCO_BOT_MAX_MATCHES"):
        worker({"TRUCO_BOT_MAX_MATCHES": "0"})
    assert celery_broker_url("unix:///run/redis.sock") == "redis+socket:///run/redis.sock"
    # a worker needs nothing but Redis in production (the bot-calling one holds nothing else)
    env = {"TRUCO_ENV": "production", "REDIS_URL": "redis://r:6379", "TRUCO_DATA_DIR": "/x"}
    production = load_settings(env, needs=WORKER_NEEDS)
    assert not production.allow_loopback_bots and production.secrets.key is None


def test_match_deadlines() -> None:
    default = MatchSettings()
    # 6 games x (2 banks of 30 s + 2 seats x 2 calls x 1 s) + 2 handshakes + margin
    assert default.games_per_match == 6
    assert limits.match_worst_case_s(default) == 6 * (60 + 4) + 2
    assert limits.match_deadline_s(default) == 6 * 64 + 2 + 30
    soft, hard = limits.match_task_limits(default)
    assert limits.match_deadline_s(default) < soft < hard <= limits.MATCH_HARD_LIMIT_S
    huge = MatchSettings(games_per_match=100, time_bank_ms=3_600_000)
    assert not limits.fits(huge) and limits.match_deadline_s(huge) == limits.MAX_MATCH_S
    soft, hard = limits.match_task_limits(huge)
    assert limits.MAX_MATCH_S < soft < hard <= limits.MATCH_HARD_LIMIT_S
    assert limits.MATCH_HARD_LIMIT_S < limits.VISIBILITY_TIMEOUT_S
    two_v_two = MatchSettings(rules=Rules(players=4))
    assert limits.match_worst_case_s(two_v_two) > limits.match_worst_case_s(default)
    # individual 2v2: four bots, four time banks and four handshakes
    games = two_v_two.games_per_match
    assert limits.match_worst_case_s(two_v_two, 4) == games * (4 * 30 + 2 * 4 * 1) + 4
    team_fits = MatchSettings(rules=Rules(players=4), games_per_match=50)
    assert limits.fits(team_fits) and not limits.fits(team_fits, 4)


def test_play_options_carry_the_matchs_own_limits() -> None:
    two = [EntrantOrder(k, "a", "http://x", "s") for k in range(2)]
    message = MatchOrder(1, 7, MatchSettings(), two)
    options = play_options(message)
    assert options["queue"] == MATCHES
    assert (options["soft_time_limit"], options["time_limit"]) == limits.match_task_limits(
        message.settings
    )
    # individual 2v2: four entrants, four time banks, a longer limit
    four = MatchOrder(1, 7, MatchSettings(rules=Rules(players=4)), two + two)
    assert play_options(four)["time_limit"] == limits.match_task_limits(four.settings, 4)[1]
    assert play_options(four)["time_limit"] > limits.match_task_limits(four.settings)[1]


def test_a_match_order_travels_as_json_and_never_shows_a_secret() -> None:
    """One struct for the sender and the worker: what is sent decodes into the same order, and
    its repr (in a log line or an error message) masks the signing secrets."""
    order = MatchOrder(3, 9, MatchSettings(), [EntrantOrder(1, "a", "http://x", "s3cr3t", "0ld")])
    assert msgspec.convert(msgspec.to_builtins(order), MatchOrder) == order
    assert "s3cr3t" not in repr(order) and "0ld" not in repr(order)
    assert order.bot_ids == [1]


def test_the_sweeper_waits_for_four_time_banks_in_individual_2v2() -> None:
    from datetime import UTC, datetime

    from engine.rules import Rules
    from services.base.config import SweepSettings
    from services.db.sweep import OpenMatch
    from services.worker.results import sweep

    def open_match(partnership: str) -> OpenMatch:
        return OpenMatch(
            id=1,
            status="queued",
            attempts=1,
            tournament_id=None,
            games_per_match=2,
            rules=Rules(players=4),
            deals="independent",
            since=datetime.now(UTC),
            age_s=0.0,
            partnership=partnership,
        )

    settings = SweepSettings(pending_after_s=30, queued_after_s=None, margin_s=60, max_attempts=3)
    team = sweep.stale_after_s(open_match("team"), settings)
    individual = sweep.stale_after_s(open_match("individual"), settings)
    assert individual - team == 2 * 2 * 30 + 2  # 2 more banks of 30 s a game, 2 handshakes


def test_every_thread_of_a_worker_shares_one_result_backend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Built per thread, each of a bot-calling worker's 1,000 threads paid a scan of every
    installed package's entry points (3-4 ms of CPU) on its first task. One object, built once,
    and no entry-point scan after it."""
    import threading

    from celery.utils import imports

    from services.worker.app import WorkerApp

    fresh = WorkerApp("truco-test-backend", settings=load_settings({}, needs=()))
    first = fresh.backend
    scans: list[str] = []
    real = imports.entry_points

    def counted(*args: object, **kwargs: object) -> object:
        scans.append("scan")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(imports, "entry_points", counted)
    seen: list[object] = []
    threads = [threading.Thread(target=lambda: seen.append(fresh.backend)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(seen) == 8 and all(backend is first for backend in seen)
    assert scans == []
