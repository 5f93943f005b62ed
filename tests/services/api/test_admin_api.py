"""Moderation through the real API (docs/moderation.md): every admin operation refuses a
non-admin's key (403) and no key (401), and no operation makes an admin; disqualifying a bot
annuls its ladder results, and the pool's ratings then equal a recomputation from the games
that remain (Elo from the first match, and the maximum-likelihood fit); the bot forfeits what
is left of its running events, leaves the registering ones, and its finished event stands.
Suspending, reinstating, renaming and hiding do what they say, and each action is one line of
the audit log, which the database keeps append-only."""

from __future__ import annotations

import ast
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import httpx
import pytest

from services import flow
from services.base.config import LadderSettings, ModerationSettings
from services.db import annulment as db_annulment
from services.db import bot_health
from services.db import moderation as db_moderation
from services.domain import side_result
from services.domain.rating_fit import Game, GameTable, fit_ratings
from services.domain.ratings import RatedMatch, compute_ratings
from services.flow import ladder as flow_ladder
from services.tournaments.files.export_document import decode_ladder_day
from services.worker.results.fit import refit
from tests.conftest import ROOT
from tests.services.helpers.api_helpers import Api, module_api, unique
from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_account, make_bot
from truco_cli.verify_ladder import verify_ladder_day

pytestmark = pytest.mark.anyio

# one app for the tests that take ``api`` (the reports' budget test makes its own): budgets and
# the reports per hour lifted, as every test makes accounts and reports from one address
LIFTED_REPORTS = ModerationSettings(reports_per_hour=1_000_000)
anyio_backend, shared_api, api = module_api(settings_fields={"moderation": LIFTED_REPORTS})
LADDER = LadderSettings(pair_per_day=3, hourly_cap=1000)


async def admin_headers(api: Api) -> tuple[int, dict[str, str]]:
    account, headers = await api.account("admin")
    assert await db_moderation.grant_admin(api.pool, account)  # what `truco admin grant` does
    return account, headers


