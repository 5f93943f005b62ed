"""Real processes: a Celery worker subprocess on the machine's Redis (a key prefix of this
run), the run's test database, SDK bots on 127.0.0.1; and the end-to-end tournament with the
API served by uvicorn."""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from services.worker import senders
from tests.services.worker.fixtures import BOX, rated_challenge
from tests.services.worker.processes import (
    api_process,
    celery_worker,
    wait_for,
    wait_for_row,
)

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


async def test_real_worker_stores_a_match_once_even_when_it_runs_twice(
    pool: asyncpg.Pool, stack_env: dict[str, str], bot_server_factory: Any, tmp_path: Path
) -> None:
    from services import flow

    match_id, bots, _ = await rated_challenge(pool, bot_server_factory)
    log = tmp_path / "worker.log"
    with celery_worker(stack_env, log):
        specs = await flow.match_specs(pool, [match_id], secret_box=BOX)
        senders.send_orders(specs)
        senders.send_orders(specs)  # the same match twice: a redelivery, a double click
        await wait_for_row(pool, "SELECT status = 'done' FROM matches WHERE id = $1", match_id)
        wait_for(
            lambda: log.read_text().count("truco.store_result") >= 4,  # 2 received, 2 done
            30,
            "both results handed back",
            log,
        )
    text = log.read_text()
    assert text.count("Task truco.play_match") == 4  # two received, two succeeded
    assert "Traceback" not in text
    assert "garbage collector:" in text  # it calls bots: tuned when ready (matches/boot.py)
    # no line per bot call (httpx logs each request at INFO): the log grows per task, not per
    # HTTP request (two matches make hundreds of calls)
    assert "HTTP Request" not in text
    assert len(text.splitlines()) < 80, text[-3000:]
    assert (
        await pool.fetchval("SELECT count(*) FROM match_results WHERE match_id = $1", match_id) == 1
    )
    counts = await pool.fetch(
        "SELECT matches FROM ratings WHERE mode = '1v1' AND bot_id = ANY($1)", bots
    )
    assert [row["matches"] for row in counts] == [1, 1]


async def test_end_to_end_swiss_through_api_and_workers(
    pool: asyncpg.Pool, stack_env: dict[str, str], bot_server_factory: Any, tmp_path: Path
) -> None:
    """Real API (uvicorn), real workers, real local bots: a 4-bot Swiss runs to the end."""
    from services import flow

    servers = [bot_server_factory("heuristic" if i == 0 else "random") for i in range(4)]
    with (
        celery_worker(stack_env, tmp_path / "worker.log"),
        api_process(stack_env, tmp_path / "api.log") as api_url,
        httpx.Client(base_url=api_url, timeout=10, trust_env=False) as client,
    ):
        account = client.post("/v1/accounts", json={"name": f"e2e-{secrets.token_hex(3)}"})
        assert account.status_code == 201, account.text
        auth = {"authorization": f"Bearer {account.json()['api_key']}"}
        bot_ids = []
        for i, server in enumerate(servers):
            created = client.post(
                "/v1/bots",
                json={"name": f"e2e-{i}-{secrets.token_hex(3)}", "url": server.url},
                headers=auth,
            )
            assert created.status_code == 201, created.text
            bot_ids.append(created.json()["id"])
        before = _ratings(client, bot_ids)
        assert set(before.values()) == {1500.0}

        began = time.monotonic()
        tournament_id = _start_swiss(client, auth, bot_ids)
        await wait_for_row(
            pool,
            "SELECT status = 'finished' FROM tournaments WHERE id = $1",
            tournament_id,
            timeout=90,
        )
        elapsed = time.monotonic() - began
        after = _ratings(client, bot_ids)
    matches = await pool.fetch("SELECT status FROM matches WHERE tournament_id = $1", tournament_id)
    assert len(matches) == 6 and {m["status"] for m in matches} == {"done"}
    assert after != before and sum(after.values()) == pytest.approx(4 * 1500)
    print(f"\n4-bot Swiss, 6 matches through API + worker: {elapsed:.2f}s")
    assert flow is not None


def _ratings(client: httpx.Client, bot_ids: list[int]) -> dict[int, float]:
    board = client.get("/v1/leaderboards/1v1")
    if board.status_code == 200:
        entries = {e["bot_id"]: float(e["rating"]) for e in board.json()["entries"]}
        if set(bot_ids) <= set(entries):
            return {bot_id: entries[bot_id] for bot_id in bot_ids}
    return {b: float(client.get(f"/v1/bots/{b}").json()["rating"]["1v1"]) for b in bot_ids}


def _start_swiss(client: httpx.Client, auth: dict[str, str], bot_ids: list[int]) -> int:
    """Create, enter and start a Swiss through the API's tournament endpoints."""
    body = {
        "name": "e2e swiss",
        "format": "swiss",
        "mode": "1v1",
        "games_per_match": 2,
        "rules": {"points_to_win": 15},
    }
    created = client.post("/v1/tournaments", json=body, headers=auth)
    assert created.status_code == 201, created.text
    tournament_id = int(created.json()["id"])
    for bot_id in bot_ids:
        entry = client.post(
            f"/v1/tournaments/{tournament_id}/entries", json={"bot_id": bot_id}, headers=auth
        )
        assert entry.status_code == 201, entry.text
    started = client.post(f"/v1/tournaments/{tournament_id}/start", headers=auth)
    assert started.status_code == 202, started.text
    return tournament_id


async def test_health_checks_see_broker_and_worker(
    stack_env: dict[str, str], tmp_path: Path
) -> None:
    from services.worker.checks import check_broker, check_workers

    await check_broker(None)
    with pytest.raises(RuntimeError, match="no Celery worker"):
        await check_workers(None)
    with celery_worker(stack_env, tmp_path / "worker.log", queues="results"):
        await check_workers(None)
