"""The ladder's collusion flags as an admin meets them (docs/moderation.md "Collusion flags"),
end to end against the served API and its database: two accomplice accounts concede to a
target on the 1v1 ladder (tests/services/flow/test_ladder_collusion.py's game) until the
detector flags it; the admin lists the flags with their evidence through the API and
`truco admin flags --json`, annuls them (one through the command line, one through the API),
and the ladder is rated without those matches (Elo at once, the fit at its next run); the
audit log and the target's public page show the action; a decided flag is a 409, an unknown
one a 404, and a non-admin is refused (403 problems) on every flag operation, nothing
changed."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from services.db import ladder_flags as db_flags
from services.db.pool import create_pool
from services.domain import side_result
from services.domain.ratings import RatedMatch, compute_ratings
from services.worker.results.fit import refit
from tests.cli.conftest import Truco, unique
from tests.services.api.test_admin_api import rated_games
from tests.services.flow.test_ladder_collusion import Pool, fitted, met, play


def _account(url: str) -> tuple[int, str, str]:
    name = unique("user")
    made = httpx.post(f"{url}/v1/accounts", json={"name": name}, timeout=10).json()
    return int(made["id"]), name, str(made["api_key"])


def _run(database_url: str, work: Any) -> Any:
    async def go() -> Any:
        pool = await create_pool(database_url, min_size=1, max_size=6)
        try:
            return await work(pool)
        finally:
            await pool.close()

    return asyncio.run(go())


def test_an_admin_lists_annuls_and_dismisses_collusion_flags(
    truco: Truco, platform_url: str, api_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    game: Pool
    game, before = _run(api_database_url, _colluded)
    conceded = _run(api_database_url, lambda p: met(p, game.target, game.colluders))
    assert before[game.target] > before[game.twin]  # the collusion worked (its size: the flow test)

    admin_id, admin_name, admin_key = _account(platform_url)
    truco.ok(
        "admin", "grant", admin_name, "--reason", "on call", "--database-url", api_database_url
    )
    _, _, user_key = _account(platform_url)
    admin = {"Authorization": f"Bearer {admin_key}"}
    user = {"Authorization": f"Bearer {user_key}"}
    api = httpx.Client(base_url=platform_url, timeout=30)

    # the admin reads the flags with their evidence, through the API and the command line
    listed = api.get("/v1/admin/ladder-flags", headers=admin)
    assert listed.status_code == 200, listed.text
    flags = listed.json()["items"]
    on_target = {
        f["against"]["id"]: f
        for f in flags
        if f["bot"]["id"] == game.target and f["against"]["kind"] == "owner"
    }
    assert set(on_target) >= set(game.colluder_owners), flags
    for owner in game.colluder_owners:
        flag = on_target[owner]
        assert flag["status"] == "open" and flag["pool"] == "1v1"
        assert flag["bot"]["owner_id"] != owner and flag["bot"]["owner_name"]
        assert flag["against"]["owner_id"] == owner and flag["against"]["name"]
        evidence = flag["evidence"]
        assert evidence["matches"] >= 6 and len(evidence["match_ids"]) == evidence["matches"]
        assert evidence["score"] > evidence["expected"] and evidence["z"] >= 3
        assert {"z_results", "z_points", "points_share", "expected_share"} <= set(evidence)
        assert api.get(f"/v1/admin/ladder-flags/{flag['id']}", headers=admin).json() == flag
    monkeypatch.setenv("TRUCO_API_URL", platform_url)
    monkeypatch.setenv("TRUCO_API_KEY", admin_key)
    from_cli = truco.ok("admin", "flags", "--json").json()
    assert from_cli == flags
    text = truco.ok("admin", "flags").out
    for owner in game.colluder_owners:
        assert f"flag {on_target[owner]['id']}: matches " in text
    assert "z" in text and on_target[game.colluder_owners[0]]["bot"]["name"] in text

    # a non-admin: 403 problems on every flag operation, through the API and the command line
    some = on_target[game.colluder_owners[0]]["id"]
    for method, path in (
        ("GET", "/v1/admin/ladder-flags"),
        ("GET", f"/v1/admin/ladder-flags/{some}"),
        ("POST", f"/v1/admin/ladder-flags/{some}/annul"),
        ("POST", f"/v1/admin/ladder-flags/{some}/dismiss"),
    ):
        refused = api.request(method, path, headers=user, json={"reason": "me"})
        assert refused.status_code == 403, (path, refused.text)
        assert refused.json()["type"] == "/problems/not-an-admin"
    monkeypatch.setenv("TRUCO_API_KEY", user_key)
    for args in (("flags",), ("annul-flag", str(some), "--reason", "x")):
        denied = truco("admin", *args)
        assert denied.code == 1 and "403" in denied.err, args
    monkeypatch.setenv("TRUCO_API_KEY", admin_key)
    assert api.get(f"/v1/admin/ladder-flags/{some}", headers=admin).json()["status"] == "open"

    # unknown flags are 404 problems
    for method, path in (
        ("GET", "/v1/admin/ladder-flags/999999999"),
        ("POST", "/v1/admin/ladder-flags/999999999/annul"),
    ):
        missing = api.request(method, path, headers=admin, json={"reason": "x"})
        assert missing.status_code == 404 and missing.json()["status"] == 404, missing.text
    assert truco("admin", "dismiss-flag", "999999999", "--reason", "x").code == 1

    # annul: one flag through the command line, the other through the API
    games_before = _run(api_database_url, lambda p: rated_games(p, "1v1"))
    first, second = (on_target[o]["id"] for o in game.colluder_owners)
    reason = "its accomplices concede every hand to it"
    by_cli = truco.ok("admin", "annul-flag", str(first), "--reason", reason)
    assert f"annul_pair bot {game.target}" in by_cli.out and f"flag {first} annulled" in by_cli.out
    by_api = api.post(
        f"/v1/admin/ladder-flags/{second}/annul", headers=admin, json={"reason": reason}
    )
    assert by_api.status_code == 200, by_api.text
    decided = by_api.json()
    assert decided["flag"]["status"] == "annulled" and decided["flag"]["decided_by"] == admin_id
    assert decided["entry"]["action"] == "annul_pair" and decided["entry"]["actor"] == admin_name
    annulled = set(decided["annulled_matches"]) | set(
        api.get(f"/v1/admin/ladder-flags/{first}", headers=admin).json()["annulled_matches"]
    )
    assert len(annulled) == conceded
    # twice: a 409 with a clear message, nothing annulled again
    again = api.post(f"/v1/admin/ladder-flags/{second}/annul", headers=admin, json={"reason": "x"})
    assert again.status_code == 409 and "annulled already" in again.json()["detail"]
    twice = truco("admin", "annul-flag", str(first), "--reason", "x")
    assert twice.code == 1 and "annulled already" in twice.err

    # Elo at once: every bot rated as if those matches had never been played
    kept = [g for g in games_before if g[0] not in annulled]
    expected = compute_ratings(
        RatedMatch("1v1", tuple(a), tuple(b), side_result(w), m) for m, a, b, w in kept
    )["1v1"]

    async def ratings(pool: Any) -> dict[int, int]:
        rows = await pool.fetch("SELECT bot_id, rating FROM ratings WHERE mode = '1v1'")
        return {int(r["bot_id"]): round(r["rating"]) for r in rows if int(r["bot_id"]) in expected}

    assert _run(api_database_url, ratings) == {b: r.rating for b, r in expected.items()}
    # the fit at its next run: without the conceded wins the target falls towards its twin
    after = _run(api_database_url, lambda p: _refit_and_read(p, [game.target, game.twin]))
    gain_before = before[game.target] - before[game.twin]
    gain_after = after[game.target] - after[game.twin]
    assert after[game.target] < before[game.target] and gain_after < gain_before

    async def fit_games(pool: Any) -> int:
        return int(await pool.fetchval("SELECT games FROM rating_fits WHERE mode = '1v1'"))

    assert _run(api_database_url, fit_games) == len(kept)  # the fit saw the matches left

    # the audit log: who, what, why, when; the target's page shows the annulment publicly
    audit = truco.ok("admin", "audit", "--bot", str(game.target), "--json").json()
    lines = [e for e in audit if e["action"] == "annul_pair"]
    assert {e["detail"]["flag_id"] for e in lines} == {first, second}
    for line in lines:
        assert (line["actor"], line["actor_id"], line["reason"]) == (admin_name, admin_id, reason)
        assert line["at"] and line["target_kind"] == "bot" and line["target_id"] == game.target
    public = httpx.get(f"{platform_url}/v1/bots/{game.target}/moderation").json()
    assert [a["action"] for a in public["actions"]].count("annul_pair") == 2

    # dismiss: a flag on an honest pair (made here: chance flags are not guaranteed)
    async def honest_flag(pool: Any) -> int:
        async with pool.acquire() as conn:
            return await db_flags.upsert_flag(
                conn,
                "1v1",
                game.twin,
                "owner",
                game.colluder_owners[0],
                decided["flag"]["evidence"],
            )

    honest = _run(api_database_url, honest_flag)
    dismissed = truco.ok(
        "admin", "dismiss-flag", str(honest), "--reason", "looked honest", "--json"
    )
    assert dismissed.json()["flag"]["status"] == "dismissed"
    assert dismissed.json()["entry"]["action"] == "dismiss_flag"
    assert dismissed.json()["annulled_matches"] == []
    assert f"{honest}" not in [str(f["id"]) for f in truco.ok("admin", "flags", "--json").json()]
    old = truco.ok("admin", "flags", "--status", "dismissed", "--json").json()
    assert [f["id"] for f in old] == [honest] and old[0]["note"] == "looked honest"
    late = truco("admin", "annul-flag", str(honest), "--reason", "x")
    assert late.code == 1 and "dismissed already" in late.err
    twin_log = truco.ok("admin", "audit", "--bot", str(game.twin), "--json").json()
    assert [e["action"] for e in twin_log] == ["dismiss_flag"]
    public_twin = httpx.get(f"{platform_url}/v1/bots/{game.twin}/moderation").json()
    assert public_twin["actions"] == []  # a dismissal is for the admins' eyes only


async def _colluded(pool: Any) -> tuple[Pool, dict[int, float]]:
    """The collusion test module's two games in its order: the pool's results of the linked
    accounts' game first (the detector calibrates the point shares on every result of the
    pool: alone, the second game's accomplices are not reliably both flagged), then the
    accomplices from other addresses, played until both are flagged."""
    await play(pool, one_address=True)
    return await play(pool, one_address=False, until_flagged=True)


async def _refit_and_read(pool: Any, bots: list[int]) -> dict[int, float]:
    await refit(pool, "1v1")
    return await fitted(pool, bots)
