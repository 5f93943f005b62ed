"""Admins' actions (docs/moderation.md; the rules: :mod:`services.domain.moderation`).

Each action is ONE transaction: what it changes and its line in the audit log commit together
or not at all, so the log never names an action that did not happen, and nothing happens
without its line. Each returns what the caller must still do outside the database (send the
matches a withdrawal made ready, stop the matches it decided) as :class:`Effects`.

Who may call them is the API's business (an admin's key) and the server's command line's
(``truco admin grant``, the only way to make an admin); nothing here checks it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

import asyncpg

from services.db import annulment as db_annulment
from services.db import api_keys as db_keys
from services.db import ladder as db_ladder
from services.db import moderation as db
from services.db import reports as db_reports
from services.db import sprt_tests as db_sprt
from services.db.accounts import Connection, DuplicateName
from services.db.moderation import LogEntry
from services.domain.moderation import (
    Action,
    AuditDetail,
    Nameable,
    ReportOutcome,
    TargetKind,
    hidden_name,
    rename_action,
)
from services.flow.rating_refit import annul_and_refit
from services.flow.tournaments import withdraw_bot_in
from services.metrics.catalog import MODERATION_ACTIONS

DEADLOCK_TRIES = 3
"""An action that meets a concurrent result (a deadlock PostgreSQL breaks) is tried again."""


class ModerationError(Exception):
    """An action that cannot be done as asked; the message says why."""


class TargetNotFound(ModerationError):
    pass


class AlreadyDone(ModerationError):
    """The target is already in the state the action puts it in."""


class NameTaken(ModerationError):
    pass


@dataclass(frozen=True, slots=True)
class Actor:
    """Who acts: an admin's account, or the server's command line (``account_id`` None)."""

    account_id: int | None
    name: str


@dataclass(slots=True)
class Effects:
    """What an action did, and what is left to do outside the database."""

    entry: LogEntry | None = None
    ready: list[int] = field(default_factory=list)
    """New matches a withdrawal made ready: to send to the workers."""
    stop: list[int] = field(default_factory=list)
    """Matches decided without their play (forfeited, cancelled): their workers stop them."""


async def log_action(
    conn: Connection,
    actor: Actor,
    action: Action,
    kind: TargetKind,
    target_id: int,
    reason: str,
    detail: AuditDetail,
) -> LogEntry:
    entry = await db.append(
        conn,
        actor_id=actor.account_id,
        actor=actor.name,
        action=action,
        target_kind=kind,
        target_id=target_id,
        reason=reason,
        detail=detail,
    )
    MODERATION_ACTIONS.labels(action).inc()  # counted when written (a rollback over-counts)
    return entry


async def retrying(pool: asyncpg.Pool, work: Any) -> Any:
    for attempt in range(DEADLOCK_TRIES):
        try:
            async with pool.acquire() as conn, conn.transaction():
                return await work(conn)
        except asyncpg.DeadlockDetectedError:
            if attempt == DEADLOCK_TRIES - 1:
                raise
    raise AssertionError("unreachable")


@dataclass(frozen=True)
class Leaving:
    """What a bot left when it was disqualified or its account suspended."""

    forfeited: list[int]
    registering: list[int]
    ladders: int
    cancelled: list[int]
    tests: list[int]

    def detail(self) -> AuditDetail:
        return {
            "forfeited_matches": self.forfeited,
            "left_registering_events": self.registering,
            "left_ladders": self.ladders,
            "cancelled_matches": self.cancelled,
            "cancelled_tests": self.tests,
        }


def bots_leaving(left: list[Leaving]) -> AuditDetail:
    """What an account's bots left, together (nothing when it had none)."""
    if not left:
        return {}
    return {
        "forfeited_matches": [m for one in left for m in one.forfeited],
        "left_registering_events": [e for one in left for e in one.registering],
        "left_ladders": [one.ladders for one in left],
        "cancelled_matches": [m for one in left for m in one.cancelled],
        "cancelled_tests": [t for one in left for t in one.tests],
    }


async def _bot_leaves_everything(conn: Connection, bot_id: int, effects: Effects) -> Leaving:
    """The bot leaves every ladder and event (forfeiting what is left of the running ones), its
    open challenges and ladder matches are cancelled, its running tests cancelled."""
    withdrawal = await withdraw_bot_in(conn, bot_id)
    registering = await db.withdraw_from_registering(conn, bot_id)
    ladders = await db_ladder.delete_entries_of_bot(conn, bot_id)
    cancelled = await db.cancel_open_challenges_of(conn, bot_id)
    tests = await db.running_tests_of(conn, bot_id)
    for test_id in tests:
        cancelled += await db_sprt.finish_test(conn, test_id, status="cancelled")
    effects.ready += withdrawal.ready
    effects.stop += withdrawal.forfeited + cancelled
    return Leaving(withdrawal.forfeited, registering, ladders, cancelled, tests)


async def disqualify_bot(pool: asyncpg.Pool, bot_id: int, actor: Actor, reason: str) -> Effects:
    """The bot never plays again; its ladder results are annulled and its pools refitted;
    it forfeits what is left of its running events and leaves every other one (its finished
    events' results stand)."""

    async def work(conn: Connection) -> Effects:
        bot = await db.lock_bot(conn, bot_id)
        if bot is None:
            raise TargetNotFound(f"there is no bot {bot_id}")
        if bot.disqualified_at is not None:
            raise AlreadyDone(f"bot {bot_id} was disqualified on {bot.disqualified_at:%Y-%m-%d}")
        effects = Effects()
        detail = (await _bot_leaves_everything(conn, bot_id, effects)).detail()
        await db.disqualify(conn, bot_id)
        await db_annulment.lock_ratings(conn)  # no annulment in between: this list is exact
        ladder_matches = await db_annulment.ladder_matches_of_bot(conn, bot_id)
        detail["annulled_ladder_matches"] = ladder_matches
        entry = await log_action(conn, actor, "disqualify_bot", "bot", bot_id, reason, detail)
        refit = await annul_and_refit(conn, ladder_matches, entry.id)
        assert sorted(refit.annulled) == ladder_matches
        effects.entry = entry
        return effects

    found: Effects = await retrying(pool, work)
    return found


