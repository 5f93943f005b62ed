"""The ladders: a bot's owner enters it, and the matchmaker keeps it playing rated matches
chosen for what they teach about the ranking (:mod:`services.ladder.matchmaker`).

* :func:`join` / :func:`leave` / :func:`update`: the owner's controls (an unavailable bot
  cannot join, and a bot is given matches only once it has answered a health check; entries per account and pool are capped;
  an hourly cap the owner may lower; resuming a paused entry);
* :func:`tick`: one run of the matchmaker over every ladder (beat, under a lease): reveal the
  days that are over, then, unless tournament, challenge or test matches are waiting to be
  played, insert the matches it picks (rated, the day's derived seeds) and return their ids;
* :func:`after_result`: a ladder match's result counts for its bots' health on the ladder
  (walkovers or forfeits in a row pause a bot, with the cause shown to its owner).

A ladder match is 1v1 (or individual 2v2, four bots of four owners) of one game to 15 points
with the default rules (:func:`services.ladder.match_rules.ladder_rules`), rated in the pool like any rated match. Its
seed derives from the day's master seed (:func:`services.domain.seeds.ladder_seed`), committed
when the day's first match is made and revealed when the day is over and its matches have
stopped; ``truco verify ladder`` checks a day.
"""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime

import asyncpg
import msgspec

from arena.game.deals import INDEPENDENT
from services.base.config import LadderSettings, WorkerSettings
from services.db import bots as db_bots
from services.db import ladder as db_ladder
from services.db import matches as db_matches
from services.db.accounts import Connection
from services.db.ladder import LadderEntry
from services.db.matches import LadderPlace, StoredMatch
from services.domain import INDIVIDUAL, TEAM, seeds
from services.domain.result import StoredResult
from services.flow.errors import BotNotFound, BotUnavailable, FlowError
from services.flow.ladder_table import candidates, read_table
from services.ladder.cooldown import resumable_at
from services.ladder.health import failure_of
from services.ladder.match_rules import LADDER_GAMES, ladder_rules, players_of
from services.ladder.matchmaker import pick_matches
from services.ladder.model import LADDER_POOLS, LadderPool, MatchmakerRules, Pick
from services.ladder.placement import first_estimates
from services.ladder.table import ladder_bots

logger = logging.getLogger("services.flow")


class NotYourBot(FlowError):
    """The caller does not own the bot."""


class LadderFull(FlowError):
    """The account has as many bots on this ladder as it may."""


class NotOnLadder(FlowError):
    """The bot is not on this ladder."""


class ResumeTooSoon(FlowError):
    """The bot was paused; it may be resumed (or join this ladder again) only at ``until``."""

    def __init__(self, message: str, until: datetime) -> None:
        super().__init__(message)
        self.until = until


async def _cooled_down(
    conn: Connection, ladder: LadderPool, bot_id: int, settings: LadderSettings, doing: str
) -> None:
    """Raise :class:`ResumeTooSoon` while the bot's last pause's cooldown lasts
    (:mod:`services.ladder.cooldown`)."""
    pauses, last = await db_ladder.pause_record(conn, ladder, bot_id)
    until = resumable_at(pauses, last, settings.resume_cooldown_s, settings.resume_cooldown_max_s)
    if until is not None and datetime.now(UTC) < until:
        raise ResumeTooSoon(
            f"bot {bot_id} was paused on the {ladder} ladder ({pauses} pause(s) within a "
            f"week); it may {doing} from {until.isoformat(timespec='seconds')} on",
            until,
        )


