"""A tournament's life: create, enter, start (seeded by rating), cancel; beat's due
tournaments; a bot that leaves is withdrawn from the events it plays."""

from __future__ import annotations

import dataclasses
import logging
from datetime import datetime
from typing import NamedTuple

import asyncpg
import msgspec

from arena.game.deals import MIRRORED
from services.base.config import SizeLimits
from services.db import bots as db_bots
from services.db import matches as db_matches
from services.db import tournaments as db_tournaments
from services.db.accounts import Connection
from services.db.tournaments import Tournament
from services.domain import FORMATS, INDIVIDUAL, MODES, TEAM, Format, Mode, Partnership, seeds
from services.domain.ratings import rating_pool
from services.domain.tournament_settings import TournamentSettings
from services.flow.advance import advance, forfeit
from services.flow.errors import (
    MIRRORED_ONLY_ONE_OWNER,
    AlreadyEntered,
    BotNotFound,
    BotUnavailable,
    EntryWithdrawn,
    MirroredDealsRefused,
    NotEnoughEntrants,
    NotEntered,
    NotOrganiser,
    TournamentFull,
    TournamentNotFound,
    TournamentStateError,
)
from services.flow.fair_play import Floors, refusal
from services.flow.quota_check import Check
from services.flow.settings import check_duration, check_partnership, mode_rules
from services.tournaments import individual
from services.tournaments.formats import get_format

logger = logging.getLogger("services.flow")


async def create_tournament(
    pool: asyncpg.Pool,
    *,
    organiser_id: int,
    name: str,
    format: Format,
    mode: Mode,
    settings: TournamentSettings,
    start_at: datetime | None = None,
    partnership: Partnership = TEAM,
) -> Tournament:
    """A new tournament in ``registering``. Raises RulesError / ValueError on bad input.

    ``partnership`` says how a 2v2 side is filled: ``team`` (one bot plays both seats) or
    ``individual`` (a bot per seat, partnerships formed by the event; Swiss and round robin)."""
    if format not in FORMATS:
        raise ValueError(f"unknown format {format!r}")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    check_partnership(format, mode, partnership)
    rules = mode_rules(mode, settings.rules)
    check_duration(settings, rules, 4 if partnership == INDIVIDUAL else 2)
    stored = msgspec.structs.replace(settings, rules=rules)
    return await db_tournaments.create_tournament(
        pool,
        organiser_id=organiser_id,
        name=name,
        format=format,
        mode=mode,
        settings=stored,
        start_at=start_at,
        partnership=partnership,
        master_seed=seeds.new_master_seed(),
    )


async def enter_tournament(
    pool: asyncpg.Pool,
    tournament_id: int,
    bot_id: int,
    *,
    entered_by: int | None = None,
    floors: Floors | None = None,
    check: Check | None = None,
    most: int = SizeLimits().entries_per_event,
) -> db_tournaments.Entry:
    """Enter a bot in a registering tournament (``entered_by``: the account that does).

    A bot of another owner than the organiser must accept the event's settings
    (:func:`services.flow.fair_play.refusal` under ``floors``; None: only the bot's own
    minimum timeout; raises :class:`SettingsRefused`), and ``check(conn)`` (the organiser's
    quota, :func:`services.flow.fair_play.open_entry_quota`) runs before someone else than its
    owner enters it. A withdrawn entry is entered again only by the bot's owner
    (:class:`EntryWithdrawn` otherwise). The tournament must have fewer than ``most``
    entries (:class:`TournamentFull`; the row lock makes concurrent entries count one after
    the other)."""
    async with pool.acquire() as conn, conn.transaction():
        tournament = await db_tournaments.get_tournament(conn, tournament_id, lock="update")
        if tournament is None:
            raise TournamentNotFound(f"there is no tournament {tournament_id}")
        if tournament.status != "registering":
            raise TournamentStateError(
                f"tournament {tournament_id} is {tournament.status}; entries are closed"
            )
        bot = await db_bots.get_bot(conn, bot_id)
        if bot is None:
            raise BotNotFound(f"there is no bot {bot_id}")
        if bot.status != "active":
            raise BotUnavailable(f"bot {bot_id} is {bot.status}")
        if tournament.settings.deals == MIRRORED and bot.owner_id != tournament.organiser_id:
            raise MirroredDealsRefused(
                f"tournament {tournament_id} deals mirrored games, so only its organiser's bots "
                f"may enter; {MIRRORED_ONLY_ONE_OWNER}"
            )
        if await db_tournaments.entry_count(conn, tournament_id) >= most:
            raise TournamentFull(
                f"tournament {tournament_id} has {most} entries, the most an event may hold "
                "(TRUCO_ENTRIES_PER_EVENT)"
            )
        existing = await db_tournaments.get_entry(conn, tournament_id, bot_id)
        if existing is not None and existing.withdrawn_at is None:
            raise AlreadyEntered(f"bot {bot_id} is already entered in tournament {tournament_id}")
        if existing is not None and entered_by is not None and entered_by != bot.owner_id:
            raise EntryWithdrawn(
                f"bot {bot_id} was withdrawn from tournament {tournament_id}; only its owner "
                "may enter it again"
            )
        if bot.owner_id != tournament.organiser_id:
            refused = refusal(tournament.settings, floors, bot_id, bot.min_timeout_ms)
            if refused is not None:
                raise refused
            if check is not None and entered_by != bot.owner_id:  # the organiser enters it
                await check(conn)
        if existing is not None:
            entry = await db_tournaments.reinstate_entry(conn, tournament_id, bot_id, entered_by)
        else:
            entry = await db_tournaments.add_entry(conn, tournament_id, bot_id, entered_by)
        if entry is None:
            raise AlreadyEntered(f"bot {bot_id} is already entered in tournament {tournament_id}")
        return entry