async def suspend_account(
    pool: asyncpg.Pool, account_id: int, actor: Actor, reason: str
) -> Effects:
    """Every key revoked, every bot closed and out of every ladder and event."""

    async def work(conn: Connection) -> Effects:
        account = await db.lock_account(conn, account_id)
        if account is None:
            raise TargetNotFound(f"there is no account {account_id}")
        if account.suspended_at is not None:
            raise AlreadyDone(f"account {account_id} is suspended already")
        await db.set_suspended(conn, account_id, True)
        effects = Effects()
        revoked = await db.revoke_all_keys(conn, account_id)
        bots = await db.live_bots_of(conn, account_id)
        left = []
        for bot_id in bots:
            await db.close_bot(conn, bot_id)
            left.append(await _bot_leaves_everything(conn, bot_id, effects))
        detail: AuditDetail = {"revoked_keys": revoked, "closed_bots": bots, **bots_leaving(left)}
        effects.entry = await log_action(
            conn, actor, "suspend_account", "account", account_id, reason, detail
        )
        return effects

    found: Effects = await retrying(pool, work)
    return found


async def reinstate_account(
    pool: asyncpg.Pool, account_id: int, actor: Actor, reason: str, key_hash: bytes, hint: str
) -> Effects:
    """Lift the suspension; the account gets one new key (``key_hash``: the caller made the key
    and shows it once). Its bots stay closed: its owner opens them again."""
    async with pool.acquire() as conn, conn.transaction():
        account = await db.lock_account(conn, account_id)
        if account is None:
            raise TargetNotFound(f"there is no account {account_id}")
        if account.suspended_at is None:
            raise AlreadyDone(f"account {account_id} is not suspended")
        await db.set_suspended(conn, account_id, False)
        key = await db_keys.insert_key(conn, account_id, key_hash, hint)
        entry = await log_action(
            conn, actor, "reinstate_account", "account", account_id, reason, {"key_id": key.id}
        )
    return Effects(entry=entry)


async def rename(
    pool: asyncpg.Pool,
    kind: Nameable,
    target_id: int,
    name: str | None,
    actor: Actor,
    reason: str,
) -> Effects:
    """Set a bot's or an account's name (``name``), or hide it (None: ``bot-<id>``); its owner
    cannot change it back."""
    async with pool.acquire() as conn, conn.transaction():
        target = await (
            db.lock_bot(conn, target_id) if kind == "bot" else db.lock_account(conn, target_id)
        )
        if target is None:
            raise TargetNotFound(f"there is no {kind} {target_id}")
        chosen = name or hidden_name(kind, target_id)
        candidates = [chosen] if name else [chosen, f"{chosen}-{secrets.token_hex(2)}"]
        for candidate in candidates:
            try:
                async with conn.transaction():  # a savepoint: a taken name leaves no trace
                    if kind == "bot":
                        await db.rename_bot(conn, target_id, candidate)
                    else:
                        await db.rename_account(conn, target_id, candidate)
            except DuplicateName:
                continue
            break
        else:
            raise NameTaken(f"the name {chosen!r} is taken (or too like a taken one)")
        detail: AuditDetail = {"old_name": target.name, "new_name": candidate}
        entry = await log_action(
            conn, actor, rename_action(kind, name is None), kind, target_id, reason, detail
        )
    return Effects(entry=entry)


async def resolve_report(
    pool: asyncpg.Pool, report_id: int, outcome: ReportOutcome, actor: Actor, reason: str
) -> Effects:
    assert actor.account_id is not None
    async with pool.acquire() as conn, conn.transaction():
        report = await db_reports.get_report(conn, report_id, for_update=True)
        if report is None:
            raise TargetNotFound(f"there is no report {report_id}")
        if report.status != "open":
            raise AlreadyDone(f"report {report_id} was {report.status} already")
        await db_reports.resolve(conn, report_id, outcome, actor.account_id)
        detail: AuditDetail = {
            "outcome": outcome,
            "target": f"{report.target_kind} {report.target_id}",
        }
        entry = await log_action(conn, actor, "resolve_report", "report", report_id, reason, detail)
    return Effects(entry=entry)


async def grant_admin(pool: asyncpg.Pool, account_ref: str, actor: Actor, reason: str) -> LogEntry:
    """Make an account an admin: the server's command line only (``truco admin grant``)."""
    return await _set_admin(pool, account_ref, actor, reason, grant=True)


async def revoke_admin(pool: asyncpg.Pool, account_ref: str, actor: Actor, reason: str) -> LogEntry:
    return await _set_admin(pool, account_ref, actor, reason, grant=False)


async def _set_admin(
    pool: asyncpg.Pool, account_ref: str, actor: Actor, reason: str, *, grant: bool
) -> LogEntry:
    async with pool.acquire() as conn, conn.transaction():
        account = await db.find_account(conn, account_ref)
        if account is None:
            raise TargetNotFound(f"there is no account {account_ref!r}")
        changed = await (db.grant_admin if grant else db.revoke_admin)(conn, account.id)
        if not changed:
            raise AlreadyDone(
                f"account {account.id} ({account.name}) "
                + ("is an admin already" if grant else "is not an admin")
            )
        action: Action = "grant_admin" if grant else "revoke_admin"
        return await log_action(
            conn, actor, action, "account", account.id, reason, {"name": account.name}
        )