async def join(
    pool: asyncpg.Pool,
    ladder: LadderPool,
    bot_id: int,
    account_id: int,
    settings: LadderSettings,
    hourly_cap: int | None = None,
) -> LadderEntry:
    """Enter the caller's bot (again: nothing changes). Raises :class:`BotNotFound`,
    :class:`NotYourBot`, :class:`BotUnavailable` (it failed its last health checks),
    :class:`LadderFull`."""
    async with pool.acquire() as conn, conn.transaction():
        bot = await db_bots.get_bot(conn, bot_id)
        if bot is None or bot.status == "deleted":
            raise BotNotFound(f"there is no bot {bot_id}")
        if bot.owner_id != account_id:
            raise NotYourBot(f"bot {bot_id} is not yours")
        if bot.status != "active":
            raise BotUnavailable(
                f"bot {bot_id} is {bot.status}: it failed its last health checks; it may join "
                "once it answers again (`truco check` shows what the platform sees)"
            )
        existing = await db_ladder.get_entry(conn, ladder, bot_id)
        if existing is not None:
            return existing
        await _cooled_down(conn, ladder, bot_id, settings, "join again")
        await db_ladder.lock_owner(conn, ladder, account_id)
        if (
            await db_ladder.entries_of_owner(conn, ladder, account_id)
            >= settings.entries_per_account
        ):
            raise LadderFull(
                f"your account has {settings.entries_per_account} bots on the {ladder} ladder, "
                "the most it may; take one off first"
            )
        cap = min(hourly_cap or settings.hourly_cap, settings.hourly_cap)
        await db_ladder.insert_entry(conn, ladder, bot_id, cap)
        entry = await db_ladder.get_entry(conn, ladder, bot_id)
        assert entry is not None
        return entry


async def leave(pool: asyncpg.Pool, ladder: LadderPool, bot_id: int, account_id: int) -> None:
    """Take the caller's bot off the ladder (a match it is playing finishes and is rated)."""
    async with pool.acquire() as conn, conn.transaction():
        entry = await _own_entry(conn, ladder, bot_id, account_id)
        await db_ladder.delete_entry(conn, ladder, entry.bot_id)


async def update(
    pool: asyncpg.Pool,
    ladder: LadderPool,
    bot_id: int,
    account_id: int,
    settings: LadderSettings,
    *,
    hourly_cap: int | None = None,
    resume: bool = False,
) -> LadderEntry:
    """Lower (or raise, up to the platform's cap) the bot's hourly cap; resume it if paused
    (:class:`ResumeTooSoon` while its pause's cooldown lasts)."""
    async with pool.acquire() as conn, conn.transaction():
        own = await _own_entry(conn, ladder, bot_id, account_id)
        if resume and own.paused_at is not None:
            await _cooled_down(conn, ladder, bot_id, settings, "be resumed")
        cap = None if hourly_cap is None else min(hourly_cap, settings.hourly_cap)
        await db_ladder.update_entry(conn, ladder, bot_id, hourly_cap=cap, resume=resume)
        entry = await db_ladder.get_entry(conn, ladder, bot_id)
        assert entry is not None
        return entry


async def bot_deleted(pool: asyncpg.Pool, bot_id: int) -> int:
    """A deleted bot leaves every ladder (its rated matches and rating stay); how many."""
    async with pool.acquire() as conn:
        return await db_ladder.delete_entries_of_bot(conn, bot_id)


async def _own_entry(
    conn: Connection, ladder: LadderPool, bot_id: int, account_id: int
) -> LadderEntry:
    entry = await db_ladder.get_entry(conn, ladder, bot_id)
    if entry is None:
        raise NotOnLadder(f"bot {bot_id} is not on the {ladder} ladder")
    if entry.owner_id != account_id:
        raise NotYourBot(f"bot {bot_id} is not yours")
    return entry


async def tick(
    pool: asyncpg.Pool,
    settings: LadderSettings,
    now: datetime,
    *,
    bot_cap: int = WorkerSettings().bot_max_matches,
) -> list[int]:
    """One run of the matchmaker over every ladder; the ids of the matches to queue.

    Tournament, challenge and test matches come first: while one is queued and waiting for a
    worker, no ladder match starts; a queued one that waits for its own bot (which already
    plays ``bot_cap`` matches, ``TRUCO_BOT_MAX_MATCHES``) holds back only its bots, so one
    account's queue cannot freeze every ladder (:func:`services.db.ladder.others_waiting`)."""
    today = now.astimezone(UTC).date()
    created: list[int] = []
    async with pool.acquire() as conn:
        for ladder in LADDER_POOLS:
            revealed = await db_ladder.reveal_days(conn, ladder, today)
            for day in revealed:
                logger.info("ladder %s: day %s revealed", ladder, day)
        waiting = await db_ladder.others_waiting(conn, bot_cap)
    if waiting.for_workers:
        return []  # tournaments, challenges and tests come first
    for ladder in LADDER_POOLS:
        async with pool.acquire() as conn:
            flying = sum([await db_ladder.in_flight(conn, p) for p in LADDER_POOLS])
        slots = settings.in_flight - flying
        if slots <= 0:
            break
        created += await _start(pool, ladder, today, now, settings, slots, waiting.bots)
    return created


