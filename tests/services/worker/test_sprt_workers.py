"""SPRT tests end to end: the API served by uvicorn, a real Celery worker on Redis, real SDK
bots on 127.0.0.1. A strong bot against a random one accepts H1, with the API's counts equal
to the stored matches and no rating moved; a cancelled test starts no more pairs and stores
none of those in play."""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from tests.services.worker.processes import api_process, celery_worker, wait_for_row

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@contextmanager
def served_stack(env: dict[str, str], tmp_path: Path) -> Iterator[httpx.Client]:
    """The API (uvicorn) and one Celery worker on the test's database and Redis."""
    with (
        celery_worker(env, tmp_path / "worker.log"),
        api_process(env, tmp_path / "api.log") as url,
        httpx.Client(base_url=url, timeout=10, trust_env=False) as client,
    ):
        yield client


def _account(client: httpx.Client, servers: list[Any]) -> tuple[dict[str, str], list[int]]:
    account = client.post("/v1/accounts", json={"name": f"sprt-{secrets.token_hex(3)}"})
    assert account.status_code == 201, account.text
    auth = {"authorization": f"Bearer {account.json()['api_key']}"}
    ids = []
    for server in servers:
        created = client.post(
            "/v1/bots",
            json={"name": f"sprt-{secrets.token_hex(3)}", "url": server.url},
            headers=auth,
        )
        assert created.status_code == 201, created.text
        ids.append(int(created.json()["id"]))
    return auth, ids


def _wait_test(client: httpx.Client, test_id: int, until: Any, timeout: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = client.get(f"/v1/tests/{test_id}").json()
        if until(body):
            return body
        assert time.monotonic() < deadline, f"test {test_id} stuck: {body}"
        time.sleep(0.2)


async def _pairs(pool: asyncpg.Pool, test_id: int) -> list[asyncpg.Record]:
    return await pool.fetch(
        "SELECT m.id, m.status, m.rated, mr.result FROM matches m "
        "LEFT JOIN match_results mr ON mr.match_id = m.id WHERE m.sprt_test_id = $1 "
        "ORDER BY m.id",
        test_id,
    )


async def test_strong_against_random_accepts_h1_through_the_workers(
    pool: asyncpg.Pool, stack_env: dict[str, str], bot_server_factory: Any, tmp_path: Path
) -> None:
    servers = [bot_server_factory("heuristic"), bot_server_factory("random")]
    with served_stack(stack_env, tmp_path) as client:
        auth, (strong, weak) = _account(client, servers)
        created = client.post(
            "/v1/tests",
            json={"bot_a": strong, "bot_b": weak, "elo0": 0, "elo1": 50, "points": 15},
            headers=auth,
        )
        assert created.status_code == 202, created.text
        test_id = created.json()["test_id"]
        body = _wait_test(client, test_id, lambda b: b["status"] != "running", 180)
        ratings = [client.get(f"/v1/bots/{b}").json()["rating"]["1v1"] for b in (strong, weak)]
        page = client.get(f"/tests/{test_id}")
    assert body["status"] == "finished" and body["result"] == "H1", body
    assert body["llr"] >= body["bounds"][1]
    pairs = await _pairs(pool, test_id)
    done = [p for p in pairs if p["status"] == "done"]
    assert {p["status"] for p in pairs} <= {"done", "cancelled"}  # nothing left in play
    assert not any(p["rated"] for p in pairs)
    won = [p["result"]["games_won"][0] for p in done]
    assert body["games"] == 2 * len(done) and body["wins"] == sum(won)
    assert body["pairs"] == {"0-2": won.count(0), "1-1": won.count(1), "2-0": won.count(2)}
    # the default statistic: each pair's games won minus bot A's luck in them (docs/luck.md)
    assert body["statistic"] == "adjusted" and body["adjusted_score"] > 0.6
    stored = await pool.fetchval("SELECT adjusted FROM sprt_tests WHERE id = $1", test_id)
    luck = [p["result"]["luck"]["win"] for p in done]  # in the order of ``won``
    expected = sorted((w - g) / 2 for w, g in zip(won, luck, strict=True))
    assert sorted(stored) == pytest.approx(expected, abs=1e-9)  # stored in the order results came
    assert ratings == [1500.0, 1500.0]  # unrated
    assert page.status_code == 200 and "H1 accepted" in page.text


async def test_cancel_stops_dispatching(
    pool: asyncpg.Pool, stack_env: dict[str, str], bot_server_factory: Any, tmp_path: Path
) -> None:
    servers = [bot_server_factory("random", seed=1), bot_server_factory("random", seed=2)]
    with served_stack(stack_env, tmp_path) as client:
        auth, (a, b) = _account(client, servers)
        # two copies of one strength with tight hypotheses: thousands of games to decide
        created = client.post(
            "/v1/tests",
            json={"bot_a": a, "bot_b": b, "elo0": 0, "elo1": 5, "points": 15, "concurrency": 2},
            headers=auth,
        )
        assert created.status_code == 202, created.text
        test_id = created.json()["test_id"]
        _wait_test(client, test_id, lambda body: body["games"] >= 4, 120)
        cancelled = client.post(f"/v1/tests/{test_id}/cancel", headers=auth)
        assert cancelled.status_code == 200, cancelled.text
        at_cancel = cancelled.json()
        before = await _pairs(pool, test_id)
        # the pairs in play end on the worker (stopped, or their results refused): each pair
        # is decided and none is stopping; a new pair would come from one of those endings
        await wait_for_row(
            pool,
            "SELECT bool_and(status IN ('done', 'cancelled') AND stopping_since IS NULL) "
            "FROM matches WHERE sprt_test_id = $1",
            test_id,
            timeout=120,
        )
        after = client.get(f"/v1/tests/{test_id}").json()
    assert at_cancel["status"] == after["status"] == "cancelled"
    assert after["games"] == at_cancel["games"] and after["pairs"] == at_cancel["pairs"]
    pairs = await _pairs(pool, test_id)
    assert [p["id"] for p in pairs] == [p["id"] for p in before]  # no new pair after cancel
    assert {p["status"] for p in pairs} <= {"done", "cancelled"}
    assert sum(p["status"] == "done" for p in pairs) * 2 == after["games"]
    assert all(p["result"] is None for p in pairs if p["status"] == "cancelled")
