"""The workers' metrics count what really happened: a real match, played by a real bot-calling
worker (threads pool) against two SDK bots on 127.0.0.1 and stored by a real trusted worker
with a PREFORK pool of two processes (Prometheus's multiprocess mode: each pool process writes
its own files, the parent serves their sum), each worker on a metrics port of its own; and
their log lines are JSON lines carrying the match's id."""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from arena.match.replay import load_replay
from services.db import matches as db_matches
from services.worker import command, senders
from services.worker.names import BOT_CALLING_QUEUES
from tests.services.worker.fixtures import BOX, rated_challenge
from tests.services.worker.processes import (
    free_port,
    poll_get,
    start,
    stop,
    wait_for,
    wait_for_row,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(port: int) -> Samples:
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10, trust_env=False).text
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def total(found: Samples, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    return sum(
        v
        for (n, ls), v in found.items()
        if n == name and all((k, w) in ls for k, w in labels.items())
    )


def answers(port: int) -> bool:
    try:
        return poll_get(f"http://127.0.0.1:{port}/metrics", timeout=2).is_success
    except httpx.HTTPError:
        return False


@contextlib.contextmanager
def worker(argv: list[str], env: dict[str, str], log: Path, port: int) -> Iterator[Any]:
    process = start(argv, env, log)
    try:
        wait_for(lambda: " ready." in log.read_text(errors="replace"), 60, "celery worker", log)
        wait_for(lambda: answers(port), 30, "the worker's metrics port", log)
        yield process
    finally:
        stop(process)


async def test_the_workers_count_a_real_match_and_log_it_as_json(
    pool: asyncpg.Pool, stack_env: dict[str, str], bot_server_factory: Any, tmp_path: Path
) -> None:
    from services import flow

    match_id, _, _ = await rated_challenge(pool, bot_server_factory)
    ports = {"matches": free_port(), "results": free_port()}
    dirs = {name: tmp_path / f"metrics-{name}" for name in ports}
    logs = {name: tmp_path / f"{name}.log" for name in ports}
    env = {**stack_env, "TRUCO_LOG_FORMAT": "json"}
    bot_env = {k: v for k, v in env.items() if k not in ("DATABASE_URL", "TRUCO_SECRET_KEY")}
    matches_argv = command.worker_argv(
        sys.executable, BOT_CALLING_QUEUES, f"m-{time.monotonic_ns()}@%h", 8
    )
    # the trusted worker as infra/compose.yaml runs it: Celery's default prefork pool
    results_argv = [
        sys.executable, "-m", "celery", "-A", command.CELERY_APP, "worker", "-Q", "results",
        "-n", f"r-{time.monotonic_ns()}@%h", "--pool=prefork", "--concurrency=2",
        "--loglevel=INFO", "--without-mingle", "--without-gossip",
    ]  # fmt: skip
    for name in ports:
        dirs[name].mkdir()
    with (
        worker(
            matches_argv,
            {
                **bot_env,
                "TRUCO_METRICS_PORT": str(ports["matches"]),
                "PROMETHEUS_MULTIPROC_DIR": str(dirs["matches"]),
            },
            logs["matches"],
            ports["matches"],
        ),
        worker(
            results_argv,
            {
                **env,
                "TRUCO_METRICS_PORT": str(ports["results"]),
                "PROMETHEUS_MULTIPROC_DIR": str(dirs["results"]),
            },
            logs["results"],
            ports["results"],
        ),
    ):
        before = {name: scrape(port) for name, port in ports.items()}
        depth = total(before["results"], "truco_queue_depth", queue="matches")
        assert depth == 0  # the queue is read from the broker at each scrape
        assert {("queue", q) for q in ("matches", "ladder", "results")} <= {
            label
            for (n, ls), _ in before["matches"].items()
            if n == "truco_queue_depth"
            for label in ls
        }
        specs = await flow.match_specs(pool, [match_id], secret_box=BOX)
        senders.send_orders(specs)
        await wait_for_row(pool, "SELECT status = 'done' FROM matches WHERE id = $1", match_id)
        stored = await db_matches.replay_json(pool, match_id)
        assert stored is not None
        replay = load_replay(stored)
        decisions = [
            d for game in replay.games for d in game.events if type(d).__name__ == "Decision"
        ]
        faulted = [d for d in decisions if d.fault is not None]  # type: ignore[attr-defined]
        # the store's counters are written once the task returns: wait for them, not a time
        wait_for(
            lambda: total(scrape(ports["results"]), "truco_matches_stored_total") >= 1,
            30,
            "the result counted",
            logs["results"],
        )
        after = {name: scrape(port) for name, port in ports.items()}

    played, results = after["matches"], after["results"]
    # the bot-calling worker: every decision of the replay, one call each, by outcome
    assert total(played, "truco_bot_calls_total") == len(decisions) > 20
    assert total(played, "truco_bot_calls_total", outcome="ok") == len(decisions) - len(faulted)
    assert total(played, "truco_bot_call_duration_seconds_count") == len(decisions)
    latency = sum(d.latency_ms for d in decisions) / 1000  # type: ignore[attr-defined]
    assert total(played, "truco_bot_call_duration_seconds_sum") == pytest.approx(latency, rel=1e-6)
    assert total(played, "truco_faults_total") == len(faulted)
    assert total(played, "truco_matches_played_total", end="result") == 1
    assert total(played, "truco_matches_playing") == 0  # it ended
    assert total(played, "truco_matches_waiting") == 0
    # the trusted worker (two pool processes, one parent serving their files): stored once
    assert total(results, "truco_matches_stored_total", kind="other") == 1
    assert total(results, "truco_matches_stored_total", kind="duplicate") == 0
    assert total(results, "truco_store_duration_seconds_count") == 1
    assert total(results, "truco_store_duration_seconds_sum") > 0
    assert total(results, "truco_store_refused_total") == 0
    assert total(before["results"], "truco_matches_stored_total") == 0
    assert any(path.name.endswith(".db") for path in dirs["results"].iterdir())

    # JSON lines, every one of them; the match's task lines carry its id
    for name, path in logs.items():
        lines = [line for line in path.read_text().splitlines() if line.startswith("{")]
        parsed = [json.loads(line) for line in lines]
        assert parsed, name
        assert all({"ts", "level", "logger", "message"} <= set(p) for p in parsed)
        about = [p for p in parsed if p.get("match_id") == match_id]
        task = "truco.play_match" if name == "matches" else "truco.store_result"
        assert any(task in p["message"] and "succeeded" in p["message"] for p in about), (
            name,
            lines[-10:],
        )
        assert "Traceback" not in path.read_text()