async def withdraw_entry(pool: asyncpg.Pool, tournament_id: int, bot_id: int) -> None:
    """Withdraw a bot from a registering tournament (its owner or the organiser asks; the API
    checks who). Raises :class:`TournamentNotFound`, :class:`TournamentStateError` (it has
    started: a bot leaves a running event only by becoming unavailable or deleted) or
    :class:`NotEntered`."""
    async with pool.acquire() as conn, conn.transaction():
        tournament = await db_tournaments.get_tournament(conn, tournament_id, lock="update")
        if tournament is None:
            raise TournamentNotFound(f"there is no tournament {tournament_id}")
        if tournament.status != "registering":
            raise TournamentStateError(
                f"tournament {tournament_id} is {tournament.status}; a bot can be withdrawn "
                "only before the event starts"
            )
        if not await db_tournaments.withdraw_entry(conn, tournament_id, bot_id):
            raise NotEntered(f"bot {bot_id} is not entered in tournament {tournament_id}")


async def bot_closed(pool: asyncpg.Pool, bot_id: int, owner_id: int) -> list[int]:
    """Its owner closed the bot (``open`` false): it leaves every registering event of
    another organiser that someone else than its owner entered it into. The events' ids."""
    async with pool.acquire() as conn, conn.transaction():
        return await db_tournaments.withdraw_from_others_registering(conn, bot_id, owner_id)


async def due_tournaments(
    pool: asyncpg.Pool, now: datetime, floors: Floors | None = None
) -> list[int]:
    """Registering tournaments whose ``start_at`` has come, for beat to start.

    A due tournament with fewer than two available bots entered (counted as
    :func:`start_tournament` will, under ``floors``) cannot start and never will (entries
    close at the start time): it is cancelled here and left out, instead of failing to start
    on every beat tick.
    """
    ready = []
    for tournament_id in await db_tournaments.due_tournaments(pool, now):
        async with pool.acquire() as conn, conn.transaction():
            tournament = await db_tournaments.get_tournament(conn, tournament_id, lock="update")
            if tournament is None or tournament.status != "registering":
                continue
            playing, _ = await _field(conn, tournament, floors)
            needed = _min_entrants(tournament)
            if len(playing) >= needed:
                ready.append(tournament_id)
                continue
            await db_tournaments.cancel_tournament(conn, tournament_id)
            logger.info(
                "tournament %s cancelled at its start time: fewer than %s available bots entered",
                tournament_id,
                needed,
            )
    return ready


async def cancel_tournament(pool: asyncpg.Pool, tournament_id: int) -> list[int]:
    """``registering`` or ``running`` -> ``cancelled``; its unfinished matches (pending,
    queued, even running) become ``cancelled`` and a result that arrives later for them is not
    stored (no Elo change); a sent one is ``stopping`` until its worker stops (the caller asks
    the workers to stop these matches: ``services.worker.stops``). Finished matches, results and ratings stay. Returns the ids of the
    cancelled matches. Raises :class:`TournamentNotFound`, :class:`TournamentStateError`."""
    async with pool.acquire() as conn, conn.transaction():
        tournament = await db_tournaments.get_tournament(conn, tournament_id, lock="update")
        if tournament is None:
            raise TournamentNotFound(f"there is no tournament {tournament_id}")
        if not await db_tournaments.cancel_tournament(conn, tournament_id):
            raise TournamentStateError(
                f"tournament {tournament_id} is {tournament.status}; only a registering or "
                "running tournament can be cancelled"
            )
        return await db_matches.cancel_open_matches(conn, tournament_id)


