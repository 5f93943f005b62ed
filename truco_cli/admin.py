"""`truco admin ACTION ...`: the platform's moderation (docs/moderation.md).

Two kinds of action:

* ``grant``, ``revoke``, ``list``: who is an admin. They talk to the DATABASE directly
  (``DATABASE_URL`` or ``--database-url``), on a machine that holds its credentials: no API
  operation makes an admin. The audit log names the server (``server:USER@HOST``) as who did it.
* everything else (``disqualify``, ``suspend``, ``reinstate``, ``rename``, ``hide``,
  ``reports``, ``resolve``, ``audit``, and the ladders' collusion flags: ``flags``,
  ``annul-flag``, ``dismiss-flag``): through the admin API with the configured key, which
  must be an admin's (``truco login``), like every other platform command.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import socket
from typing import Any

from truco_cli.api import Platform, add_json, print_json, table
from truco_cli.errors import CommandError, platform_command

DB_ACTIONS = ("grant", "revoke", "list")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, help_ in (
        ("grant", "make an account an admin (on the server: needs the database's URL)"),
        ("revoke", "take an account's admin role away (on the server)"),
    ):
        action = sub.add_parser(name, help=help_, description=help_)
        action.add_argument("account", help="the account's id or name")
        action.add_argument("--reason", required=True, help="why (written to the audit log)")
        action.add_argument("--database-url", help="default: DATABASE_URL")
        add_json(action)
    listing = sub.add_parser("list", help="the admins (on the server)")
    listing.add_argument("--database-url", help="default: DATABASE_URL")
    add_json(listing)

    for name, what, help_ in (
        ("disqualify", "bot", "disqualify a bot: ladder results annulled, out of every event"),
        ("suspend", "account", "suspend an account: keys revoked, bots closed, entries withdrawn"),
        ("reinstate", "account", "lift a suspension (prints the account's one new API key)"),
    ):
        action = sub.add_parser(name, help=help_, description=help_)
        action.add_argument(what, help=f"the {what}'s id" + (" or name" if what == "bot" else ""))
        action.add_argument("--reason", required=True, help="why (written to the audit log)")
        add_json(action)
    rename = sub.add_parser("rename", help="give a bot or an account a new name (locked)")
    rename.add_argument("kind", choices=("bot", "account"))
    rename.add_argument("target", help="its id (a bot: or its name)")
    rename.add_argument("name", help="the new name")
    rename.add_argument("--reason", required=True)
    add_json(rename)
    hide = sub.add_parser("hide", help="hide a bot's or an account's name (it becomes bot-ID)")
    hide.add_argument("kind", choices=("bot", "account"))
    hide.add_argument("target", help="its id (a bot: or its name)")
    hide.add_argument("--reason", required=True)
    add_json(hide)
    reports = sub.add_parser("reports", help="users' reports: the open ones, oldest first")
    reports.add_argument(
        "--status", choices=("open", "actioned", "dismissed", "all"), default="open"
    )
    add_json(reports)
    resolve = sub.add_parser("resolve", help="close a report")
    resolve.add_argument("report", type=int, help="the report's id")
    resolve.add_argument("outcome", choices=("actioned", "dismissed"))
    resolve.add_argument("--reason", required=True)
    add_json(resolve)
    flags = sub.add_parser(
        "flags", help="the ladders' collusion flags with their evidence (open ones by default)"
    )
    flags.add_argument("--status", choices=("open", "annulled", "dismissed", "all"), default="open")
    flags.add_argument("--ladder", choices=("1v1", "2v2-individual"), help="only this ladder's")
    add_json(flags)
    for name, help_ in (
        ("annul-flag", "annul a collusion flag's ladder results (Elo recomputed without them)"),
        ("dismiss-flag", "dismiss a collusion flag: its results stand"),
    ):
        decide = sub.add_parser(name, help=help_, description=help_)
        decide.add_argument("flag", type=int, help="the flag's id (truco admin flags)")
        decide.add_argument("--reason", required=True, help="why (written to the audit log)")
        add_json(decide)
    audit = sub.add_parser("audit", help="the audit log, newest first")
    audit.add_argument("--bot", help="only actions on this bot (id or name)")
    audit.add_argument("--account", type=int, help="only actions on this account (id)")
    audit.add_argument("--limit", type=int, default=50)
    add_json(audit)


def server_actor() -> str:
    """Who the audit log names for this command line: ``server:USER@HOST``."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = "unknown"
    return f"server:{user}@{socket.gethostname()}"[:200]


