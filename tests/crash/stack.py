"""Real processes for the crash and load tests: Celery workers (bot-calling and trusted), beat,
slow SDK bots on 127.0.0.1, and the database checks every crash test ends with.

Built on ``tests/services/worker/processes.py`` (start, stop, wait_for, descendants). Every process gets
its own session (process group), so a test can ``kill -9`` one worker with everything under it,
as the kernel's OOM killer or a lost machine would.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

from arena.client.signing import generate_secret
from arena.sdk import BotServer, strategy_decider
from arena.wire.protocol import ActRequest
from engine import Action
from engine.rules import Rules
from services import flow
from services.base.environment import WORKER_NEEDS, load_settings
from services.worker import senders
from services.worker.app import WorkerApp
from tests.services.worker.fixtures import SECRET_KEY, make_account, make_bot
from tests.services.worker.processes import (
    descendants,
    forget,
    lower_priority,
    start,
    stop,
    wait_for,
)

ROOT = Path(__file__).resolve().parents[2]


def base_env(database_url: str, redis_url: str, prefix: str, data_dir: Path) -> dict[str, str]:
    """The environment of every process of a test (each test its own Redis key prefix)."""
    return {
        "PATH": str(Path(sys.executable).parent) + ":/usr/bin:/bin",
        "PYTHONPATH": str(ROOT),
        "TRUCO_ENV": "local",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "TRUCO_REDIS_PREFIX": f"{prefix}{secrets.token_hex(3)}:",
        "TRUCO_SECRET_KEY": SECRET_KEY,
        "TRUCO_DATA_DIR": str(data_dir),
        # every client is 127.0.0.1: the per-address budgets are tested elsewhere
        "TRUCO_ACCOUNT_RATE_LIMIT_PER_HOUR": "1000000",
        "TRUCO_ADDRESS_RATE_LIMIT_PER_MINUTE": "1000000",
        "PYTHONUNBUFFERED": "1",
    }


def sender_for(env: Mapping[str, str]) -> WorkerApp:
    """A Celery app sending to the test's broker and prefix, with the test's master key
    (``senders.current_app``)."""
    settings = load_settings(env, needs=WORKER_NEEDS)
    return WorkerApp(f"truco-test-sender-{secrets.token_hex(2)}", settings=settings)


def worker_argv(
    queues: str, name: str, *, pool: str = "threads", concurrency: int = 6, module: str = ""
) -> list[str]:
    """``celery worker`` (or ``python -m module worker`` for a hooked worker)."""
    head = (
        [sys.executable, "-m", module]
        if module
        else [sys.executable, "-m", "celery", "-A", "services.worker.celery_app"]
    )
    return [
        *head,
        "worker",
        "-Q",
        queues,
        "-n",
        f"{name}-{secrets.token_hex(3)}@%h",
        f"--pool={pool}",
        f"--concurrency={concurrency}",
        "--loglevel=INFO",
        "--without-mingle",
        "--without-gossip",
    ]


@dataclass
class Proc:
    """A child process of the test with its log."""

    process: subprocess.Popen[bytes]
    log: Path
    kind: str = ""
    restart: Callable[[], Proc] | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill9(self) -> float:
        """SIGKILL the whole process group (the worker and its pool); seconds it took to die."""
        began = time.monotonic()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        self.process.wait(10)
        forget(self.process)
        return time.monotonic() - began

    def stop(self) -> None:
        if self.process.poll() is None:
            stop(self.process)


@dataclass
class Stack:
    """The processes of one test; everything left running is stopped at the end."""

    env: dict[str, str]
    logs: Path
    procs: list[Proc] = field(default_factory=list)

    restarted: list[str] = field(default_factory=list)

    def _start(self, argv: list[str], env: Mapping[str, str], name: str) -> Proc:
        log = self.logs / f"{name}-{len(self.procs)}.log"
        proc = Proc(start(argv, env, log), log, name)
        self.procs.append(proc)
        return proc

    def supervise(self) -> list[str]:
        """What a supervisor (systemd ``Restart=always``, a Kubernetes pod with a liveness
        probe) does: start again every process that exited, or that logged Celery's
        ``Unrecoverable error`` and hangs. Returns the logs of the ones that had died."""
        died = []
        for proc in list(self.procs):
            if proc.restart is None:
                continue
            if proc.process.poll() is None:
                if "Unrecoverable error" not in proc.text():
                    continue
                proc.kill9()  # its liveness check fails: the consumer is gone, it hangs
            died.append(proc.log.name)
            self.procs.remove(proc)
            self.restarted.append(proc.log.name)
            proc.restart()
        return died

    def bot_worker(
        self,
        *,
        pool: str = "threads",
        concurrency: int = 6,
        extra: Mapping[str, str] = {},
        nice: int = 0,
    ) -> Proc:
        """A bot-calling worker (queue ``matches``): no DATABASE_URL, no master key; ``nice``
        lowers its CPU priority (the load test's stand-in for a machine of its own)."""
        env = {
            k: v
            for k, v in {**self.env, **extra}.items()
            if k not in ("DATABASE_URL", "TRUCO_SECRET_KEY")
        }
        argv = worker_argv("matches", "bots", pool=pool, concurrency=concurrency)
        if nice:
            argv = ["nice", "-n", str(nice), *argv]
        proc = self._start(argv, env, "bots")
        if nice:
            lower_priority(proc.pid, nice)
        proc.restart = lambda: self.bot_worker(
            pool=pool, concurrency=concurrency, extra=extra, nice=nice
        )
        self.wait_ready(proc)
        return proc

    def trusted_worker(self, *, module: str = "", extra: Mapping[str, str] = {}) -> Proc:
        """A trusted worker (queue ``results``); ``module`` runs a hooked one."""
        argv = worker_argv("results", "trusted", module=module, concurrency=4)
        proc = self._start(argv, {**self.env, **extra}, "trusted")
        proc.restart = lambda: self.trusted_worker(module=module, extra=extra)
        self.wait_ready(proc)
        return proc

    def beat(self, extra: Mapping[str, str] = {}) -> Proc:
        argv = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "services.worker.celery_app",
            "beat",
            "--loglevel=INFO",
            "-s",
            str(self.logs / f"beat-schedule-{secrets.token_hex(3)}"),
        ]
        proc = self._start(argv, {**self.env, **extra}, "beat")
        proc.restart = lambda: self.beat(extra)
        wait_for(lambda: "beat: Starting" in proc.text(), 30, "celery beat", proc.log)
        return proc

    def wait_ready(self, proc: Proc, timeout: float = 40) -> None:
        wait_for(lambda: " ready." in proc.text(), timeout, "celery worker", proc.log)

    def close(self) -> None:
        for proc in reversed(self.procs):
            proc.stop()

    def tracebacks(self) -> list[str]:
        return [p.log.name for p in self.procs if "Traceback" in p.text()]