async def start_tournament(
    pool: asyncpg.Pool,
    tournament_id: int,
    floors: Floors | None = None,
    *,
    organiser_id: int | None = None,
) -> list[int]:
    """``registering`` -> ``running``: seed the field, create the first matches.

    Entries whose bot is not active now are withdrawn and left out, and so are entries of
    other owners' bots that no longer accept the event's settings (their owner raised
    ``min_timeout_ms``; ``floors`` rose; None: no floors) or that someone else than their
    owner entered and that are closed now (:mod:`services.flow.fair_play`). Seeds follow the
    rating in the tournament's mode (then entry time). Returns the ids of the matches to queue (byes and
    forfeits are decided already). Raises :class:`TournamentNotFound`, :class:`NotOrganiser`
    (``organiser_id`` given and not the tournament's), :class:`TournamentStateError` or
    :class:`NotEnoughEntrants`.

    The row is read once, under its lock, and handed on (:func:`advance`); the matches'
    orders need no read of it either (each match holds its time limits: migration 0027).
    """
    async with pool.acquire() as conn, conn.transaction():
        tournament = await db_tournaments.get_tournament(conn, tournament_id, lock="update")
        if tournament is None:
            raise TournamentNotFound(f"there is no tournament {tournament_id}")
        if organiser_id is not None and tournament.organiser_id != organiser_id:
            raise NotOrganiser("only the tournament's organiser may start it")
        if tournament.status != "registering":
            raise TournamentStateError(
                f"tournament {tournament_id} is {tournament.status}, not registering"
            )
        settings = tournament.settings
        playing, gone = await _field(conn, tournament, floors)
        needed = _min_entrants(tournament)
        if len(playing) < needed:
            raise NotEnoughEntrants(
                f"tournament {tournament_id} has {len(playing)} available bot(s); it needs {needed}"
            )
        if settings.deals == MIRRORED:
            foreign = await db_tournaments.entries_not_owned_by(
                conn, tournament_id, tournament.organiser_id
            )
            if foreign:
                raise MirroredDealsRefused(
                    f"tournament {tournament_id} deals mirrored games but bot(s) "
                    f"{', '.join(map(str, foreign))} belong to another owner; "
                    + MIRRORED_ONLY_ONE_OWNER
                )
        if gone:
            await db_tournaments.withdraw_entries(conn, tournament_id, gone)
        rating = await db_bots.ratings(conn, [e.bot_id for e in playing])
        pool_name = rating_pool(tournament.mode, tournament.partnership)
        ranked = sorted(
            playing, key=lambda e: (-rating[e.bot_id][pool_name], e.entered_at, e.bot_id)
        )
        await db_tournaments.set_seeds(
            conn, tournament_id, {e.bot_id: k + 1 for k, e in enumerate(ranked)}
        )
        rounds = get_format(tournament.format).settle_rounds(settings.rounds, len(playing))
        settings = msgspec.structs.replace(settings, rounds=rounds)
        await db_tournaments.set_running(conn, tournament_id, settings)
        running = dataclasses.replace(tournament, status="running", settings=settings)
        return await advance(conn, running)


async def _field(
    conn: Connection, tournament: Tournament, floors: Floors | None
) -> tuple[list[db_tournaments.Entry], list[int]]:
    """The entries that play if the event starts now, and the bots left out: unavailable ones,
    and other owners' bots that do not accept its settings (:mod:`services.flow.fair_play`)
    or that someone else than their owner entered and that are closed now. Withdrawn entries
    are in neither."""
    entries = [
        e for e in await db_tournaments.entries(conn, tournament.id) if e.withdrawn_at is None
    ]
    settings = tournament.settings
    unfit = {
        f.bot_id
        for f in await db_tournaments.foreign_entries(conn, tournament.id, tournament.organiser_id)
        if (not f.open and f.by_other)
        or refusal(settings, floors, f.bot_id, f.min_timeout_ms) is not None
    }
    playing = [e for e in entries if e.bot_status == "active" and e.bot_id not in unfit]
    gone = [e.bot_id for e in entries if e.bot_status != "active" or e.bot_id in unfit]
    return playing, gone


def _min_entrants(tournament: Tournament) -> int:
    """Available bots a tournament needs to start (and to go on): four for individual 2v2."""
    return individual.MIN_ENTRANTS if tournament.partnership == INDIVIDUAL else 2


class Withdrawal(NamedTuple):
    """What a bot's withdrawal did: the new matches its forfeits made ready (to queue), and
    the matches it decided without play (whose workers are to stop)."""

    ready: list[int]
    forfeited: list[int]


async def withdraw_bot(pool: asyncpg.Pool, bot_id: int) -> Withdrawal:
    """A bot left (unavailable, deleted): in every running tournament it plays, it is withdrawn
    and forfeits its unfinished matches (no Elo change); the events go on. A forfeited match
    that was already sent is ``stopping`` until its worker stops."""
    new: list[int] = []
    forfeited: list[int] = []
    async with pool.acquire() as conn, conn.transaction():
        for tournament_id in await db_tournaments.running_tournaments_of_bot(conn, bot_id):
            await db_tournaments.withdraw_entries(conn, tournament_id, [bot_id])
            for match_id in await db_matches.open_matches_of_bot(conn, bot_id, tournament_id):
                match = await db_matches.get_match(conn, match_id, for_update=True)
                assert match is not None
                await forfeit(conn, match, {bot_id})
                forfeited.append(match_id)
            tournament = await db_tournaments.get_tournament(conn, tournament_id)
            assert tournament is not None
            new += await advance(conn, tournament)
    return Withdrawal(new, forfeited)
