"""The tournament and match workflow over the database.

Used by the API (create, enter, start, challenge) and by the Celery workers (``match_specs``
before running matches, ``record_result`` after, ``withdraw_bot`` and ``due_tournaments`` from
beat). The pairing, standings and Elo arithmetic are the pure modules
(:mod:`services.flow_pairing`, :mod:`services.tournaments`, :mod:`services.ratings`); all SQL
is in :mod:`services.db`.

Life of a tournament: ``registering`` (entries) -> :func:`start_tournament` (seeds by rating,
round 1 or the first bracket matches) -> ``running``: every :func:`record_result` stores the
result, the replay and the Elo change in one transaction and, when that completes a round
(Swiss, round robin) or makes bracket matches ready, creates the next matches and returns
their ids for the caller to queue -> ``finished`` after the last round or when the bracket
has a champion. The organiser may cancel it while registering or running
(:func:`cancel_tournament`); a scheduled one that reaches its start time with fewer than two
available bots is cancelled by :func:`due_tournaments`.

Concurrency: each call is one transaction. Tournament rows are locked before match rows,
match rows before rating rows (rating rows in bot id order), so concurrent results of one
round are serialised on the tournament and never deadlock; the round is paired exactly once.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from typing import Annotated, Any

import asyncpg
import msgspec

from arena.deals import INDEPENDENT, MEMORY_RISK, MIRRORED, DealsMode
from arena.match import MatchSettings, default_games_per_match
from arena.replay import Replay
from engine.errors import RulesError
from engine.rules import Rules
from services import flow_individual as fi
from services import flow_pairing as fp
from services import limits, seeds
from services.db import bots as db_bots
from services.db import matches as db_matches
from services.db import ratings as db_ratings
from services.db import tournaments as db_tournaments
from services.db.accounts import Connection
from services.db.matches import StoredMatch
from services.db.tournaments import Tournament
from services.domain import (
    CANCELLED,
    FORMATS,
    INDIVIDUAL,
    MODES,
    PARTNERSHIPS,
    PLAYERS,
    TEAM,
    BotResult,
    Format,
    Mode,
    Partnership,
    SideResult,
)
from services.ratings import k_factor, match_delta, rating_pool
from services.secretbox import SecretBox
from services.tournaments.event import Plan, Planned, SeededEntrant, StandingRow
from services.tournaments.formats import get_format, table_format

logger = logging.getLogger("services.flow")

SEED_BITS = 63
WITHDRAWN = "withdrawn"


# --- errors ---------------------------------------------------------------------------------


class FlowError(Exception):
    """The request does not fit the current state (the API answers 409, 404 for NotFound)."""


class NotFound(FlowError):
    """No such tournament, match or bot."""


class TournamentNotFound(NotFound):
    pass


class MatchNotFound(NotFound):
    pass


class BotNotFound(NotFound):
    pass


class TournamentStateError(FlowError):
    """The tournament is not in the status this needs (e.g. starting a running event)."""


class NotEnoughEntrants(FlowError):
    """Fewer than two available bots entered."""


class AlreadyEntered(FlowError):
    pass


class BotUnavailable(FlowError):
    """The bot is deleted or unavailable (failing health checks)."""


class SameBot(FlowError):
    """A challenge between a bot and itself."""


class SettingsTooLong(ValueError):
    """A match under these settings could outlast the bot-calling worker's cap (API: 422)."""


class MirroredDealsRefused(ValueError):
    """Mirrored deals asked for, or a bot entered in a mirrored event, where not every bot
    belongs to one owner (API: 422)."""


class ResultMismatch(FlowError):
    """A replay sent for a match that was not played under the match's seed and deals."""


MIRRORED_ONLY_ONE_OWNER = (
    "mirrored deals are only for bots of one owner: " + MEMORY_RISK + "; use independent deals"
)


# --- value types ----------------------------------------------------------------------------