def run(args: argparse.Namespace) -> int:
    if args.action in DB_ACTIONS:
        return _on_the_server(args)
    return _through_the_api(args)


def _database_url(args: argparse.Namespace) -> str:
    from services.base.config import ConfigError
    from services.base.environment import DATABASE_NEEDS, load_settings

    if args.database_url:
        return str(args.database_url)
    try:
        url = load_settings(needs=DATABASE_NEEDS).database.url
    except ConfigError as exc:
        raise CommandError.local("Bad setting", str(exc), slug="cli/config") from None
    if not url:
        raise CommandError.local(
            "No database",
            "this runs on the server, against the platform's database: set DATABASE_URL or "
            "pass --database-url (make run's embedded one: "
            "postgresql://postgres@127.0.0.1:54329/truco)",
            slug="cli/no-database",
        )
    return url


def _on_the_server(args: argparse.Namespace) -> int:
    from services.db import moderation as db_moderation
    from services.db.pool import create_pool
    from services.flow import moderation as flow

    url = _database_url(args)

    async def work() -> Any:
        pool = await create_pool(url, min_size=1, max_size=2)
        try:
            if args.action == "list":
                return await db_moderation.admins(pool)
            actor = flow.Actor(None, server_actor())
            change = flow.grant_admin if args.action == "grant" else flow.revoke_admin
            return await change(pool, args.account, actor, args.reason)
        finally:
            await pool.close()

    try:
        done = asyncio.run(work())
    except flow.ModerationError as exc:
        raise CommandError.local("Refused", str(exc), slug="cli/admin", exit_code=1) from None
    except OSError as exc:
        raise CommandError.local(
            "Database unreachable", str(exc), slug="cli/unreachable", exit_code=1
        ) from None
    if args.action == "list":
        rows = [[a.account_id, a.name, f"{a.granted_at:%Y-%m-%d %H:%M}"] for a in done]
        if args.json:
            print_json([{"account_id": r[0], "name": r[1], "granted_at": r[2]} for r in rows])
        else:
            print(table(["account", "name", "admin since"], rows) if rows else "no admin yet")
        return 0
    entry = {"id": done.id, "action": done.action, "account_id": done.target_id}
    if args.json:
        print_json({**entry, "actor": done.actor, "reason": done.reason})
    else:
        verb = "is now an admin" if args.action == "grant" else "is no longer an admin"
        print(f"account {done.target_id} ({done.detail.get('name')}) {verb} (audit log {done.id})")
    return 0


@platform_command
def _through_the_api(args: argparse.Namespace) -> int:
    with Platform.from_config() as platform:
        answer = _call(platform, args)
    if args.json:
        print_json(answer)
        return 0
    print(_text(args, answer))
    return 0


def _call(platform: Platform, args: argparse.Namespace) -> Any:
    reason = {"reason": args.reason} if hasattr(args, "reason") else {}
    if args.action == "disqualify":
        bot = platform.bot_id(args.bot)
        return platform.request("POST", f"/v1/admin/bots/{bot}/disqualify", body=reason, auth=True)
    if args.action in ("suspend", "reinstate"):
        path = f"/v1/admin/accounts/{_account(args.account)}/{args.action}"
        return platform.request("POST", path, body=reason, auth=True)
    if args.action in ("rename", "hide"):
        target = platform.bot_id(args.target) if args.kind == "bot" else _account(args.target)
        body = {**reason, **({"name": args.name} if args.action == "rename" else {"hide": True})}
        path = f"/v1/admin/{args.kind}s/{target}/name"
        return platform.request("POST", path, body=body, auth=True)
    if args.action == "reports":
        return list(_pages(platform, "/v1/admin/reports", status=args.status))
    if args.action == "resolve":
        body = {**reason, "outcome": args.outcome}
        return platform.request(
            "POST", f"/v1/admin/reports/{args.report}/resolve", body=body, auth=True
        )
    if args.action == "flags":
        query = {"status": args.status} | ({"ladder": args.ladder} if args.ladder else {})
        return list(_pages(platform, "/v1/admin/ladder-flags", **query))
    if args.action in ("annul-flag", "dismiss-flag"):
        verb = args.action.removesuffix("-flag")
        path = f"/v1/admin/ladder-flags/{args.flag}/{verb}"
        return platform.request("POST", path, body=reason, auth=True)
    assert args.action == "audit"
    params: dict[str, Any] = {"limit": min(max(args.limit, 1), 200)}
    if args.bot:
        params.update(target_kind="bot", target_id=platform.bot_id(args.bot))
    elif args.account:
        params.update(target_kind="account", target_id=args.account)
    return platform.request("GET", "/v1/admin/audit", auth=True, **params)["items"]


