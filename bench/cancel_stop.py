"""From a decision to the last bot call: a match decided while it is played (issue 21, item 6).

What runs, all on 127.0.0.1 and all real: PostgreSQL (a database of this run's own, migrated,
dropped at the end), Redis (``REDIS_URL``, keys under a prefix of this run's own), the API
(uvicorn), one Celery worker on both queues, and two bots in this process (the SDK's
``BotServer``, random play, answering in ``BENCH_ANSWER_MS``, 20 ms) that note when each
``/act`` came. Through the API: an account, the two bots, a Swiss of one match (30 games to
30 points), started; once the bots have been called ``BENCH_CALLS_BEFORE`` (30) times the
match is decided: the tournament cancelled, or one bot deleted (its withdrawal forfeits the
match). Then the API is polled until no bot call came for 5 s (1 s in the smoke run).

Figures per way of deciding: seconds from the decision to the last bot call, calls after the
decision, and seconds until the seed that derives the match's cards (the tournament's master
seed after a cancel, the match's seed after a withdrawal) was first served.
``BENCH_BASELINE_ROOT=<checkout>`` runs that checkout's platform first, the same way (a
before/after in one run). Text lines, then one JSON line per run.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from arena.client.connection import Choice
from arena.sdk import BotServer, strategy_decider
from arena.wire.protocol import ActRequest
from bench.platform_procs import Procs
from bench.platform_run import ROOT, platform_run
from bench.serve import start_api
from bench.smoke import env_size, size

QUIET_S = size(5.0, 1.0)  # no bot call for this long: the match has stopped calling
WAYS = ("cancel", "delete")


class CountingBot:
    """A random bot that notes when each ``/act`` came."""

    def __init__(self, seed: int, answer_s: float) -> None:
        self.calls: list[float] = []
        self.answer_s = answer_s
        self._lock = threading.Lock()
        self._decide = strategy_decider("random", seed)
        self.server = BotServer(self.decide, name=f"count-{seed}", port=0)

    def decide(self, request: ActRequest) -> Choice:
        with self._lock:
            self.calls.append(time.monotonic())
        time.sleep(self.answer_s)
        return self._decide(request)

    def snapshot(self) -> list[float]:
        with self._lock:
            return list(self.calls)


def _served(client: httpx.Client, way: str, tid: int, match_id: int) -> bool:
    if way == "cancel":
        return client.get(f"/v1/tournaments/{tid}").json().get("master_seed") is not None
    return client.get(f"/v1/matches/{match_id}").json().get("seed") is not None


def decide_mid_match(api: str, way: str, calls_before: int, answer_s: float) -> dict[str, Any]:
    bots = [CountingBot(1, answer_s), CountingBot(2, answer_s)]
    for bot in bots:
        bot.server.start()
    try:
        with httpx.Client(base_url=api, timeout=30, trust_env=False) as client:
            account = client.post("/v1/accounts", json={"name": f"b-{secrets.token_hex(4)}"})
            auth = {"authorization": f"Bearer {account.json()['api_key']}"}
            ids = []
            for bot in bots:
                body = {"name": f"b-{secrets.token_hex(4)}", "url": bot.server.url}
                ids.append(client.post("/v1/bots", json=body, headers=auth).json()["id"])
            cup = {
                "name": "bench cancel",
                "format": "swiss",
                "mode": "1v1",
                "games_per_match": 30,
                "rules": {"points_to_win": 30},
            }
            tid = client.post("/v1/tournaments", json=cup, headers=auth).json()["id"]
            for bot_id in ids:
                client.post(f"/v1/tournaments/{tid}/entries", json={"bot_id": bot_id}, headers=auth)
            (match_id,) = client.post(f"/v1/tournaments/{tid}/start", headers=auth).json()["queued"]
            deadline = time.monotonic() + 120
            while sum(len(b.snapshot()) for b in bots) < calls_before:
                if time.monotonic() > deadline:
                    raise RuntimeError("the match never started calling its bots")
                time.sleep(0.02)
            decided = time.monotonic()
            if way == "cancel":
                client.post(f"/v1/tournaments/{tid}/cancel", headers=auth)
            else:
                client.delete(f"/v1/bots/{ids[1]}", headers=auth)
            shown: float | None = None
            while True:
                now = time.monotonic()
                if shown is None and _served(client, way, tid, match_id):
                    shown = now - decided
                calls = [t for b in bots for t in b.snapshot()]
                if now - max(calls) > QUIET_S or now - decided > 600:
                    break
                time.sleep(0.05)
    finally:
        for bot in bots:
            bot.server.stop()
    after = [t for t in calls if t > decided]
    return {
        "way": way,
        "last_call_after_s": round(max(0.0, max(calls) - decided), 2),
        "calls_after": len(after),
        "seed_served_after_s": None if shown is None else round(shown, 2),
    }


def run(root: Path = ROOT) -> list[dict[str, Any]]:
    """Both ways on one fresh platform of ``root``; their figures."""
    answer_s = int(env_size("BENCH_ANSWER_MS", "20", "5")) / 1000
    calls_before = int(env_size("BENCH_CALLS_BEFORE", "30", "6"))
    with platform_run("cancel", root) as platform, Procs(platform.work / "logs", root) as procs:
        procs.celery_worker("worker", "matches,results", 8, platform.env)
        api = start_api(procs, platform.env)
        tree = "this" if root == ROOT else str(root)
        return [
            {"tree": tree, **decide_mid_match(api, way, calls_before, answer_s)} for way in WAYS
        ]


def report(results: list[dict[str, Any]]) -> None:
    for r in results:
        print(
            f"{r['way']:>6}: last bot call {r['last_call_after_s']:.2f} s after the decision, "
            f"{r['calls_after']} calls after it; the seed first served "
            f"{r['seed_served_after_s']} s after it"
        )
    print(json.dumps({"cancel_stop": results}))


def main() -> None:
    baseline = os.environ.get("BENCH_BASELINE_ROOT", "").strip()
    if baseline:
        print(f"baseline: the platform of {baseline}")
        report(run(Path(baseline).resolve()))
        print("this tree:")
    report(run())


if __name__ == "__main__":
    main()
