"""A thousand matches at once in ONE bot-calling worker process, against bots answering in 100 ms.

Issue 14, goal 2. What runs, all real and on 127.0.0.1:

- one bot server (:mod:`bench.tinybot` with ``--delay-ms 100``: one asyncio process, one port,
  a base URL per bot: ``/b/0``, ``/b/1``, ...), each answer held 100 ms by a timer (5 ms in the
  smoke run);
- one bot-calling Celery worker process (``-Q matches``, threads pool, concurrency = the
  number of matches), as production runs it: no database, Redis as broker, the live feed on;
- this process sends ``truco.play_match`` messages straight to the ``matches`` queue (as the
  trusted worker would) and reads what the worker hands on from the ``results`` queue's Redis
  list (``truco.match_started``, then ``truco.store_result`` with the replay).

Printed: how many match messages the worker held at once (delivered, not acknowledged: kombu's
``unacked`` hash, polled every 0.1 s) and how many played at once (between a match's
``match_started`` and its result), wall time, the longest match (from its ``match_started`` to
its result), the bot call
latency the arena measured (p50/p99/max), faults (every decision with a fault, every failed
start: none is the bots' doing here, so each would be the platform's), the worker's peak
resident memory (``VmHWM``) and CPU seconds, its CPU per bot call, and the bot server's CPU
and how late its 100 ms timers fired (its own latency: near zero shows it was never what held
the calls back).

``BENCH_MATCHES`` (1000), ``BENCH_POINTS`` (15 or 30), ``BENCH_WORKER_ROOT`` (this tree; another
checkout's path runs ITS worker code against the same bench) and ``BENCH_BASELINE_ROOT`` (a
checkout run first, side by side: a before/after in one run) change the run. The worker is
started through :mod:`bench.exit_with_parent`: killed with this process, never left running.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import msgspec
import redis
from kombu.utils import json as kombu_json

from arena.client.signing import generate_secret
from arena.match.replay import Decision, Replay, StartFault
from arena.match.runner import MatchSettings
from bench.platform_procs import own_cpu_s
from bench.smoke import env_size, size
from bench.tinybot import TinyBots
from engine import Rules
from services.base.config import LOCAL_REDIS_URL
from services.base.environment import WORKER_NEEDS, load_settings
from services.domain.match_order import EntrantOrder, MatchOrder
from services.domain.packed_replay import unpack
from services.worker import command
from services.worker.app import WorkerApp
from services.worker.names import MATCHES, PLAY_MATCH, RESULTS, STORE_RESULT

ROOT = Path(__file__).resolve().parents[1]
GUARD = Path(__file__).resolve().with_name("exit_with_parent.py")
"""Starts the worker so that it dies with this process (run by path: any checkout's worker)."""
UNACKED = "unacked"  # kombu's Redis transport: the messages delivered and not acknowledged
DELAY_MS = size(100.0, 5.0)  # the smoke run: short matches
MATCH_STARTED = "truco.match_started"
STALL_S = 120.0


@dataclass
class Seen:
    """What came back on the results queue, with when (monotonic seconds)."""

    started: dict[int, float] = field(default_factory=dict)
    stored: dict[int, float] = field(default_factory=dict)
    replays: dict[int, Replay] = field(default_factory=dict)


def decode_message(raw: bytes) -> tuple[str, list[Any]]:
    """(task name, args) of a Celery message as kombu's Redis transport stores it."""
    envelope = json.loads(raw)
    body = envelope["body"]
    if envelope.get("properties", {}).get("body_encoding") == "base64":
        body = base64.b64decode(body)
    args, _kwargs, _embed = kombu_json.loads(body)  # kombu's JSON: its bytes come back as bytes
    return str(envelope["headers"]["task"]), list(args)


def read_results(
    client: redis.Redis, key: str, seen: Seen, expect: int, stop: threading.Event
) -> None:
    """Pop the results queue until ``expect`` results are in, ``stop`` is set, or nothing came
    for :data:`STALL_S` (a worker that broke: the figures then show what is missing)."""
    last = time.monotonic()
    while len(seen.stored) < expect and not stop.is_set():
        popped = cast(tuple[bytes, bytes] | None, client.brpop([key], timeout=1))
        if popped is None:
            if time.monotonic() - last > STALL_S:
                return
            continue
        last = time.monotonic()
        name, args = decode_message(popped[1])
        now = time.monotonic()
        if name == MATCH_STARTED:
            seen.started.setdefault(int(args[0]), now)
        elif name == STORE_RESULT:
            match_id = int(args[0])
            seen.stored.setdefault(match_id, now)
            seen.replays[match_id] = msgspec.json.decode(unpack(args[1]), type=Replay)


def watch_held(client: redis.Redis, key: str, held: list[int], stop: threading.Event) -> None:
    """Append, every 0.1 s until ``stop``, how many match messages the worker holds: delivered
    to it and not acknowledged (kombu's ``unacked`` hash)."""
    while not stop.wait(0.1):
        held.append(cast(int, client.hlen(key)))


def messages(count: int, base_url: str, points: int) -> list[MatchOrder]:
    rules = msgspec.convert({"points_to_win": points}, Rules)  # 15 or 30, else it says so
    settings = MatchSettings(rules=rules, games_per_match=1)
    secret = generate_secret()
    return [
        MatchOrder(
            match_id=k + 1,
            seed=1000 + k,
            settings=settings,
            entrants=[
                EntrantOrder(
                    bot_id=2 * k + side + 1, name=f"b{2 * k + side}", url=url, secret=secret
                )
                for side, url in enumerate((f"{base_url}/b/{2 * k}", f"{base_url}/b/{2 * k + 1}"))
            ],
        )
        for k in range(count)
    ]


def proc_status_mib(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024.0
    return 0.0


def worker_argv(name: str, concurrency: int) -> list[str]:
    return command.worker_argv(
        sys.executable, MATCHES, f"{name}@%h", concurrency, loglevel="WARNING", heartbeat=False
    )


def wait_ready(
    client: redis.Redis, prefix: str, process: subprocess.Popen[bytes], log: Path
) -> None:
    """The worker consumes once its queue's binding is in Redis and it has polled; we wait for
    the bindings key, then a moment."""
    deadline = time.monotonic() + 60
    while not client.exists(f"{prefix}_kombu.binding.{MATCHES}"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(
                f"the worker did not start:\n{log.read_text(errors='replace')[-3000:]}"
            )
        time.sleep(0.2)
    time.sleep(1.0)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] if ordered else 0.0


def run(
    count: int, points: int, worker_root: Path = ROOT, *, redis_url: str = "", prefix: str = ""
) -> dict[str, Any]:
    """Play ``count`` matches to ``points`` in one worker process; the figures (a dict). Every
    Redis key it writes starts with ``prefix`` + a random part, and is deleted at the end."""
    redis_url = redis_url or os.environ.get("REDIS_URL", LOCAL_REDIS_URL)
    prefix = f"{prefix or 'bench-'}conc-{secrets.token_hex(3)}:"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(worker_root),
        "TRUCO_ENV": "local",
        "REDIS_URL": redis_url,
        "TRUCO_REDIS_PREFIX": prefix,
        "PYTHONUNBUFFERED": "1",
    }
    client = redis.Redis.from_url(redis_url)
    sender = WorkerApp("bench-concurrency", settings=load_settings(env, needs=WORKER_NEEDS))
    log = Path(os.environ.get("TMPDIR", "/tmp")) / f"bench-concurrency-{prefix[:-1]}.log"
    seen = Seen()
    held: list[int] = []
    stop = threading.Event()
    with TinyBots(1, delay_ms=DELAY_MS) as bots, log.open("wb") as out:
        worker = subprocess.Popen(
            [sys.executable, str(GUARD), str(os.getpid()), *worker_argv(prefix[:-1], count)],
            env=env,
            cwd=worker_root,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            wait_ready(client, prefix, worker, log)
            cpu0, bot_cpu0 = own_cpu_s(worker.pid), bots.cpu()
            reader = threading.Thread(
                target=read_results, args=(client, f"{prefix}{RESULTS}", seen, count, stop)
            )
            reader.start()
            watcher = threading.Thread(
                target=watch_held, args=(client, f"{prefix}{UNACKED}", held, stop), daemon=True
            )
            watcher.start()
            began = time.monotonic()
            for message in messages(count, bots.urls[0], points):
                body = msgspec.to_builtins(message)
                msgspec.convert(body, MatchOrder)  # the wire shape, checked before sending
                sender.send_task(PLAY_MATCH, args=[body], queue=MATCHES)
            sent_s = time.monotonic() - began
            reader.join(timeout=1800)
            stop.set()
            wall = time.monotonic() - began
            cpu, bot_cpu, lag = own_cpu_s(worker.pid) - cpu0, bots.cpu(), bots.lag()
            rss = proc_status_mib(worker.pid, "VmHWM")
            threads = int(proc_status_mib(worker.pid, "Threads") * 1024)
        finally:
            stop.set()
            worker.terminate()
            try:
                worker.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, 9)
                worker.wait()
            sender.close()
            for key in client.scan_iter(f"{prefix}*"):
                client.delete(key)
    calls = bot_cpu[1] - bot_cpu0[1]
    latencies: list[float] = []
    faults = 0
    kinds: Counter[str] = Counter()
    for replay in seen.replays.values():
        for game in replay.games:
            for event in game.events:
                if isinstance(event, Decision):
                    latencies.append(event.latency_ms)
                    faults += event.fault is not None
                    kinds.update([event.fault] if event.fault else [])
                elif isinstance(event, StartFault):
                    faults += 1
                    kinds.update([f"start:{event.fault}"])
    durations = [seen.stored[m] - seen.started[m] for m in seen.stored if m in seen.started]
    edges = sorted(
        [(t, 1) for t in seen.started.values()] + [(t, -1) for t in seen.stored.values()]
    )
    in_flight = peak = 0
    for _, step in edges:
        in_flight += step
        peak = max(peak, in_flight)
    return {
        "bench": "concurrency",
        "matches": count,
        "results": len(seen.stored),
        "points": points,
        "latency_ms": {
            "p50": round(percentile(latencies, 0.5), 1),
            "p99": round(percentile(latencies, 0.99), 1),
            "max": round(max(latencies, default=0.0), 1),
        },
        "faults": faults,
        "fault_kinds": dict(kinds),
        "rss_mib": round(rss, 1),
        "threads": threads,
        "wall_s": round(wall, 1),
        "send_s": round(sent_s, 2),
        "peak_held": max(held, default=0),
        "peak_in_flight": peak,
        "all_started_s": round(max(seen.started.values(), default=began) - began, 1),
        "longest_match_s": round(max(durations, default=0.0), 1),
        "median_match_s": round(statistics.median(durations), 1) if durations else 0.0,
        "calls": calls,
        "worker_cpu_s": round(cpu, 2),
        "worker_us_per_call": round(cpu / calls * 1e6, 1) if calls else None,
        "bots_cpu_s": round(bot_cpu[0] - bot_cpu0[0], 2),
        "bots_lag_ms": {"p50": lag[0], "p99": lag[1], "max": lag[2]},
        "worker_root": str(worker_root),
    }


def report(result: dict[str, Any], label: str) -> None:
    lat = result["latency_ms"]
    print(
        f"{label}: {result['results']}/{result['matches']} matches to {result['points']} in "
        f"one worker process: {result['wall_s']} s wall, longest match "
        f"{result['longest_match_s']} s (median {result['median_match_s']} s); bot calls "
        f"{result['calls']}, latency p50 {lat['p50']} / p99 {lat['p99']} / max {lat['max']} ms "
        f"(bots hold {DELAY_MS:g} ms); faults {result['faults']}; "
        f"at most {result['peak_held']} matches "
        f"held (received, unacknowledged) and {result['peak_in_flight']} playing at once, all "
        f"started within {result['all_started_s']} s"
    )
    print(
        f"{label} worker: peak RSS {result['rss_mib']} MiB, {result['threads']} threads, "
        f"{result['worker_cpu_s']} CPU s = {result['worker_us_per_call']} us per call; "
        f"bot server: {result['bots_cpu_s']} CPU s, timers late p99 "
        f"{result['bots_lag_ms']['p99']} ms (max {result['bots_lag_ms']['max']})"
    )
    print(json.dumps(result))


def main() -> None:
    """The run; with ``BENCH_BASELINE_ROOT`` (another checkout, e.g. of the commit before the
    change), that checkout's worker first, then this one: side by side in one run."""
    count = int(env_size("BENCH_MATCHES", "1000", "4"))
    points = int(env_size("BENCH_POINTS", "15", "15"))
    baseline = os.environ.get("BENCH_BASELINE_ROOT", "")
    if baseline:
        report(run(count, points, Path(baseline).resolve()), "baseline")
    root = Path(os.environ.get("BENCH_WORKER_ROOT", str(ROOT))).resolve()
    report(run(count, points, root), "this tree" if root == ROOT else str(root))


if __name__ == "__main__":
    main()
