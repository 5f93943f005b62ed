"""Abuse finding 3: ``/health`` under a burst. 100 concurrent requests to the API served by
uvicorn, on a healthy platform (the run's PostgreSQL, real Redis, a real Celery worker), all
answer 200, and the checks behind them run once, not once per request."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import httpx
import pytest

from services.api.routes.health import OK_TTL_S
from tests.services.worker.processes import (
    celery_worker,
    free_port,
    poll_get,
    start,
    stop,
    wait_for,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow]
BURST = 100


async def test_a_hundred_concurrent_health_requests_all_answer_200(
    stack_env: dict[str, str], tmp_path: Path
) -> None:
    port = free_port()
    api_log = tmp_path / "api.log"
    argv = [sys.executable, "-m", "uvicorn", "--factory", "services.launch.app:app_from_env"]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--no-access-log"]
    api = start(argv, {**stack_env, "PORT": str(port)}, api_log)
    base = f"http://127.0.0.1:{port}"
    try:
        with celery_worker(stack_env, tmp_path / "worker.log"):

            def ready() -> bool:
                try:
                    return poll_get(f"{base}/health").is_success
                except httpx.TransportError:
                    return False

            wait_for(ready, 60, "the API and the worker", api_log)
            await asyncio.sleep(OK_TTL_S + 0.5)  # let the cached outcomes expire: a cold burst
            limits = httpx.Limits(max_connections=BURST, max_keepalive_connections=BURST)
            async with httpx.AsyncClient(
                base_url=base, timeout=30, trust_env=False, limits=limits
            ) as client:
                answers = await asyncio.gather(*(client.get("/health") for _ in range(BURST)))
                again = await client.get("/health")
                live = await client.get("/health/live")
    finally:
        stop(api)
    statuses = [r.status_code for r in answers]
    assert statuses == [200] * BURST, (
        f"{statuses.count(200)} x 200; {[r.text for r in answers if r.status_code != 200][:3]}"
    )
    assert all(r.json()["workers"] == "ok" for r in answers)
    assert again.status_code == 200
    assert live.status_code == 200 and live.json() == {"status": "ok"}
    log = api_log.read_text()
    # at most one ping broadcast per window, whatever the burst: no check failed or timed out
    assert "health check" not in log, log[-2000:]