@contextlib.contextmanager
def stack(env: dict[str, str], logs: Path) -> Iterator[Stack]:
    logs.mkdir(parents=True, exist_ok=True)
    running = Stack(env, logs)
    try:
        yield running
    finally:
        running.close()


def pool_children(proc: Proc) -> list[int]:
    """The prefork pool's processes under a worker."""
    return sorted(descendants(proc.pid))


# --- bots ----------------------------------------------------------------------------------


@dataclass
class SlowBots:
    """SDK bot servers on 127.0.0.1 that take ``delay_s`` per decision; ``acts`` counts them,
    ``dealt`` keeps the cards each seat held when first asked in each hand, by (game id, hand,
    seat)."""

    servers: list[BotServer] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)
    acts: int = 0
    hurried: bool = False
    """Set once what needed slow bots has happened (a kill mid-match): from then on every bot
    answers at once, so what is played after (the recovery) takes no longer than it must."""
    dealt: dict[tuple[str, int, int], tuple[str, ...]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, strategy: str, delay_s: float, seed: int) -> BotServer:
        decide = strategy_decider(strategy, seed)

        def slow(request: ActRequest) -> Action:
            seen = request.observation
            with self._lock:
                self.acts += 1
                key = (request.game_id, seen.hand, seen.seat)
                self.dealt.setdefault(key, tuple(sorted(str(c) for c in seen.cards)))
            if delay_s and not self.hurried:
                time.sleep(delay_s)
            return decide(request)

        secret = generate_secret()
        server = BotServer(
            slow, name=f"{strategy}-{secrets.token_hex(2)}", secret=secret, host="127.0.0.1"
        )
        server.start()
        self.servers.append(server)
        self.secrets.append(secret)
        return server

    def stop(self) -> None:
        for server in self.servers:
            server.stop()


async def register(pool: asyncpg.Pool, bots: SlowBots) -> list[int]:
    owner = await make_account(pool)
    return [
        await make_bot(pool, owner, server.url, secret)
        for server, secret in zip(bots.servers, bots.secrets, strict=True)
    ]