def spec_operations(spec: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (method.upper(), path)
        for path, item in spec["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    ]


async def test_every_admin_operation_refuses_non_admins_and_none_makes_an_admin(api: Api) -> None:
    spec = (await api.client.get("/schema/openapi.json")).json()
    admin_ops = [(m, p) for m, p in spec_operations(spec) if p.startswith("/v1/admin/")]
    assert len(admin_ops) >= 9
    _, user = await api.account("user")
    admin_id, admin = await admin_headers(api)
    victim, _ = await api.account("victim")
    admins_before = await db_moderation.admins(api.pool)
    listed = (await api.client.get("/v1/admin/admins", headers=admin)).json()
    assert admin_id in [a["account_id"] for a in listed]
    for method, path in admin_ops:
        url = path.replace("{bot_id}", "1").replace("{account_id}", str(victim))
        url = url.replace("{report_id}", "1").replace("{flag_id}", "1")
        body = {"reason": "probing", "outcome": "dismissed", "hide": True}
        refused = await api.client.request(method, url, headers=user, json=body)
        assert refused.status_code == 403, (method, path, refused.text)
        assert refused.json()["type"] == "/problems/not-an-admin"
        anonymous = await api.client.request(method, url, json=body)
        assert anonymous.status_code == 401, (method, path)
        assert await db_moderation.admins(api.pool) == admins_before
    # no operation of the whole API writes the admins (none is named so, none takes a role)
    for method, path in spec_operations(spec):
        if method != "GET":
            assert "admins" not in path and "grant" not in path, path
    text = str(spec)
    assert "grant_admin" not in text.replace("'grant_admin'", "")  # only as a logged action
    # an admin acting on another account through every write never makes it an admin
    for method, path in admin_ops:
        if method == "GET":
            continue
        url = path.replace("{account_id}", str(victim)).replace("{bot_id}", "1")
        url = url.replace("{report_id}", "1").replace("{flag_id}", "1")
        for body in ({"reason": "x", "role": "admin"}, {"reason": "x", "admin": True}):
            answer = await api.client.request(method, url, headers=admin, json=body)
            assert answer.status_code in (404, 409, 422), (path, answer.text)
    assert {a.account_id for a in await db_moderation.admins(api.pool)} == {
        a.account_id for a in admins_before
    }
    assert victim not in {a.account_id for a in await db_moderation.admins(api.pool)}
    assert admin_id in {a.account_id for a in admins_before}


def test_no_module_of_the_api_or_the_pages_can_grant_the_admin_role() -> None:
    """The role is written by ``services.db.moderation.grant_admin`` alone, which only the
    workflow's ``grant_admin`` calls, which only the server's command line calls."""
    callers: dict[str, set[str]] = {}
    for folder in ("services", "truco_cli"):
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text())
            names = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
            names |= {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
            if "grant_admin" in names:
                callers.setdefault("grant_admin", set()).add(str(path.relative_to(ROOT)))
            if "INSERT INTO admins" in path.read_text():
                callers.setdefault("sql", set()).add(str(path.relative_to(ROOT)))
    assert callers["sql"] == {"services/db/moderation.py"}
    # uses (a function's own definition is no use of it)
    assert callers["grant_admin"] == {"services/flow/moderation.py", "truco_cli/admin.py"}


async def play_ladder(pool: asyncpg.Pool, bots: int = 6, ticks: int = 8) -> list[int]:
    """``bots`` bots of as many owners on the 1v1 ladder, ``ticks`` ticks played in process."""
    ids = []
    for _ in range(bots):
        owner = await make_account(pool, "ladder")
        bot = await make_bot(pool, owner, prefix="ladder-bot")
        await bot_health.record_check(pool, bot, ok=True, error=None, failures_to_unavailable=3)
        await flow_ladder.join(pool, "1v1", bot, owner, LADDER)
        ids.append(bot)
    run = InProcessSender(in_process({ids[0]: "heuristic"}))
    now = datetime.now(UTC).replace(microsecond=0)
    for k in range(ticks):
        await run(pool, await flow_ladder.tick(pool, LADDER, now + timedelta(seconds=k)))
    return ids


async def rated_games(pool: asyncpg.Pool, mode: str) -> list[tuple[int, list[int], list[int], Any]]:
    """The pool's rated matches as stored, in the order they were rated."""
    rows = await db_annulment.pool_history(pool, mode)
    games: dict[int, tuple[list[int], list[int], Any]] = {}
    for row in rows:
        sides = games.setdefault(row.match_id, ([], [], row.winner_side))
        sides[row.side].append(row.bot_id)
    return [(match_id, a, b, w) for match_id, (a, b, w) in games.items()]


async def test_disqualifying_a_bot_annuls_its_ladder_results_and_refits_the_pool(api: Api) -> None:
    pool = api.pool
    ladder_bots = await play_ladder(pool)
    target = ladder_bots[0]
    target_matches = await db_annulment.ladder_matches_of_bot(pool, target)
    assert len(target_matches) >= 3
    # a finished event with the bot (its results must stand), a running one whose next
    # matches it must forfeit, a registering one it must leave
    finished, _ = await flow_helpers_event(pool, "round_robin", target, play=True)
    running, _ = await flow_helpers_event(pool, "swiss", target, play=False, rounds=2)
    registering, _ = await flow_helpers_event(pool, "swiss", target, start=False)
    finished_before = (await api.client.get(f"/v1/tournaments/{finished}")).json()
    assert finished_before["status"] == "finished"

    before = await rated_games(pool, "1v1")  # the whole pool, the events' rated games too
    assert {m for m, *_ in before} >= set(target_matches)
    _, admin = await admin_headers(api)
    reason = "it colluded with bot 12 on the 1v1 ladder"
    done = await api.client.post(
        f"/v1/admin/bots/{target}/disqualify", headers=admin, json={"reason": reason}
    )
    assert done.status_code == 200, done.text
    entry = done.json()["entry"]
    assert entry["action"] == "disqualify_bot" and entry["reason"] == reason
    assert entry["detail"]["annulled_ladder_matches"] == target_matches
    assert entry["actor"].startswith("admin-") and entry["actor_id"] is not None
    forfeited = entry["detail"]["forfeited_matches"]
    assert forfeited and set(forfeited) <= set(done.json()["stopped_matches"])
    assert entry["detail"]["left_registering_events"] == [registering]

    # Elo: every bot of the pool is rated as if the annulled matches had never been played
    kept = [g for g in before if g[0] not in set(target_matches)]
    expected = compute_ratings(
        RatedMatch("1v1", tuple(a), tuple(b), side_result(w), m) for m, a, b, w in kept
    )["1v1"]
    stored = {
        r["bot_id"]: r
        for r in await pool.fetch("SELECT * FROM ratings WHERE mode = '1v1' AND matches > 0")
    }
    assert set(stored) == set(expected)
    for bot, rating in expected.items():
        row = stored[bot]
        assert (round(row["rating"]), row["matches"]) == (rating.rating, rating.matches), bot
        assert row["wins"] + row["losses"] + row["draws"] == rating.matches
    assert (
        await pool.fetchval(
            "SELECT count(*) FROM rating_history WHERE match_id = ANY($1)", target_matches
        )
        == 0
    )
    # the target keeps only its tournament games (the finished round robin's three)
    assert stored[target]["matches"] == 3
    # the fit (intervals, LOS) refits the pool from the games that remain
    report = await refit(pool, "1v1")
    assert report is not None and report.games == len(kept)
    elo = {bot: float(r.rating) for bot, r in expected.items()}
    order = [
        r["bot_id"]
        for r in await pool.fetch(
            "SELECT r.bot_id FROM ratings r JOIN bots b ON b.id = r.bot_id WHERE r.mode = '1v1' "
            "AND r.matches > 0 AND b.status <> 'deleted' ORDER BY r.rating DESC, r.bot_id"
        )
    ]
    scores = {0: 1.0, 1: 0.0, None: 0.5}
    table = GameTable.from_games(Game(tuple(a), tuple(b), scores[w]) for _, a, b, w in kept)
    fitted = fit_ratings(table, elo, order)
    rows = await pool.fetch("SELECT bot_id, low, high FROM rating_intervals WHERE mode = '1v1'")
    assert {r["bot_id"] for r in rows} == set(fitted)
    for row in rows:
        assert row["low"] == pytest.approx(fitted[row["bot_id"]].low, abs=1e-6)
        assert row["high"] == pytest.approx(fitted[row["bot_id"]].high, abs=1e-6)

    # the bot: deleted, marked, off the ladders, out of the events as the rule says
    profile = (await api.client.get(f"/v1/bots/{target}")).json()
    assert profile["status"] == "deleted"
    public = (await api.client.get(f"/v1/bots/{target}/moderation")).json()
    assert public["disqualified_at"] is not None
    assert public["actions"] == [{"action": "disqualify_bot", "reason": reason, "at": entry["at"]}]
    assert await pool.fetchval("SELECT count(*) FROM ladder_entries WHERE bot_id = $1", target) == 0
    finished_after = (await api.client.get(f"/v1/tournaments/{finished}")).json()
    assert finished_after["standings"] == finished_before["standings"]
    open_left = await pool.fetchval(
        "SELECT count(*) FROM matches m JOIN match_entrants e ON e.match_id = m.id "
        "WHERE m.tournament_id = $1 AND e.bot_id = $2 AND m.status IN ('pending','queued','running')",
        running,
        target,
    )
    assert open_left == 0
    withdrawn = await pool.fetchval(
        "SELECT withdrawn_at IS NOT NULL FROM tournament_entries WHERE tournament_id = $1 "
        "AND bot_id = $2",
        registering,
        target,
    )
    assert withdrawn
    # once is enough
    again = await api.client.post(
        f"/v1/admin/bots/{target}/disqualify", headers=admin, json={"reason": "again"}
    )
    assert again.status_code == 409
    audit = (
        await api.client.get(
            "/v1/admin/audit", headers=admin, params={"target_kind": "bot", "target_id": target}
        )
    ).json()
    assert [e["id"] for e in audit["items"]] == [entry["id"]]
    annulled = await pool.fetch(
        "SELECT match_id, log_id FROM annulled_matches WHERE log_id = $1", entry["id"]
    )
    assert sorted(r["match_id"] for r in annulled) == target_matches
    # `truco verify ladder` still verifies the day: the export names the annulled matches
    day = datetime.now(UTC).date().isoformat()
    export = await api.client.get(f"/v1/ladders/1v1/days/{day}/export")
    assert export.status_code == 200, export.text
    doc = decode_ladder_day(export.content)
    assert set(doc.annulled) >= set(target_matches) and doc.annulled
    lines: list[str] = []
    verify_ladder_day(doc, say=lines.append)
    assert any("annulled matches" in line for line in lines), lines


async def flow_helpers_event(
    pool: asyncpg.Pool,
    format: str,
    bot: int,
    *,
    play: bool = True,
    start: bool = True,
    rounds: int | None = None,
) -> tuple[int, list[int]]:
    """An event of ``format`` with ``bot`` and three bots of their own owners entered; started
    and played to its end (``play``), started with its first round left unplayed, or left
    registering."""
    from tests.services.helpers.flow_helpers import make_tournament

    tournament, others = await make_tournament(pool, format, 3, rounds=rounds)
    await flow.enter_tournament(pool, tournament, bot)
    if start:
        ready = await flow.start_tournament(pool, tournament)
        if play:
            await InProcessSender(in_process({}))(pool, ready)
    return tournament, [bot, *others]


async def test_suspend_and_reinstate_an_account(api: Api) -> None:
    account, headers = await api.account("suspect")
    second = await api.client.post("/v1/accounts/me/keys", headers=headers)
    assert second.status_code == 201
    other_key = {"Authorization": f"Bearer {second.json()['api_key']}"}
    bots = [await make_bot(api.pool, account, prefix="suspect") for _ in range(2)]
    await api.pool.execute("UPDATE bots SET open = true WHERE id = ANY($1)", bots)
    event, _ = await flow_helpers_event(api.pool, "swiss", bots[0], start=False)
    _, admin = await admin_headers(api)
    done = await api.client.post(
        f"/v1/admin/accounts/{account}/suspend", headers=admin, json={"reason": "spam"}
    )
    assert done.status_code == 200, done.text
    detail = done.json()["entry"]["detail"]
    assert detail["revoked_keys"] == 2 and sorted(detail["closed_bots"]) == sorted(bots)
    for key in (headers, other_key):
        assert (await api.client.get("/v1/accounts/me", headers=key)).status_code == 401
    # a key made for the account anyway (the database's way round) does not work either
    from services.api.auth import hash_api_key, new_api_key

    sneaked = new_api_key()
    await api.pool.execute(
        "INSERT INTO api_keys (account_id, key_hash) VALUES ($1, $2)",
        account,
        hash_api_key(sneaked),
    )
    me = await api.client.get("/v1/accounts/me", headers={"Authorization": f"Bearer {sneaked}"})
    assert me.status_code == 401
    rows = await api.pool.fetch("SELECT open, challenges FROM bots WHERE id = ANY($1)", bots)
    assert [(r["open"], r["challenges"]) for r in rows] == [(False, "owner_only")] * 2
    assert await api.pool.fetchval(
        "SELECT withdrawn_at IS NOT NULL FROM tournament_entries WHERE tournament_id = $1 "
        "AND bot_id = $2",
        event,
        bots[0],
    )
    again = await api.client.post(
        f"/v1/admin/accounts/{account}/suspend", headers=admin, json={"reason": "spam"}
    )
    assert again.status_code == 409
    back = await api.client.post(
        f"/v1/admin/accounts/{account}/reinstate", headers=admin, json={"reason": "appeal"}
    )
    assert back.status_code == 200, back.text
    fresh = {"Authorization": f"Bearer {back.json()['api_key']}"}
    assert (await api.client.get("/v1/accounts/me", headers=fresh)).json()["id"] == account
    assert (await api.client.get("/v1/accounts/me", headers=headers)).status_code == 401
    audit = (
        await api.client.get(
            "/v1/admin/audit",
            headers=admin,
            params={"target_kind": "account", "target_id": account},
        )
    ).json()["items"]
    assert [e["action"] for e in audit] == ["reinstate_account", "suspend_account"]
    missing = await api.client.post(
        "/v1/admin/accounts/987654321/suspend", headers=admin, json={"reason": "x"}
    )
    assert missing.status_code == 404


async def test_rename_and_hide_names_and_the_owner_cannot_take_them_back(api: Api) -> None:
    owner, headers = await api.account("namer")
    bot = await make_bot(api.pool, owner, prefix="rude")
    old = await api.pool.fetchval("SELECT name FROM bots WHERE id = $1", bot)
    _, admin = await admin_headers(api)
    new = unique("polite")
    renamed = await api.client.post(
        f"/v1/admin/bots/{bot}/name", headers=admin, json={"name": new, "reason": "offensive"}
    )
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["detail"] == {"old_name": old, "new_name": new}
    assert (await api.client.get(f"/v1/bots/{bot}")).json()["name"] == new
    back = await api.client.patch(f"/v1/bots/{bot}", headers=headers, json={"name": old})
    assert back.status_code == 403 and back.json()["type"] == "/problems/name-locked"
    same = await api.client.patch(f"/v1/bots/{bot}", headers=headers, json={"name": new})
    assert same.status_code == 200  # the same name is no change
    hidden = await api.client.post(
        f"/v1/admin/bots/{bot}/name", headers=admin, json={"hide": True, "reason": "again"}
    )
    assert hidden.json()["detail"]["new_name"] == f"bot-{bot}"
    public = (await api.client.get(f"/v1/bots/{bot}/moderation")).json()
    assert [a["action"] for a in public["actions"]] == ["hide_bot_name", "rename_bot"]
    assert old not in str(public) and new not in str(public)  # never an old name in public
    # an account's name
    hidden_account = await api.client.post(
        f"/v1/admin/accounts/{owner}/name", headers=admin, json={"hide": True, "reason": "x"}
    )
    assert hidden_account.json()["detail"]["new_name"] == f"account-{owner}"
    me = (await api.client.get("/v1/accounts/me", headers=headers)).json()
    assert me["name"] == f"account-{owner}"
    # a name that is taken is refused; exactly one of name and hide
    other_owner, _ = await api.account("other")
    taken_by = await api.pool.fetchval("SELECT name FROM accounts WHERE id = $1", other_owner)
    taken = await api.client.post(
        f"/v1/admin/accounts/{owner}/name", headers=admin, json={"name": taken_by, "reason": "x"}
    )
    assert taken.status_code == 409
    for body in ({"reason": "x"}, {"reason": "x", "name": "a", "hide": True}):
        bad = await api.client.post(f"/v1/admin/bots/{bot}/name", headers=admin, json=body)
        assert bad.status_code == 422
    invisible = await api.client.post(
        f"/v1/admin/bots/{bot}/name", headers=admin, json={"name": "a\u200bb", "reason": "x"}
    )
    assert invisible.status_code == 422


async def test_the_audit_log_refuses_update_delete_and_truncate(api: Api) -> None:
    entry = await db_moderation.append(
        api.pool,
        actor_id=None,
        actor="server:test@host",
        action="grant_admin",
        target_kind="account",
        target_id=1,
        reason="a test",
    )
    for statement in (
        "UPDATE moderation_log SET reason = 'rewritten' WHERE id = $1",
        "DELETE FROM moderation_log WHERE id = $1",
    ):
        with pytest.raises(asyncpg.PostgresError, match="append-only"):
            await api.pool.execute(statement, entry.id)
    with pytest.raises(asyncpg.PostgresError, match="append-only"):
        await api.pool.execute("TRUNCATE moderation_log CASCADE")
    kept = await api.pool.fetchval("SELECT reason FROM moderation_log WHERE id = $1", entry.id)
    assert kept == "a test"


async def test_reports_queue_and_resolution(api: Api) -> None:
    owner, _ = await api.account("reported")
    bot = await make_bot(api.pool, owner, prefix="cheater")
    anonymous = await api.client.post(
        "/v1/reports",
        json={"target": "bot", "target_id": bot, "category": "cheating", "text": "it concedes"},
    )
    assert anonymous.status_code == 201, anonymous.text
    twice = await api.client.post(
        "/v1/reports", json={"target": "bot", "target_id": bot, "category": "cheating"}
    )
    assert twice.status_code == 409
    nobody = await api.client.post(
        "/v1/reports", json={"target": "bot", "target_id": 987654321, "category": "other"}
    )
    assert nobody.status_code == 404
    _, reporter = await api.account("reporter")
    named = await api.client.post(
        "/v1/reports",
        headers=reporter,
        json={"target": "account", "target_id": owner, "category": "name"},
    )
    assert named.status_code == 201
    _, admin = await admin_headers(api)
    queue = (await api.client.get("/v1/admin/reports", headers=admin)).json()["items"]
    ours = [r for r in queue if r["id"] in (anonymous.json()["id"], named.json()["id"])]
    assert [r["target"] for r in ours] == ["bot", "account"]  # oldest first
    assert ours[0]["reporter_id"] is None and ours[1]["reporter_id"] is not None
    assert ours[0]["reporter_address"] == "127.0.0.1" and ours[0]["text"] == "it concedes"
    closed = await api.client.post(
        f"/v1/admin/reports/{ours[0]['id']}/resolve",
        headers=admin,
        json={"outcome": "dismissed", "reason": "a fair loss"},
    )
    assert closed.status_code == 200 and closed.json()["action"] == "resolve_report"
    again = await api.client.post(
        f"/v1/admin/reports/{ours[0]['id']}/resolve",
        headers=admin,
        json={"outcome": "actioned", "reason": "x"},
    )
    assert again.status_code == 409
    remaining = (await api.client.get("/v1/admin/reports", headers=admin)).json()["items"]
    assert ours[0]["id"] not in [r["id"] for r in remaining]
    dismissed = (
        await api.client.get("/v1/admin/reports", headers=admin, params={"status": "dismissed"})
    ).json()["items"]
    assert ours[0]["id"] in [r["id"] for r in dismissed]
    # with the first report closed, the address may report the bot again
    anew = await api.client.post(
        "/v1/reports", json={"target": "bot", "target_id": bot, "category": "cheating"}
    )
    assert anew.status_code == 201


async def test_reports_are_refused_past_the_budget_per_ipv6_64_and_per_account(
    api_database_url: str, guard: Any
) -> None:
    from services.base.config import ModerationSettings, RateLimits, WebSettings
    from tests.services.helpers.api_helpers import FrozenCounter, app_client

    fields = {
        "moderation": ModerationSettings(reports_per_hour=3),
        "web": WebSettings(trusted_proxies=("127.0.0.1/32",)),
        "rate_limits": RateLimits(accounts_per_hour=1_000_000),
    }
    async with app_client(
        api_database_url, guard, pool_size=2, settings_fields=fields, rate_counter=FrozenCounter()
    ) as (pool, client):
        owner = await make_account(pool, "flooded")
        targets = [await make_bot(pool, owner, prefix="flood") for _ in range(8)]

        async def send(
            address: str, target: int, headers: dict[str, str] | None = None
        ) -> httpx.Response:
            return await client.post(
                "/v1/reports",
                headers={"X-Forwarded-For": address, **(headers or {})},
                json={"target": "bot", "target_id": target, "category": "other"},
            )

        block = "2001:db8:7:1"
        answers = [(await send(f"{block}::{k + 1}", targets[k])).status_code for k in range(4)]
        assert answers == [201, 201, 201, 429]  # four addresses of one /64 share one budget
        refused = await send(f"{block}:ffff:ffff:ffff:ffff", targets[5])
        assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
        assert refused.json()["type"] == "/problems/too-many-reports"
        assert (await send("2001:db8:7:2::1", targets[5])).status_code == 201  # another /64
        # an account's own budget: three from three addresses, the fourth refused
        created = await client.post(
            "/v1/accounts", headers={"X-Forwarded-For": "198.51.100.1"}, json={"name": unique("r")}
        )
        key = {"Authorization": f"Bearer {created.json()['api_key']}"}
        spread = [
            (await send(f"198.51.100.{10 + k}", targets[k], key)).status_code for k in range(4)
        ]
        assert spread == [201, 201, 201, 429]
        stored = await pool.fetch(
            "SELECT reporter_address FROM reports WHERE target_id = ANY($1)", targets
        )
        assert "2001:db8:7:1::/64" in {r["reporter_address"] for r in stored}


async def test_public_moderation_of_an_unknown_bot_is_404(api: Api) -> None:
    assert (await api.client.get("/v1/bots/987654321/moderation")).status_code == 404