async def _start(
    pool: asyncpg.Pool,
    ladder: LadderPool,
    today: date,
    now: datetime,
    settings: LadderSettings,
    slots: int,
    held: frozenset[int] = frozenset(),
) -> list[int]:
    async with pool.acquire() as conn:
        read = await read_table(conn, ladder, now, settings)
        firsts = first_estimates(candidates(read.rows), read.standings)
        if firsts:  # the estimates shown stay near these from now on
            await db_ladder.keep_first_estimates(conn, ladder, firsts)
    bots = [
        msgspec.structs.replace(
            bot,
            pair_limit=standing.pair_limit,
            # a bot whose tournament or challenge match waits plays that one first
            available=bot.available and bot.bot_id not in held,
        )
        for bot, standing in zip(
            ladder_bots(read.rows, settings.hourly_cap, now, settings.placing_at_once),
            read.standings,
            strict=True,
        )
    ]
    rules = MatchmakerRules(slots=slots, pair_per_day=settings.pair_per_day, linked=read.linked)
    picks = pick_matches(bots, read.met_today, rules, players=players_of(ladder))
    if not picks:
        return []
    async with pool.acquire() as conn, conn.transaction():
        day = await _day(conn, ladder, today)
        first = await db_ladder.take_numbers(conn, ladder, today, len(picks))
        ids = []
        for k, pick in enumerate(picks):
            ids.append(await _insert(conn, ladder, day, first + k, pick))
            await db_ladder.note_started(conn, ladder, pick.seats, placing=pick.reason == "placing")
    for match_id, pick in zip(ids, picks, strict=True):
        logger.info(
            "ladder %s: match %s (%s, value %.4f): %s",
            ladder,
            match_id,
            pick.reason,
            pick.value,
            pick.detail,
        )
    return ids


async def _day(conn: Connection, ladder: LadderPool, day: date) -> db_ladder.LadderDay:
    """The day's row, locked; made (its master seed drawn and committed) on first use."""
    found = await db_ladder.day_for_update(conn, ladder, day)
    if found is None:
        master = seeds.new_master_seed()
        await db_ladder.insert_day(conn, ladder, day, master, seeds.commitment(master))
        found = await db_ladder.day_for_update(conn, ladder, day)
    assert found is not None
    return found


async def _insert(
    conn: Connection, ladder: LadderPool, day: db_ladder.LadderDay, number: int, pick: Pick
) -> int:
    seats = pick.seats
    return await db_matches.insert_match(
        conn,
        bots=seats,
        mode="2v2" if len(seats) == 4 else "1v1",
        seed=seeds.ladder_seed(day.master_seed, ladder, day.day.isoformat(), number, seats),
        rated=True,
        games_per_match=LADDER_GAMES,
        rules=ladder_rules(ladder),
        deals=INDEPENDENT,
        partnership=INDIVIDUAL if len(seats) == 4 else TEAM,
        seed_scheme=seeds.DERIVED,
        ladder=LadderPlace(ladder, day.day, number, pick.reason, pick.detail),
    )


async def after_result(
    conn: Connection,
    match: StoredMatch,
    result: StoredResult,
    pause_after: int,
    *,
    rated: bool = False,
) -> list[int]:
    """Count a ladder match for its bots' health on the ladder (and, ``rated``, in their rated
    ladder matches); the bots it paused."""
    if match.ladder_pool is None:
        return []
    if rated:
        await db_ladder.note_rated(conn, match.ladder_pool, match.bots)
    paused = []
    for slot, bot in enumerate(match.bots):
        failed = failure_of(result, slot % 2)
        if await db_ladder.record_outcome(
            conn, match.ladder_pool, bot, failed=failed, pause_after=pause_after
        ):
            paused.append(bot)
            logger.info("ladder %s: bot %s paused (%s)", match.ladder_pool, bot, failed)
    return paused