def _pages(platform: Platform, path: str, **params: Any) -> Any:
    cursor = None
    while True:
        page = platform.request("GET", path, auth=True, limit=100, cursor=cursor, **params)
        yield from page["items"]
        cursor = page.get("next_cursor")
        if cursor is None:
            return


def _account(ref: str) -> int:
    if not (ref.isascii() and ref.isdigit()):
        raise CommandError.local(
            "Not an account id", f"give the account's id (a number), not {ref!r}", slug="cli"
        )
    return int(ref)


def _text(args: argparse.Namespace, answer: Any) -> str:
    if args.action == "reports":
        if not answer:
            return f"no {args.status} report" if args.status != "all" else "no report"
        rows = [
            [
                r["id"],
                f"{r['created_at'][:16]}",
                f"{r['target']} {r['target_id']} ({r['target_name'] or '?'})",
                r["category"],
                r["status"],
                r["reporter_address"],
                r["text"][:60],
            ]
            for r in answer
        ]
        return table(["id", "when", "target", "category", "status", "from", "text"], rows)
    if args.action == "audit":
        if not answer:
            return "the audit log is empty"
        rows = [
            [
                e["id"],
                e["at"][:16],
                e["actor"],
                e["action"],
                f"{e['target_kind']} {e['target_id']}",
                e["reason"][:60],
            ]
            for e in answer
        ]
        return table(["id", "when", "who", "action", "target", "why"], rows)
    if args.action == "flags":
        return flags_text(args.status, answer)
    entry = answer.get("entry", answer)
    line = (
        f"{entry['action']} {entry['target_kind']} {entry['target_id']} (audit log {entry['id']})"
    )
    if args.action == "reinstate":
        line += f"\nits new API key (shown once; hand it to its owner): {answer['api_key']}"
    if answer.get("stopped_matches"):
        line += f"\nstopped matches: {', '.join(map(str, answer['stopped_matches']))}"
    if args.action in ("rename", "hide"):
        line += f"\nnew name: {entry['detail']['new_name']}"
    if args.action == "annul-flag":
        annulled = answer["annulled_matches"]
        line += f"\nflag {answer['flag']['id']} annulled: " + (
            f"{len(annulled)} matches ({', '.join(map(str, annulled))})"
            if annulled
            else "no match left to annul (annulled before)"
        )
    if args.action == "dismiss-flag":
        line += f"\nflag {answer['flag']['id']} dismissed: its results stand"
    return line


def _party(party: dict[str, Any]) -> str:
    if party["kind"] == "owner":
        return f"owner {party['name']} #{party['id']}"
    return f"{party['name']} #{party['id']} ({party['owner_name']})"


def flags_text(status: str, flags: list[dict[str, Any]]) -> str:
    """The flags as a table, then each one's match ids."""
    if not flags:
        return f"no {status} flag" if status != "all" else "no flag"
    rows = []
    for f in flags:
        e = f["evidence"]
        shares = (
            f"{e['points_share']:.0%} vs {e['expected_share']:.0%}"
            if e["points_share"] is not None and e["expected_share"] is not None
            else "-"
        )
        z_points = "-" if e["z_points"] is None else f"{e['z_points']:+.1f}"
        rows.append(
            [
                f["id"],
                f["pool"],
                f["status"],
                _party(f["bot"]),
                _party(f["against"]),
                e["matches"],
                f"{e['score']:g} vs {e['expected']:.1f}",
                shares,
                f"{e['z']:+.1f} ({e['z_results']:+.1f}, {z_points})",
                f["flagged_at"][:16],
            ]
        )
    head = ["id", "ladder", "status", "bot", "against", "matches", "score", "points", "z", "when"]
    lines = [table(head, rows), ""]
    for f in flags:
        ids = ", ".join(map(str, f["evidence"]["match_ids"]))
        lines.append(f"flag {f['id']}: matches {ids}")
    return "\n".join(lines)