class EntrantSpec(msgspec.Struct, frozen=True):
    """A bot as the match runner needs it; ``secret`` is the decrypted signing secret and
    ``previous_secret`` the one it replaced, while the rotation's grace period lasts."""

    bot_id: int
    name: str
    url: str
    secret: str
    previous_secret: str | None = None

    def __repr__(self) -> str:  # the secret must never reach a log line or an error message
        return (
            f"EntrantSpec(bot_id={self.bot_id}, name={self.name!r}, url={self.url!r}, secret=***)"
        )


class MatchSpec(msgspec.Struct, frozen=True):
    """What a worker needs to run a match: entrants in slot order (one bot per side, side 0
    first, in 1v1 and team 2v2 where a bot fills both seats of its side; four bots, one per
    seat, in individual 2v2, entrant k playing for side k % 2)."""

    match_id: int
    seed: int
    settings: MatchSettings
    entrants: list[EntrantSpec]


class TournamentSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The ``tournaments.settings`` document.

    ``rounds`` is the Swiss round count (None: :func:`services.tournaments.swiss_format.default_swiss_rounds`
    of the field at start, stored then); other formats ignore it (their size fixes it).
    ``rules`` is the engine's rules object, normalised for the mode.
    """

    rules: dict[str, Any] = msgspec.field(default_factory=dict)
    rounds: Annotated[int, msgspec.Meta(ge=1, le=64)] | None = None
    games_per_match: Annotated[int, msgspec.Meta(ge=1, le=100)] = default_games_per_match(2)
    timeout_ms: Annotated[int, msgspec.Meta(ge=10, le=60_000)] = 1000
    time_bank_ms: Annotated[int, msgspec.Meta(ge=10, le=3_600_000)] = 30_000
    fault_limit: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 5
    third_place: bool = False
    deals: DealsMode = INDEPENDENT
    rated: bool = True


def mode_rules(mode: Mode, rules: dict[str, Any] | None) -> Rules:
    """The engine rules for ``mode``: ``players`` follows the mode unless given (and then it
    must agree). Raises :class:`~engine.errors.RulesError` naming the key."""
    parsed = Rules.from_dict(rules)
    wanted = PLAYERS[mode]
    if rules and "players" in rules and parsed.players != wanted:
        raise RulesError(
            f"rules.players must be {wanted} in {mode} mode, not {parsed.players}", "players"
        )
    return msgspec.structs.replace(parsed, players=wanted)


def new_seed() -> int:
    """A random 63-bit match seed (fits PostgreSQL's bigint): only for the remaining matches
    of a tournament created before seeds were committed (migration 0008), marked legacy."""
    return secrets.randbits(SEED_BITS)


def planned_seed(tournament: Tournament, planned: Planned) -> tuple[int, seeds.SeedScheme]:
    """The seed of a planned match and how it was made: derived from the tournament's master
    seed and the match's place (services.seeds), or random for a tournament without one."""
    if tournament.master_seed is None:
        return new_seed(), seeds.LEGACY
    seed = seeds.tournament_match_seed(
        tournament.master_seed, tournament.id, planned.round, planned.board, planned.bracket_match
    )
    return seed, seeds.DERIVED


def default_games(mode: Mode) -> int:
    """Games per match when a tournament or challenge does not say (by mode)."""
    return default_games_per_match(PLAYERS[mode])


def settings_of(tournament: Tournament) -> TournamentSettings:
    return msgspec.convert(tournament.settings, TournamentSettings)


def check_duration(settings: TournamentSettings, rules: Rules, entrants: int = 2) -> None:
    """Raise :class:`SettingsTooLong` when a match's worst case (every bot using all its time;
    ``entrants`` time banks: 4 in individual 2v2) is longer than the worker lets a match run
    (``services.limits``)."""
    match = MatchSettings(
        rules=rules,
        games_per_match=settings.games_per_match,
        timeout_ms=settings.timeout_ms,
        time_bank_ms=settings.time_bank_ms,
        fault_limit=settings.fault_limit,
    )
    if not limits.fits(match, entrants):
        worst = limits.match_worst_case_s(match, entrants)
        raise SettingsTooLong(
            f"a match could take up to {worst:.0f} s (games_per_match {settings.games_per_match}"
            f" x {entrants} time banks of {settings.time_bank_ms} ms plus calls of up to "
            f"{settings.timeout_ms} ms); matches are cut at {limits.MAX_MATCH_S} s: play fewer "
            "games per match or use a shorter timeout"
        )


# --- creating and entering ------------------------------------------------------------------


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
    stored = msgspec.structs.replace(settings, rules=rules.to_dict())
    return await db_tournaments.create_tournament(
        pool,
        organiser_id=organiser_id,
        name=name,
        format=format,
        mode=mode,
        settings=msgspec.to_builtins(stored),
        start_at=start_at,
        partnership=partnership,
        master_seed=seeds.new_master_seed(),
    )


class BadPartnership(ValueError):
    """Individual 2v2 asked for where it does not exist (API: 422 naming ``partnership``)."""


def check_partnership(format: str, mode: str, partnership: str) -> None:
    if partnership not in PARTNERSHIPS:
        raise BadPartnership(f"unknown partnership {partnership!r}: team or individual")
    if partnership == INDIVIDUAL and mode != "2v2":
        raise BadPartnership("partnership individual exists only in 2v2 mode")
    if partnership == INDIVIDUAL and not get_format(format).individual:
        raise BadPartnership(
            "individual 2v2 is played as swiss or round_robin (partners change every round)"
        )


async def enter_tournament(
    pool: asyncpg.Pool, tournament_id: int, bot_id: int
) -> db_tournaments.Entry:
    """Enter a bot in a registering tournament."""
    async with pool.acquire() as conn, conn.transaction():
        tournament = await db_tournaments.get_tournament(conn, tournament_id, lock="share")
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
        if settings_of(tournament).deals == MIRRORED and bot.owner_id != tournament.organiser_id:
            raise MirroredDealsRefused(
                f"tournament {tournament_id} deals mirrored games, so only its organiser's bots "
                f"may enter; {MIRRORED_ONLY_ONE_OWNER}"
            )
        entry = await db_tournaments.add_entry(conn, tournament_id, bot_id)
        if entry is None:
            raise AlreadyEntered(f"bot {bot_id} is already entered in tournament {tournament_id}")
        return entry


async def due_tournaments(pool: asyncpg.Pool, now: datetime) -> list[int]:
    """Registering tournaments whose ``start_at`` has come, for beat to start.

    A due tournament with fewer than two available bots entered cannot start and never will
    (entries close at the start time): it is cancelled here and left out, instead of failing
    to start on every beat tick.
    """
    ready = []
    for tournament_id in await db_tournaments.due_tournaments(pool, now):
        async with pool.acquire() as conn, conn.transaction():
            tournament = await db_tournaments.get_tournament(conn, tournament_id, lock="update")
            if tournament is None or tournament.status != "registering":
                continue
            entries = await db_tournaments.entries(conn, tournament_id)
            needed = _min_entrants(tournament)
            if sum(e.bot_status == "active" for e in entries) >= needed:
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
    stored (no Elo change). Finished matches, results and ratings stay. Returns the ids of the
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


# --- starting -------------------------------------------------------------------------------


async def start_tournament(pool: asyncpg.Pool, tournament_id: int) -> list[int]:
    """``registering`` -> ``running``: seed the field, create the first matches.

    Entries whose bot is not active now are withdrawn and left out. Seeds follow the rating in
    the tournament's mode (then entry time). Returns the ids of the matches to queue (byes and
    forfeits are decided already). Raises :class:`TournamentNotFound`,
    :class:`TournamentStateError` or :class:`NotEnoughEntrants`.
    """
    async with pool.acquire() as conn, conn.transaction():
        tournament = await db_tournaments.get_tournament(conn, tournament_id, lock="update")
        if tournament is None:
            raise TournamentNotFound(f"there is no tournament {tournament_id}")
        if tournament.status != "registering":
            raise TournamentStateError(
                f"tournament {tournament_id} is {tournament.status}, not registering"
            )
        entries = await db_tournaments.entries(conn, tournament_id)
        gone = [e.bot_id for e in entries if e.bot_status != "active"]
        playing = [e for e in entries if e.bot_status == "active"]
        needed = _min_entrants(tournament)
        if len(playing) < needed:
            raise NotEnoughEntrants(
                f"tournament {tournament_id} has {len(playing)} available bot(s); it needs {needed}"
            )
        settings = settings_of(tournament)
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
        await db_tournaments.set_running(conn, tournament_id, msgspec.to_builtins(settings))
        return await advance(conn, tournament_id)


def _min_entrants(tournament: Tournament) -> int:
    """Available bots a tournament needs to start (and to go on): four for individual 2v2."""
    return fi.MIN_ENTRANTS if tournament.partnership == INDIVIDUAL else 2


# --- matches for the workers ----------------------------------------------------------------


async def match_specs(
    pool: asyncpg.Pool, match_ids: list[int], *, secret_box: SecretBox
) -> list[MatchSpec]:
    """Specs of the open matches among ``match_ids`` (in that order), marked ``queued``
    (``attempts`` + 1). Finished or unknown ids are left out. ``secret_box`` decrypts the
    bots' signing secrets."""
    async with pool.acquire() as conn, conn.transaction():
        queued = set(await db_matches.mark_queued(conn, list(match_ids)))
        rows = {m.id: m for m in await db_matches.get_matches(conn, sorted(queued))}
        bots = await db_matches.entrant_secrets(
            conn, sorted({b for m in rows.values() for b in m.bots})
        )
        events: dict[int, TournamentSettings] = {}
        for tid in sorted({m.tournament_id for m in rows.values() if m.tournament_id}):
            tournament = await db_tournaments.get_tournament(conn, tid)
            assert tournament is not None
            events[tid] = settings_of(tournament)
    specs = []
    for match_id in match_ids:
        match = rows.get(match_id)
        if match is None or match.bot1 is None:
            continue
        event = events.get(match.tournament_id or 0, TournamentSettings())
        settings = MatchSettings(
            rules=Rules.from_dict(match.rules),
            games_per_match=match.games_per_match,
            timeout_ms=event.timeout_ms,
            time_bank_ms=event.time_bank_ms,
            fault_limit=event.fault_limit,
            deals=match.deals,
        )
        entrants = []
        for bot_id in match.bots:
            bot = bots[bot_id]
            previous = (
                None if bot.previous_enc is None else secret_box.decrypt(bot.previous_enc, bot_id)
            )
            secret = secret_box.decrypt(bot.secret_enc, bot_id)
            entrants.append(EntrantSpec(bot_id, bot.name, bot.url, secret, previous))
        specs.append(MatchSpec(match.id, match.seed, settings, entrants))
    return specs


# --- results --------------------------------------------------------------------------------


def result_document(replay: Replay) -> dict[str, Any]:
    """What ``match_results.result`` keeps: per game the score and winner by side, the totals,
    the reason, forfeits, walkovers, faults and the causes of a walkover or forfeit."""
    games = []
    for game in replay.games:
        score = [0, 0]
        for team, entrant in enumerate(game.teams):
            score[entrant] = game.score[team]
        games.append({"score": score, "winner": game.winner})
    result = replay.result
    return {
        "games": games,
        "games_won": list(result.games_won),
        "tantos": list(result.tantos),
        "reason": result.reason,
        "forfeit": result.forfeit,
        "walkover": list(result.walkover),
        "faults": list(result.faults),
        "causes": msgspec.to_builtins(result.causes),
    }


async def mark_running(pool: asyncpg.Pool, match_id: int) -> bool:
    """A worker began playing the match (``truco.match_started``): pending/queued -> running."""
    return await db_matches.mark_running(pool, match_id)


async def record_result(
    pool: asyncpg.Pool, match_id: int, replay: Replay, task_id: str | None = None
) -> list[int]:
    """Store a played match's result, in ONE transaction: the ``match_results`` row (once: a
    second call for the match changes nothing and returns ``[]``), the zlib-compressed replay,
    the match's status and winner, the Elo change of a rated match (not for walkovers), then
    the tournament's next matches. Returns the ids of new matches to queue.

    ``replay.entrants`` are in slot order (as :func:`match_specs` gave them).
    """
    document = msgspec.json.encode(replay)
    async with pool.acquire() as conn, conn.transaction():
        peek = await db_matches.get_match(conn, match_id)
        if peek is None:
            raise MatchNotFound(f"there is no match {match_id}")
        if peek.tournament_id is not None:
            await db_tournaments.get_tournament(conn, peek.tournament_id, lock="update")
        match = await db_matches.get_match(conn, match_id, for_update=True)
        assert match is not None
        if match.finished or match.bot1 is None or match.status == CANCELLED:
            return []
        if (replay.seed, replay.deals) != (match.seed, match.deals):
            raise ResultMismatch(
                f"match {match_id} has seed {match.seed} and {match.deals} deals; the replay "
                f"was played with seed {replay.seed} and {replay.deals} deals"
            )
        winner = replay.result.winner
        stored = await db_matches.insert_result(
            conn, match_id, winner_side=winner, result=result_document(replay), task_id=task_id
        )
        if not stored:
            return []
        await db_matches.store_replay(conn, match_id, document)
        await db_matches.finish_match(conn, match_id, status="done", winner_side=winner)
        if match.rated and replay.result.reason != "walkover":
            await _rate(conn, match, winner)
        if match.tournament_id is None:
            return []
        return await advance(conn, match.tournament_id)


_RESULT_OF_SIDE_A: dict[SideResult, BotResult] = {"a": "win", "b": "loss", "draw": "draw"}
_SWAPPED: dict[SideResult, SideResult] = {"a": "b", "b": "a", "draw": "draw"}


async def _rate(conn: Connection, match: StoredMatch, winner_side: int | None) -> None:
    """One Elo update (services.ratings rules): a side is one bot (1v1, team 2v2) or the two
    bots of an individual 2v2 side, rated as their mean; every bot of a side moves by its
    side's delta, in the match's rating pool."""
    assert match.bot1 is not None
    pool_name = rating_pool(match.mode, match.partnership)
    stored = await db_ratings.lock_ratings(conn, pool_name, list(match.bots))
    sides = (
        [stored[b] for b in match.side_bots(0)],
        [stored[b] for b in match.side_bots(1)],
    )
    result: SideResult = "draw" if winner_side is None else ("a" if winner_side == 0 else "b")
    delta = match_delta(
        [r.rating for r in sides[0]],
        [r.rating for r in sides[1]],
        [k_factor(r.matches) for r in (*sides[0], *sides[1])],
        result,
    )
    outcome_a: BotResult = _RESULT_OF_SIDE_A[result]
    outcome_b: BotResult = _RESULT_OF_SIDE_A[_SWAPPED[result]]
    await db_ratings.apply_changes(
        conn,
        pool_name,
        match.id,
        [
            *(
                db_ratings.RatingUpdate(r.bot_id, r.rating, r.rating + delta, outcome_a)
                for r in sides[0]
            ),
            *(
                db_ratings.RatingUpdate(r.bot_id, r.rating, r.rating - delta, outcome_b)
                for r in sides[1]
            ),
        ],
    )


# --- challenges -----------------------------------------------------------------------------


async def create_challenge(
    pool: asyncpg.Pool,
    bot_a: int,
    bot_b: int,
    *,
    mode: Mode,
    rules: dict[str, Any],
    games_per_match: int | None,
    rated: bool,
    check: Callable[[Connection], Awaitable[None]] | None = None,
    deals: DealsMode = INDEPENDENT,
) -> int:
    """A casual match outside tournaments (``bot_a`` is side 0); returns its id to queue.

    ``check(conn)`` runs in the inserting transaction (``services.challenge_quota``) and may
    raise to refuse. Raises :class:`SameBot`, :class:`BotNotFound`, :class:`BotUnavailable`,
    RulesError, :class:`SettingsTooLong` (a challenge plays under the default timeouts and
    time bank), :class:`MirroredDealsRefused` (mirrored deals between bots of two owners)."""
    if bot_a == bot_b:
        raise SameBot("a bot cannot challenge itself")
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    parsed = mode_rules(mode, rules)
    games_per_match = games_per_match or default_games(mode)
    check_duration(TournamentSettings(games_per_match=games_per_match), parsed)
    async with pool.acquire() as conn, conn.transaction():
        owners = set()
        for bot_id in (bot_a, bot_b):
            bot = await db_bots.get_bot(conn, bot_id)
            if bot is None:
                raise BotNotFound(f"there is no bot {bot_id}")
            if bot.status != "active":
                raise BotUnavailable(f"bot {bot_id} is {bot.status}")
            owners.add(bot.owner_id)
        if deals == MIRRORED and len(owners) > 1:
            raise MirroredDealsRefused(
                f"bots {bot_a} and {bot_b} have different owners; {MIRRORED_ONLY_ONE_OWNER}"
            )
        if check is not None:
            await check(conn)
        master = seeds.new_master_seed()
        return await db_matches.insert_match(
            conn,
            bots=(bot_a, bot_b),
            mode=mode,
            seed=seeds.challenge_seed(master, bot_a, bot_b),
            rated=rated,
            games_per_match=games_per_match,
            rules=parsed.to_dict(),
            deals=deals,
            seed_scheme=seeds.DERIVED,
            master_seed=master,
        )


# --- withdrawals ----------------------------------------------------------------------------


async def withdraw_bot(pool: asyncpg.Pool, bot_id: int) -> list[int]:
    """A bot left (unavailable, deleted): in every running tournament it plays, it is withdrawn
    and forfeits its unfinished matches (no Elo change); the events go on. Returns the ids of
    the new matches those forfeits made ready, to queue."""
    new: list[int] = []
    async with pool.acquire() as conn, conn.transaction():
        for tournament_id in await db_tournaments.running_tournaments_of_bot(conn, bot_id):
            await db_tournaments.withdraw_entries(conn, tournament_id, [bot_id])
            for match_id in await db_matches.open_matches_of_bot(conn, bot_id, tournament_id):
                match = await db_matches.get_match(conn, match_id, for_update=True)
                assert match is not None
                await _forfeit(conn, match, {bot_id})
            new += await advance(conn, tournament_id)
    return new


async def _forfeit(conn: Connection, match: StoredMatch, gone: set[int]) -> None:
    """Decide a match without playing it: the sides whose bots left lose (both: a draw)."""
    lost = sorted({slot % 2 for slot, bot in enumerate(match.bots) if bot in gone})
    winner = 1 - lost[0] if len(lost) == 1 else None
    document = {
        "games": [],
        "games_won": [0, 0],
        "tantos": [0, 0],
        "reason": WITHDRAWN,
        "forfeit": lost[0] if len(lost) == 1 else None,
        "walkover": [],
        "faults": [0, 0],
        "withdrawn": lost,
    }
    if await db_matches.insert_result(
        conn, match.id, winner_side=winner, result=document, task_id=None
    ):
        await db_matches.finish_match(conn, match.id, status="forfeit", winner_side=winner)


# --- advancing a tournament -----------------------------------------------------------------


def _entrants(entries: Sequence[db_tournaments.Entry]) -> list[SeededEntrant]:
    return [
        SeededEntrant(e.bot_id, e.seed, e.withdrawn_at is not None, e.owner_id)
        for e in entries
        if e.seed is not None
    ]


async def event_state(
    conn: Connection | asyncpg.Pool, tournament_id: int
) -> tuple[list[SeededEntrant], list[StoredMatch]]:
    """The seeded entrants and every match of a tournament."""
    entries = await db_tournaments.entries(conn, tournament_id)
    return _entrants(entries), await db_matches.tournament_matches(conn, tournament_id)


async def advance(conn: Connection, tournament_id: int) -> list[int]:
    """Create whatever the finished matches make ready; finish the event when it is over.
    Loops while matches are decided on creation (byes, forfeits of withdrawn bots).

    The tournament's format decides (:meth:`~services.tournaments.formats.TournamentFormat.plan_next`;
    in individual 2v2, :func:`services.flow_individual.plan_next`); this stores its step.
    Call it inside the transaction that decided a match, holding the tournament's row lock
    (``get_tournament(..., lock="update")``), so the next round is paired exactly once; the
    returned match ids are to be queued after the commit."""
    to_queue: list[int] = []
    while True:
        tournament = await db_tournaments.get_tournament(conn, tournament_id)
        assert tournament is not None
        if tournament.status != "running":
            return to_queue
        entrants, matches = await event_state(conn, tournament_id)
        settings = settings_of(tournament)
        event = fp.played(
            entrants,
            matches,
            third_place=settings.third_place,
            current_round=tournament.current_round,
            rounds_wanted=settings.rounds,
        )
        if tournament.partnership == INDIVIDUAL:
            step = fi.plan_next(table_format(tournament.format), event, matches)
        else:
            step = get_format(tournament.format).plan_next(event)
        await _store_step(conn, tournament, step)
        if not step.planned:
            return to_queue
        plan = list(step.planned)
        created, decided = await _create(conn, tournament, entrants, plan)
        to_queue += created
        await db_tournaments.set_current_round(conn, tournament_id, max(p.round for p in plan))
        if not decided:
            return to_queue


async def _store_step(conn: Connection, tournament: Tournament, step: Plan) -> None:
    """The rounds a step completed (and the empty rounds it skipped), and the end."""
    for number in step.empty_rounds:
        await db_tournaments.ensure_round(conn, tournament.id, number)
    if step.done_rounds:
        for round_row in await db_tournaments.rounds(conn, tournament.id):
            if round_row.number in step.done_rounds:
                await db_tournaments.set_round_status(conn, round_row.id, "done")
    if step.empty_rounds:
        await db_tournaments.set_current_round(conn, tournament.id, max(step.empty_rounds))
    if step.finished:
        if step.ended_early:
            logger.warning("tournament %s %s", tournament.id, step.ended_early)
        await db_tournaments.finish_tournament(conn, tournament.id)


async def _create(
    conn: Connection, tournament: Tournament, entrants: list[SeededEntrant], plan: list[Planned]
) -> tuple[list[int], int]:
    """Insert planned matches; returns (ids to queue, how many were decided at once)."""
    settings = settings_of(tournament)
    gone = {e.bot_id for e in entrants if e.withdrawn}
    to_queue: list[int] = []
    decided = 0
    for planned in plan:
        round_row = await db_tournaments.ensure_round(conn, tournament.id, planned.round)
        seed, scheme = planned_seed(tournament, planned)
        match_id = await db_matches.insert_match(
            conn,
            bots=planned.bots,
            mode=tournament.mode,
            seed=seed,
            seed_scheme=scheme,
            rated=settings.rated,
            games_per_match=settings.games_per_match,
            rules=settings.rules,
            tournament_id=tournament.id,
            round_id=round_row.id,
            bracket=planned.bracket,
            bracket_match=planned.bracket_match,
            board=planned.board,
            bye=planned.bye,
            deals=settings.deals,
            partnership=tournament.partnership,
        )
        if planned.bye:
            decided += 1
        elif gone & set(planned.bots):
            match = await db_matches.get_match(conn, match_id, for_update=True)
            assert match is not None
            await _forfeit(conn, match, gone)
            decided += 1
        else:
            to_queue.append(match_id)
    return to_queue, decided


# --- reading --------------------------------------------------------------------------------


def standings(
    format: str,
    entrants: Sequence[SeededEntrant],
    matches: Sequence[StoredMatch],
    *,
    third_place: bool = False,
    partnership: str = TEAM,
) -> list[StandingRow]:
    """Standings of a started event, as its format ranks them: the Swiss / round-robin table
    over the complete rounds, or the bracket placing (:mod:`services.tournaments.formats`);
    per bot in individual 2v2 (:mod:`services.flow_individual`). The one source of standings:
    the API and the web page both call it. Empty before the start."""
    if not entrants:
        return []
    if partnership == INDIVIDUAL:
        return fi.standings(table_format(format), entrants, matches)
    return get_format(format).standings(fp.played(entrants, matches, third_place=third_place))
