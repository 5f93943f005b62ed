"""SPRT tests over the API (``/v1/tests``): a strong bot against a random one accepts H1 with
counts that agree with the stored matches, unrated; bad input is a 422 naming the field;
someone else's bot_a is a 403 and someone else's test cannot be cancelled; quotas bound
running tests per account and per opponent bot; a cancelled test starts no more pairs.

``play_api`` plays every pair in this process over real HTTP against SDK bots on 127.0.0.1
(the whole test runs inside the POST); ``idle_api`` leaves the pairs pending."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from arena.sdk import BotServer
from arena.sprt.stats import pairs_if_all_won
from services.base.config import SprtQuota
from tests.services.helpers.api_helpers import NetworkGuard, app_client
from tests.services.helpers.api_play_helpers import NO_LIMITS, PlayApi

pytestmark = pytest.mark.anyio

FAST = {"points": 15, "elo0": 0, "elo1": 50}


QUOTA = SprtQuota(per_account=3, per_bot=1)
"""Not the defaults, so the quota test shows the settings are what the API applies."""


@pytest.fixture
async def quota_api(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[PlayApi]:
    """The app with the quotas of :data:`QUOTA` (``TRUCO_RUNNING_TESTS_PER_*``) and a
    sender that queues nothing: tests stay running."""

    async def hold(pool: asyncpg.Pool, match_ids: list[int]) -> None:
        return None

    fields = {"sprt": QUOTA}
    options = {"sender": hold, "rate_limits": NO_LIMITS}
    async with app_client(
        api_database_url, guard, pool_size=8, settings_fields=fields, **options
    ) as (pool, client):
        yield PlayApi(client, pool, guard)
    guard.assert_loopback_only()


async def _stored_pairs(api: PlayApi, test_id: int) -> list[dict[str, Any]]:
    rows = await api.pool.fetch(
        "SELECT m.id, m.status, m.rated, m.games_per_match, mr.result FROM matches m "
        "LEFT JOIN match_results mr ON mr.match_id = m.id WHERE m.sprt_test_id = $1 "
        "ORDER BY m.id",
        test_id,
    )
    return [dict(row) for row in rows]


async def test_strong_bot_against_random_accepts_h1_and_counts_match_the_stored_matches(
    play_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = play_api
    _, me = await api.account("me")
    _, other = await api.account("other")
    (strong,) = await api.bots(me, bot_servers[:1])
    (weak,) = await api.bots(other, bot_servers[1:2])  # an open bot of another account
    created = await api.client.post(
        "/v1/tests",
        json={"bot_a": strong, "bot_b": weak, "concurrency": 2, "statistic": "raw", **FAST},
        headers=me,
    )
    assert created.status_code == 202, created.text
    test_id = created.json()["test_id"]
    body = (await api.client.get(f"/v1/tests/{test_id}")).json()
    assert body["status"] == "finished" and body["result"] == "H1", body
    assert body["statistic"] == "raw" and body["adjusted_score"] is None
    assert body["llr"] >= body["bounds"][1] and body["bounds"][0] < 0 < body["bounds"][1]
    assert body["elo_interval"][0] <= body["elo"] <= body["elo_interval"][1]
    assert body["elo"] > 50

    pairs = await _stored_pairs(api, test_id)
    done = [p for p in pairs if p["status"] == "done"]
    assert all(p["games_per_match"] == 2 and not p["rated"] for p in pairs)
    # every pair beyond the stored ones was cancelled when the test decided
    assert {p["status"] for p in pairs} <= {"done", "cancelled"}
    won = [p["result"]["games_won"][0] for p in done]
    assert body["games"] == 2 * len(done)
    assert body["wins"] == sum(won) and body["losses"] == 2 * len(done) - sum(won)
    assert body["pairs"] == {"0-2": won.count(0), "1-1": won.count(1), "2-0": won.count(2)}
    # H1 cannot come before the all-won minimum, and the heuristic bot hardly loses a game
    assert len(done) >= pairs_if_all_won(0, 50, 0.05, 0.05)
    assert len(done) <= 3 * pairs_if_all_won(0, 50, 0.05, 0.05)
    assert body["history"][0] == [0, 0.0] and body["history"][-1] == [body["games"], body["llr"]]

    # unrated: neither bot's rating moved, nor was any history written
    history = await api.pool.fetchval(
        "SELECT count(*) FROM rating_history WHERE bot_id = ANY($1)", [strong, weak]
    )
    assert history == 0
    rated = await api.pool.fetch(
        "SELECT rating, matches FROM ratings WHERE bot_id = ANY($1)", [strong, weak]
    )
    assert all(row["rating"] == 1500 and row["matches"] == 0 for row in rated)


async def test_bad_parameters_are_422_naming_the_field(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = idle_api
    _, me = await api.account("me")
    a, b = await api.bots(me, bot_servers[:2])
    cases: list[tuple[dict[str, Any], str]] = [
        ({"elo0": 10, "elo1": 10}, "body.elo1"),
        ({"elo0": 20, "elo1": 5}, "body.elo1"),
        ({"alpha": 0}, "body.alpha"),
        ({"alpha": 0.5, "beta": 0.5}, "body.beta"),
        ({"beta": 2}, "body.beta"),
        ({"max_games": 1}, "body.max_games"),
        ({"max_games": 10**9}, "body.max_games"),
        ({"players": 3}, "body.players"),
        ({"points": 20}, "body.points"),
        ({"concurrency": 0}, "body.concurrency"),
        ({"concurrency": 50}, "body.concurrency"),
        ({"elo1": "lots"}, "body.elo1"),
        ({"rules": {"points_to_win": 15}}, "body.rules.points_to_win"),
        ({"rules": {"falta_envido": "never"}}, "body.rules.falta_envido"),
        ({"rules": {"nope": 1}}, "body.rules.nope"),
        ({"surprise": 1}, "body"),  # the message names the unknown field
    ]
    for fields, field in cases:
        response = await api.client.post(
            "/v1/tests", json={"bot_a": a, "bot_b": b, **fields}, headers=me
        )
        assert response.status_code == 422, (fields, response.text)
        errors = response.json().get("errors") or []
        assert field in [e["field"] for e in errors], (fields, errors)
    same = await api.client.post("/v1/tests", json={"bot_a": a, "bot_b": a}, headers=me)
    assert same.status_code == 409 and same.json()["type"] == "/problems/same-bot"
    assert await api.pool.fetchval("SELECT count(*) FROM sprt_tests WHERE bot_a = $1", a) == 0
    assert await api.pool.fetchval("SELECT count(*) FROM match_entrants WHERE bot_id = $1", a) == 0


async def test_only_your_bot_as_a_and_only_the_owner_cancels(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = idle_api
    _, me = await api.account("me")
    _, other = await api.account("other")
    (mine,) = await api.bots(me, bot_servers[:1])
    theirs, closed = await api.bots(other, bot_servers[1:3])
    forbidden = await api.client.post(
        "/v1/tests", json={"bot_a": theirs, "bot_b": mine}, headers=me
    )
    assert forbidden.status_code == 403, forbidden.text
    missing = await api.client.post("/v1/tests", json={"bot_a": mine, "bot_b": 10**12}, headers=me)
    assert missing.status_code == 404
    anonymous = await api.client.post("/v1/tests", json={"bot_a": mine, "bot_b": theirs})
    assert anonymous.status_code == 401
    patched = await api.client.patch(
        f"/v1/bots/{closed}", json={"challenges": "owner_only"}, headers=other
    )
    assert patched.status_code == 200, patched.text
    refused = await api.client.post("/v1/tests", json={"bot_a": mine, "bot_b": closed}, headers=me)
    assert refused.status_code == 403, refused.text

    created = await api.client.post("/v1/tests", json={"bot_a": mine, "bot_b": theirs}, headers=me)
    assert created.status_code == 202, created.text
    test_id = created.json()["test_id"]
    stolen = await api.client.post(f"/v1/tests/{test_id}/cancel", headers=other)
    assert stolen.status_code == 403, stolen.text
    assert (await api.client.get(f"/v1/tests/{test_id}")).json()["status"] == "running"
    nothing = await api.client.post("/v1/tests/999999/cancel", headers=me)
    assert nothing.status_code == 404
    assert (await api.client.get("/v1/tests/999999")).status_code == 404


async def test_cancel_stops_the_pairs_and_starts_no_more(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    from services import flow

    api = idle_api
    _, me = await api.account("me")
    a, b = await api.bots(me, bot_servers[:2])
    created = await api.client.post(
        "/v1/tests", json={"bot_a": a, "bot_b": b, "concurrency": 3}, headers=me
    )
    test_id = created.json()["test_id"]
    pairs = await _stored_pairs(api, test_id)
    assert [p["status"] for p in pairs] == ["pending"] * 3  # concurrency pairs, no more
    cancelled = await api.client.post(f"/v1/tests/{test_id}/cancel", headers=me)
    assert cancelled.status_code == 200, cancelled.text
    assert cancelled.json()["status"] == "cancelled" and cancelled.json()["result"] is None
    assert [p["status"] for p in await _stored_pairs(api, test_id)] == ["cancelled"] * 3
    again = await api.client.post(f"/v1/tests/{test_id}/cancel", headers=me)
    assert again.status_code == 409

    # a pair played anyway (a worker had it already) is not stored and starts nothing
    from arena.match.runner import run_match
    from tests.services.helpers.flow_helpers import BOX, over_http

    match_id = pairs[0]["id"]
    async with api.pool.acquire() as conn:
        await conn.execute("UPDATE matches SET status = 'pending' WHERE id = $1", match_id)
    (spec,) = await flow.match_specs(api.pool, [match_id], secret_box=BOX)
    async with api.pool.acquire() as conn:
        await conn.execute("UPDATE matches SET status = 'cancelled' WHERE id = $1", match_id)
    entrants = [over_http(e, 1) for e in spec.entrants]
    replay = await run_match(str(match_id), spec.seed, spec.settings, entrants)
    assert not (await flow.record_result(api.pool, match_id, replay)).stored
    body = (await api.client.get(f"/v1/tests/{test_id}")).json()
    assert body["games"] == 0 and len(await _stored_pairs(api, test_id)) == 3


async def test_quotas_bound_running_tests_per_account_and_per_opponent_bot(
    quota_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    api = quota_api
    per_account, per_bot = QUOTA.per_account, QUOTA.per_bot
    _, me = await api.account("me")
    a, b = await api.bots(me, bot_servers[:2])

    async def post(headers: dict[str, str], bot_a: int, bot_b: int) -> Any:
        return await api.client.post(
            "/v1/tests", json={"bot_a": bot_a, "bot_b": bot_b}, headers=headers
        )

    # a burst from one account: exactly the quota is admitted
    burst = await asyncio.gather(*(post(me, a, b) for _ in range(per_account + 3)))
    codes = sorted(r.status_code for r in burst)
    assert codes == [202] * per_account + [429] * 3, codes
    refused = next(r for r in burst if r.status_code == 429)
    assert refused.json()["type"] == "/problems/too-many-tests"
    assert int(refused.headers["retry-after"]) > 0

    # many accounts against one open bot: the bot's quota holds
    outcomes = []
    for k in range(per_bot + 2):
        _, someone = await api.account(f"crowd{k}")
        (theirs,) = await api.bots(someone, bot_servers[2 + k % 2 : 3 + k % 2])
        outcomes.append((await post(someone, theirs, a)).status_code)
    assert outcomes == [202] * per_bot + [429] * 2, outcomes

    # finishing (cancelling) one frees a place
    first = next(r for r in burst if r.status_code == 202).json()["test_id"]
    assert (await api.client.post(f"/v1/tests/{first}/cancel", headers=me)).status_code == 200
    assert (await post(me, a, b)).status_code == 202


async def test_results_racing_a_cancel_neither_deadlock_nor_miscount(
    idle_api: PlayApi, bot_servers: list[BotServer]
) -> None:
    """Four pairs' results stored at the same moment as the owner cancels: every call ends
    cleanly, and the test counts exactly its stored matches."""
    from arena.match.runner import run_match
    from services import flow
    from tests.services.helpers.flow_helpers import BOX, over_http

    api = idle_api
    _, me = await api.account("me")
    a, b = await api.bots(me, bot_servers[:2])
    for attempt in range(3):
        created = await api.client.post(
            "/v1/tests",
            json={"bot_a": a, "bot_b": b, "concurrency": 4, "points": 15},
            headers=me,
        )
        assert created.status_code == 202, created.text
        test_id = created.json()["test_id"]
        ids = [p["id"] for p in await _stored_pairs(api, test_id)]
        specs = await flow.match_specs(api.pool, ids, secret_box=BOX)
        replays = [
            await run_match(
                str(s.match_id),
                s.seed,
                s.settings,
                [over_http(e, k) for k, e in enumerate(s.entrants)],
            )
            for s in specs
        ]
        results = await asyncio.gather(
            *(
                flow.record_result(api.pool, s.match_id, r)
                for s, r in zip(specs, replays, strict=True)
            ),
            api.client.post(f"/v1/tests/{test_id}/cancel", headers=me),
        )
        assert results[-1].status_code == 200, (attempt, results[-1].text)
        body = (await api.client.get(f"/v1/tests/{test_id}")).json()
        assert body["status"] == "cancelled"
        pairs = await _stored_pairs(api, test_id)
        done = [p for p in pairs if p["status"] == "done"]
        assert body["games"] == 2 * len(done)
        assert body["wins"] == sum(p["result"]["games_won"][0] for p in done)
        assert {p["status"] for p in pairs} <= {"done", "cancelled"}
