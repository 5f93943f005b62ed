"""`truco admin ...` and `truco report ...` against the served API and the real database: the
admin role is granted on the server (the database's URL, never the API), every other action
goes through the admin API with the admin's configured key and lands in the audit log, a
non-admin's key is refused, and a revoked admin can do nothing more."""

from __future__ import annotations

import json

import httpx
import pytest

from arena.sdk import BotServer
from tests.cli.conftest import Truco, unique


def _account(url: str) -> tuple[int, str, dict[str, str]]:
    name = unique("user")
    made = httpx.post(f"{url}/v1/accounts", json={"name": name}, timeout=10).json()
    return made["id"], name, {"Authorization": f"Bearer {made['api_key']}"}


def _bot(url: str, headers: dict[str, str], bot: BotServer) -> int:
    made = httpx.post(
        f"{url}/v1/bots", headers=headers, json={"name": unique("b"), "url": bot.url}, timeout=30
    )
    assert made.status_code == 201, made.text
    return int(made.json()["id"])


def test_every_admin_action_through_the_command_line(
    truco: Truco,
    platform_url: str,
    bots: list[BotServer],
    api_database_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)
    admin_name = unique("admin")
    truco.ok("account", "create", admin_name, "--url", platform_url)
    # no database, no grant: it is the server's command (exit 2, nothing asked of the API)
    missing = truco("admin", "grant", admin_name, "--reason", "ops")
    assert missing.code == 2 and "DATABASE_URL" in missing.err
    # before the grant the admin API refuses this key
    refused = truco("admin", "audit")
    assert refused.code == 1 and "403" in refused.err
    granted = truco.ok(
        "admin", "grant", admin_name, "--reason", "on call", "--database-url", api_database_url
    )
    assert "is now an admin" in granted.out
    twice = truco("admin", "grant", admin_name, "--reason", "x", "--database-url", api_database_url)
    assert twice.code == 1 and "already" in twice.err
    listed = truco.ok("admin", "list", "--json", "--database-url", api_database_url).json()
    assert admin_name in [a["name"] for a in listed]

    user_id, _, user = _account(platform_url)
    target = _bot(platform_url, user, bots[0])
    other = _bot(platform_url, user, bots[1])
    reported = truco.ok("report", "bot", str(target), "--category", "cheating", "--text", "mazo")
    assert "report" in reported.out
    queue = truco.ok("admin", "reports", "--json").json()
    report = next(r for r in queue if r["target_id"] == target)
    assert report["category"] == "cheating" and report["text"] == "mazo"
    assert "cheating" in truco.ok("admin", "reports").out
    resolved = truco.ok("admin", "resolve", str(report["id"]), "actioned", "--reason", "looked")
    assert "resolve_report" in resolved.out

    new_name = unique("renamed")
    renamed = truco.ok("admin", "rename", "bot", str(other), new_name, "--reason", "rude")
    assert new_name in renamed.out
    assert httpx.get(f"{platform_url}/v1/bots/{other}").json()["name"] == new_name
    hidden = truco.ok("admin", "hide", "account", str(user_id), "--reason", "rude", "--json")
    assert hidden.json()["detail"]["new_name"] == f"account-{user_id}"
    disqualified = truco.ok("admin", "disqualify", str(target), "--reason", "engine assist")
    assert "disqualify_bot bot" in disqualified.out
    assert httpx.get(f"{platform_url}/v1/bots/{target}/moderation").json()["disqualified_at"]
    truco.ok("admin", "suspend", str(user_id), "--reason", "abuse")
    assert httpx.get(f"{platform_url}/v1/accounts/me", headers=user).status_code == 401
    back = truco.ok("admin", "reinstate", str(user_id), "--reason", "appeal")
    key = back.out.rsplit(": ", 1)[-1].strip()
    me = httpx.get(f"{platform_url}/v1/accounts/me", headers={"Authorization": f"Bearer {key}"})
    assert me.status_code == 200 and me.json()["id"] == user_id

    audit = truco.ok("admin", "audit", "--json").json()
    actions = [e["action"] for e in audit]
    for action in (
        "grant_admin",
        "resolve_report",
        "rename_bot",
        "hide_account_name",
        "disqualify_bot",
        "suspend_account",
        "reinstate_account",
    ):
        assert action in actions, action
    grant = next(e for e in audit if e["action"] == "grant_admin")
    assert grant["actor"].startswith("server:") and grant["actor_id"] is None
    others = [e for e in audit if e["action"] != "grant_admin"]
    assert {e["actor"] for e in others} == {admin_name}
    on_target = truco.ok("admin", "audit", "--bot", str(target), "--json").json()
    assert [e["action"] for e in on_target] == ["disqualify_bot"]
    assert "disqualify_bot" in truco.ok("admin", "audit").out

    # someone else's key: every admin command is refused (403), nothing happens
    monkeypatch.setenv("TRUCO_API_KEY", key)
    for args in (
        ("disqualify", str(other), "--reason", "x"),
        ("suspend", str(user_id), "--reason", "x"),
        ("reports",),
        ("audit",),
    ):
        denied = truco("admin", *args)
        assert denied.code == 1 and "403" in denied.err, args
    monkeypatch.delenv("TRUCO_API_KEY")
    # a revoked admin is an ordinary account again
    truco.ok("admin", "revoke", admin_name, "--reason", "left", "--database-url", api_database_url)
    gone = truco("admin", "audit")
    assert gone.code == 1 and "403" in gone.err
    problem = json.loads(truco("admin", "audit", "--json").err)
    assert problem["type"] == "/problems/not-an-admin"