async def swiss_event(
    pool: asyncpg.Pool,
    bots: SlowBots,
    *,
    name: str,
    rounds: int,
    games_per_match: int = flow.TournamentSettings().games_per_match,
) -> tuple[int, list[int]]:
    """Register the bots and create a Swiss to 15 points with them entered: (its id, the bot
    ids). Not started: the test starts it once its workers run."""
    bot_ids = await register(pool, bots)
    owner = await pool.fetchval("SELECT owner_id FROM bots WHERE id = $1", bot_ids[0])
    tournament = await flow.create_tournament(
        pool,
        organiser_id=owner,
        name=name,
        format="swiss",
        mode="1v1",
        settings=flow.TournamentSettings(
            rules=Rules(points_to_win=15), rounds=rounds, games_per_match=games_per_match
        ),
    )
    for bot_id in bot_ids:
        await flow.enter_tournament(pool, tournament.id, bot_id)
    return tournament.id, bot_ids


# --- waiting and checking ------------------------------------------------------------------


async def wait_db(
    pool: asyncpg.Pool, query: str, *args: Any, timeout: float = 60, logs: Stack | None = None
) -> None:
    deadline = time.monotonic() + timeout
    while not await pool.fetchval(query, *args):
        if time.monotonic() > deadline:
            tail = ""
            if logs is not None:
                tail = "\n".join(f"--- {p.log.name}\n{p.text()[-2500:]}" for p in logs.procs)
            open_rows = await pool.fetch(
                "SELECT id, status, attempts, created_at, queued_at, started_at, now() AS now "
                "FROM matches WHERE status NOT IN ('done', 'forfeit') ORDER BY id DESC LIMIT 20"
            )
            rows = "\n".join(str(dict(row)) for row in open_rows)
            raise AssertionError(
                f"timed out ({timeout}s) waiting for: {query} {args}\n{rows}\n{tail}"
            )
        await asyncio.sleep(0.1)


async def wait_until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within {timeout}s"
        await asyncio.sleep(0.02)


async def stored_once(pool: asyncpg.Pool, match_ids: list[int]) -> dict[str, int]:
    """Every match has exactly one result; every rated, played match moved Elo exactly once
    (two rating_history rows, one per bot), or not at all if it was a forfeit on a timeout
    that fair play spared. Returns the counts."""
    rows = await pool.fetch(
        "SELECT m.id, m.status, m.rated, m.bye, "
        "(SELECT count(*) FROM match_results r WHERE r.match_id = m.id) AS results, "
        "(SELECT count(*) FROM rating_history h WHERE h.match_id = m.id) AS history, "
        "(SELECT count(*) FROM replays p WHERE p.match_id = m.id) AS replays, "
        "(SELECT r.result->>'reason' = 'forfeit' AND r.result->'causes' @> $2::jsonb "
        "FROM match_results r WHERE r.match_id = m.id) AS timed_out "
        "FROM matches m WHERE m.id = ANY($1::bigint[]) ORDER BY m.id",
        match_ids,
        '[{"kind": "timeout"}]',
    )
    assert len(rows) == len(match_ids)
    for row in rows:
        assert row["status"] in ("done", "forfeit"), dict(row)
        if row["bye"]:
            continue
        assert row["results"] == 1, dict(row)
        assert row["replays"] == 1, dict(row)
        if row["rated"] and row["timed_out"]:
            # a forfeit on a timeout may be spared (services/flow/fair_play.py: the bot was
            # entered by another): on a loaded machine a bot can miss its deadline after a kill
            assert row["history"] in (0, 2), dict(row)
        else:
            assert row["history"] == (2 if row["rated"] else 0), dict(row)
    return {
        "matches": len(rows),
        "results": sum(int(r["results"]) for r in rows),
        "rating_history": sum(int(r["history"]) for r in rows),
    }


async def ratings_consistent(pool: asyncpg.Pool, bot_ids: list[int]) -> None:
    """Each bot's rated match count equals its rating_history rows (Elo moved once per match)."""
    rows = await pool.fetch(
        "SELECT r.bot_id, r.matches, "
        "(SELECT count(*) FROM rating_history h WHERE h.bot_id = r.bot_id AND h.mode = r.mode) "
        "AS history FROM ratings r WHERE r.bot_id = ANY($1::bigint[]) AND r.mode = '1v1'",
        bot_ids,
    )
    assert len(rows) == len(bot_ids), rows  # every bot played rated matches
    for row in rows:
        assert row["matches"] > 0 and row["matches"] == row["history"], dict(row)


def use_sender(monkeypatch: Any, env: Mapping[str, str]) -> WorkerApp:
    """This test process sends with the test's broker settings and master key."""
    sender = sender_for(env)
    monkeypatch.setattr(senders, "current_app", lambda: sender)
    return sender
