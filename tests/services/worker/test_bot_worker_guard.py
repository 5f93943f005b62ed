"""A bot-calling worker started with platform credentials in production exits before it takes a
message (issue 11, finding 1): a real ``celery worker`` process against the run's Redis. And the
bot-calling worker's code loads none of the trusted worker's: no database module at all."""

from __future__ import annotations

import contextlib
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from services.base.environment import WORKER_NEEDS, load_settings
from services.worker.app import EX_CONFIG, WorkerApp, bot_worker_credentials
from services.worker.command import BOT_CALLING_APP, CELERY_APP, celery_app_for
from tests.servers import RedisTarget
from tests.services.worker.processes import start, stop, worker_argv

pytestmark = pytest.mark.slow


def test_only_a_matches_consumer_is_checked(tmp_path: Path) -> None:
    def held(queues: set[str], environ: dict[str, str]) -> list[str]:
        settings = load_settings({**environ, "TRUCO_DATA_DIR": str(tmp_path)}, needs=WORKER_NEEDS)
        return bot_worker_credentials(queues, settings)

    env = {"DATABASE_URL": "postgresql://h/db", "TRUCO_SECRET_KEY": "k" * 40}
    assert held({"matches"}, env) == ["DATABASE_URL", "TRUCO_SECRET_KEY"]
    assert held({"matches", "results"}, {"TRUCO_SECRET_KEY": "k" * 40}) == ["TRUCO_SECRET_KEY"]
    assert held({"results"}, env) == []
    assert held({"matches"}, {"DATABASE_URL": "  "}) == []
    # a worker's settings never make up the local master key
    assert held({"matches"}, {}) == [] and not (tmp_path / "secret_key").exists()


@pytest.mark.parametrize("credential", ["DATABASE_URL", "TRUCO_SECRET_KEY"])
def test_production_bot_worker_with_credentials_exits_before_consuming(
    credential: str, redis_target: RedisTarget, tmp_path: Path
) -> None:
    prefix = f"{redis_target.prefix}{secrets.token_hex(3)}:"
    env = {
        "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
        "TRUCO_ENV": "production",
        "REDIS_URL": redis_target.url,
        "TRUCO_REDIS_PREFIX": prefix,
        "PYTHONUNBUFFERED": "1",
        credential: "postgresql://truco:pw@127.0.0.1:1/truco"
        if credential == "DATABASE_URL"
        else "m" * 48,
    }
    sender = WorkerApp("truco-guard-sender", settings=load_settings(env, needs=WORKER_NEEDS))
    with contextlib.closing(redis.Redis.from_url(redis_target.url)) as client:
        sender.send_task("truco.probe_bots", args=[[]], queue="matches")
        queue_key = f"{prefix}matches"
        assert client.llen(queue_key) == 1
        log = tmp_path / "worker.log"
        process = start(worker_argv("matches", f"guard-{secrets.token_hex(3)}"), env, log)
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            stop(process)
            pytest.fail(f"the worker kept running:\n{log.read_text(errors='replace')[-3000:]}")
        finally:
            sender.close()
        text = log.read_text(errors="replace")
        assert code == EX_CONFIG, text[-3000:]
        assert " ready." not in text
        assert f"has {credential} in its environment" in text
        assert client.llen(queue_key) == 1  # the message was never taken
        assert not client.exists(f"{prefix}unacked")


LOADED = """
import sys
import services.worker.matches.celery_app as target
print(sorted(name for name in target.app.tasks if name.startswith("truco.")))
print(sorted(name for name in sys.modules if name.split(".")[0] == "asyncpg"
             or name.startswith(("services.db", "services.flow", "services.worker.results"))))
"""


def test_the_bot_calling_worker_loads_no_database_code() -> None:
    """A worker of the bot-calling queues is started on its own ``celery -A`` target, which in a
    fresh interpreter registers only its two tasks and imports no asyncpg, no database or
    workflow module and nothing of the trusted worker's (the architecture test checks the
    imports as written; this checks what a real process loads)."""
    assert celery_app_for("matches,ladder") == celery_app_for("matches") == BOT_CALLING_APP
    assert celery_app_for("results") == celery_app_for("matches,ladder,results") == CELERY_APP
    assert worker_argv("matches,ladder", "bots")[4] == BOT_CALLING_APP
    done = subprocess.run(
        [sys.executable, "-c", LOADED], capture_output=True, text=True, timeout=60, check=True
    )
    tasks, loaded = done.stdout.splitlines()
    assert tasks == str(["truco.play_match", "truco.play_person", "truco.probe_bots"])
    assert loaded == "[]"
    # the same check sees them when they are there: the full app loads the trusted worker
    full = LOADED.replace("services.worker.matches.celery_app", "services.worker.celery_app")
    done = subprocess.run(
        [sys.executable, "-c", full], capture_output=True, text=True, timeout=60, check=True
    )
    assert "asyncpg" in done.stdout and "services.worker.results.store" in done.stdout
