"""What the metrics cost: one ``GET /metrics`` of the API, and the counting on every request.

The API's app (``services.api.app.create_api``, no database needed for these two routes) is
called in process through httpx's ASGI transport, in two fresh interpreters, one per mode of
the Prometheus client: ``memory`` (one process, the default registry) and ``files``
(``PROMETHEUS_MULTIPROC_DIR``: memory-mapped files that the scrape reads and adds up, as a
prefork pool or several uvicorn workers need). Before timing, the series a busy platform has
are made: every route template of the app x its methods x four statuses in the request
counter and latency histogram, every bot-call outcome, fault kind and stage, budget, queue.

Figures per mode (CPU time of the process, medians of the rounds): the size of the
``/metrics`` answer and its series; microseconds per ``GET /metrics`` against ``GET /health/live`` (the cheapest route) in the same run, so the
difference is the scrape's own cost; and the counting's cost on every request: ``GET
/health/live`` with the request observer (counter, histogram, request id) against the same
app without it, alternated in rounds. Text lines, then one JSON line.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from bench.smoke import env_size, size

ROUNDS = size(15, 2)
CALLS = int(env_size("BENCH_METRICS_CALLS", "200", "20"))
STATUSES = ("200", "201", "404", "422")


def _populate(app: Any) -> int:
    from arena.wire.faults import FAULT_KINDS
    from services.metrics import catalog

    routes = 0
    for route in app.routes:
        for method in getattr(route, "methods", ()) or ("GET",):
            if method in ("HEAD", "OPTIONS"):
                continue
            routes += 1
            for status in STATUSES:
                catalog.HTTP_REQUESTS.labels(method, route.path, status).inc()
            catalog.HTTP_DURATION.labels(method, route.path).observe(0.004)
    for outcome in ("ok", *FAULT_KINDS):
        catalog.BOT_CALLS.labels(outcome).inc()
    for result in ("ok", "fault"):
        catalog.BOT_CALL_DURATION.labels(result).observe(0.1)
    for kind in FAULT_KINDS:
        for stage in ("act", "walkover", "forfeit"):
            catalog.FAULTS.labels(kind, stage).inc()
    for budget in ("requests", "accounts", "auth_failures", "address", "health", "pages"):
        catalog.RATE_LIMIT_REFUSALS.labels(budget).inc()
    for result in ("hit", "miss"):
        catalog.PAGE_CACHE.labels(result).inc()
    return routes


async def _time(client: Any, path: str, calls: int) -> float:
    """Microseconds of this process's CPU per call (the CPU, not the wall clock: on a loaded
    machine the wall clock counts the time other processes had the cores)."""
    started = time.process_time()
    for _ in range(calls):
        response = await client.get(path)
        assert response.status_code == 200, response.text
    return (time.process_time() - started) / calls * 1e6


async def _measure() -> dict[str, Any]:
    import httpx

    from services.api.app import create_api
    from services.api.ops.http_observer import HttpObserver
    from services.base.config import RateLimits, Secret, SecretSettings, Settings

    settings = Settings(
        secrets=SecretSettings(key=Secret("b" * 48)),
        rate_limits=RateLimits(enabled=False),  # the counting is measured, not the budgets
    )
    app = create_api(settings)
    routes = _populate(app)
    observed = app.asgi_handler
    assert isinstance(observed, HttpObserver)
    bare = observed.app
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
        text = (await client.get("/metrics")).text
        scrape, live, with_obs, without_obs = [], [], [], []
        for _ in range(ROUNDS):
            scrape.append(await _time(client, "/metrics", CALLS // 10))
            live.append(await _time(client, "/health/live", CALLS))
            app.asgi_handler = bare
            without_obs.append(await _time(client, "/health/live", CALLS))
            app.asgi_handler = observed
            with_obs.append(await _time(client, "/health/live", CALLS))
    series = sum(1 for line in text.splitlines() if line and not line.startswith("#"))
    return {
        "routes": routes,
        "series": series,
        "bytes": len(text.encode()),
        "scrape_us": round(statistics.median(scrape)),
        "health_live_us": round(statistics.median(live)),
        "per_request_with_us": round(statistics.median(with_obs), 1),
        "per_request_without_us": round(statistics.median(without_obs), 1),
    }


def _child() -> None:
    print(json.dumps(asyncio.run(_measure())))


def _run(mode: str) -> dict[str, Any]:
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    with tempfile.TemporaryDirectory(prefix="bench-metrics-") as folder:
        if mode == "files":
            env["PROMETHEUS_MULTIPROC_DIR"] = folder
        out = subprocess.run(
            [sys.executable, "-m", "bench.metrics", "--child"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    figures: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return figures


def main() -> None:
    results = {mode: _run(mode) for mode in ("memory", "files")}
    for mode, r in results.items():
        overhead = r["per_request_with_us"] - r["per_request_without_us"]
        print(
            f"metrics ({mode}): /metrics {r['bytes'] / 1024:.0f} KiB, {r['series']} series "
            f"({r['routes']} route x method pairs): {r['scrape_us'] / 1000:.2f} ms a scrape "
            f"against {r['health_live_us']} us for GET /health/live; counting a request: "
            f"{r['per_request_with_us']} us with the observer, {r['per_request_without_us']} "
            f"us without (+{overhead:.1f} us)"
        )
    print(json.dumps({"bench": "metrics", **results}))


if __name__ == "__main__":
    if sys.argv[1:] == ["--child"]:
        _child()
    else:
        main()
