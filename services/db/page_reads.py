"""The pages' read model: read-only queries behind ``services/web``, plain rows, no rendering.

Every function takes a connection or pool and only reads (SELECT). The pages turn these rows
into view models with the pure functions of ``services/web/views/``. Replays come back as their
stored JSON documents; decoding them is the pages' business, not the database's.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass, field
from datetime import datetime

import asyncpg

from engine.rules import Rules
from services.db.accounts import Executor
from services.db.matches import inflate
from services.db.tournaments import RoundRow
from services.domain import FINISHED_STATUSES, seeds
from services.domain.result import StoredResult, stored_result
from services.domain.tournament_settings import TournamentSettings, decode_settings

FINISHED_MATCH = FINISHED_STATUSES


@dataclass(frozen=True, slots=True)
class LeaderRow:
    bot_id: int
    name: str
    rating: float
    matches: int
    wins: int
    losses: int
    draws: int
    trend: float  # rating change over the last few rated matches
    # the pool's last rating fit (services.db.rating_fits); None before the bot's first
    low: float | None = None
    high: float | None = None
    next_bot_id: int | None = None
    los_next: float | None = None


@dataclass(frozen=True, slots=True)
class TournamentRow:
    id: int
    name: str
    format: str
    mode: str
    status: str
    settings: TournamentSettings  # the JSONB documents, decoded here once
    current_round: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    entries: int = 0
    partnership: str = "team"
    master_seed: bytes | None = field(default=None, repr=False)

    @property
    def seed_commitment(self) -> str | None:
        """The published commitment to the master seed (services.domain.seeds); None for an event
        created before seeds were committed."""
        return None if self.master_seed is None else seeds.commitment(self.master_seed)

    @property
    def mode_label(self) -> str:
        """1v1, "2v2 team" (a bot fills both seats of its side) or "2v2 individual"."""
        return self.mode if self.mode == "1v1" else f"{self.mode} {self.partnership}"


@dataclass(frozen=True, slots=True)
class EntryRow:
    bot_id: int
    name: str
    seed: int | None
    rating: float
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class Entrant:
    bot_id: int
    name: str
    side: int
    slot: int


@dataclass(slots=True)
class MatchRow:
    id: int
    tournament_id: int | None
    round_id: int | None
    round_number: int | None
    bracket: str
    board: int
    mode: str
    status: str
    winner_side: int | None
    created_at: datetime
    finished_at: datetime | None
    entrants: list[Entrant] = field(default_factory=list)
    result: StoredResult | None = None  # match_results.result
    bracket_match: str | None = None  # the elimination bracket's match id (W1-2, GF, ...)
    tournament_name: str | None = None
    rules: Rules = field(default_factory=Rules)  # matches.rules


@dataclass(frozen=True, slots=True)
class BotRow:
    id: int
    name: str
    owner_name: str
    status: str
    created_at: datetime
    deleted_at: datetime | None


@dataclass(frozen=True, slots=True)
class RatingRow:
    mode: str
    rating: float
    matches: int
    wins: int
    losses: int
    draws: int
    # the pool's last rating fit: the interval, and the LOS over the bot then right below
    low: float | None = None
    high: float | None = None
    los_next: float | None = None
    next_bot_name: str | None = None


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    mode: str
    match_id: int
    before: float
    after: float
    at: datetime


@dataclass(frozen=True, slots=True)
class TournamentData:
    tournament: TournamentRow
    entries: list[EntryRow]
    rounds: list[RoundRow]
    matches: list[MatchRow]


@dataclass(frozen=True, slots=True)
class MatchData:
    match: MatchRow
    tournament_name: str | None
    replay: bytes | None  # the stored replay's JSON document (decoded by the page)


def _json(value: object) -> dict[str, object]:
    """A JSON object column as read (a JSON string decoded first); {} for anything else."""
    if isinstance(value, str):
        value = json.loads(value)
    return dict(value) if isinstance(value, dict) else {}


async def leaderboard(conn: Executor, mode: str, limit: int = 50) -> list[LeaderRow]:
    """Live bots by rating in ``mode``; trend = change over their last 5 rated matches."""
    rows = await conn.fetch(
        """
        SELECT b.id, b.name, r.rating, r.matches, r.wins, r.losses, r.draws,
               COALESCE((SELECT h.rating_after FROM rating_history h
                         WHERE h.bot_id = b.id AND h.mode = r.mode
                         ORDER BY h.at DESC, h.id DESC LIMIT 1)
                        - (SELECT last5.rating_before FROM (
                               SELECT h.rating_before, h.at, h.id FROM rating_history h
                               WHERE h.bot_id = b.id AND h.mode = r.mode
                               ORDER BY h.at DESC, h.id DESC LIMIT 5) last5
                           ORDER BY last5.at, last5.id LIMIT 1), 0) AS trend,
               i.low, i.high, i.next_bot_id, i.los_next
        FROM ratings r JOIN bots b ON b.id = r.bot_id
        LEFT JOIN LATERAL (SELECT low, high, next_bot_id, los_next FROM rating_intervals
                           WHERE bot_id = r.bot_id AND mode = r.mode LIMIT 1) i ON true
        WHERE r.mode = $1 AND b.status <> 'deleted'
        ORDER BY r.rating DESC, b.id
        LIMIT $2
        """,
        mode,
        limit,
    )
    return [
        LeaderRow(
            bot_id=r["id"],
            name=r["name"],
            rating=r["rating"],
            matches=r["matches"],
            wins=r["wins"],
            losses=r["losses"],
            draws=r["draws"],
            trend=float(r["trend"]),
            low=r["low"],
            high=r["high"],
            next_bot_id=r["next_bot_id"],
            los_next=r["los_next"],
        )
        for r in rows
    ]


def _tournament(r: asyncpg.Record) -> TournamentRow:
    return TournamentRow(
        id=r["id"],
        name=r["name"],
        format=r["format"],
        mode=r["mode"],
        status=r["status"],
        settings=decode_settings(_json(r["settings"])),
        current_round=r["current_round"],
        created_at=r["created_at"],
        started_at=r["started_at"],
        finished_at=r["finished_at"],
        entries=r["entries"],
        partnership=r["partnership"],
        master_seed=r["master_seed"],
    )


_TOURNAMENT_SELECT = """
    SELECT t.id, t.name, t.format, t.mode, t.status, t.settings, t.current_round, t.created_at,
           t.started_at, t.finished_at, t.partnership, t.master_seed,
           (SELECT count(*) FROM tournament_entries e WHERE e.tournament_id = t.id) AS entries
    FROM tournaments t
"""


async def tournaments_by_status(
    conn: Executor, statuses: tuple[str, ...], limit: int = 20
) -> list[TournamentRow]:
    rows = await conn.fetch(
        _TOURNAMENT_SELECT + " WHERE t.status = ANY($1::text[]) ORDER BY t.id DESC LIMIT $2",
        list(statuses),
        limit,
    )
    return [_tournament(r) for r in rows]


_MATCH_SELECT = """
    SELECT m.id, m.tournament_id, m.round_id, rd.number AS round_number, m.bracket, m.board,
           m.mode, m.status, m.winner_side, m.created_at, m.finished_at, mr.result,
           m.bracket_match, t.name AS tournament_name, m.rules
    FROM matches m
    LEFT JOIN tournaments t ON t.id = m.tournament_id
    LEFT JOIN rounds rd ON rd.id = m.round_id
    LEFT JOIN match_results mr ON mr.match_id = m.id
"""


def _match(r: asyncpg.Record) -> MatchRow:
    return MatchRow(
        id=r["id"],
        tournament_id=r["tournament_id"],
        round_id=r["round_id"],
        round_number=r["round_number"],
        bracket=r["bracket"],
        board=r["board"],
        mode=r["mode"],
        status=r["status"],
        winner_side=r["winner_side"],
        created_at=r["created_at"],
        finished_at=r["finished_at"],
        result=stored_result(_json(r["result"])) if r["result"] is not None else None,
        bracket_match=r["bracket_match"],
        tournament_name=r["tournament_name"],
        rules=Rules.from_dict(_json(r["rules"])),
    )


async def _attach_entrants(conn: Executor, matches: list[MatchRow]) -> None:
    if not matches:
        return
    by_id = {m.id: m for m in matches}
    rows = await conn.fetch(
        """
        SELECT me.match_id, me.slot, me.side, b.id, b.name
        FROM match_entrants me JOIN bots b ON b.id = me.bot_id
        WHERE me.match_id = ANY($1::bigint[])
        ORDER BY me.match_id, me.side, me.slot
        """,
        list(by_id),
    )
    for r in rows:
        by_id[r["match_id"]].entrants.append(
            Entrant(bot_id=r["id"], name=r["name"], side=r["side"], slot=r["slot"])
        )


async def tournament(conn: Executor, tournament_id: int) -> TournamentData | None:
    row = await conn.fetchrow(_TOURNAMENT_SELECT + " WHERE t.id = $1", tournament_id)
    if row is None:
        return None
    t = _tournament(row)
    entries = await conn.fetch(
        """
        SELECT e.bot_id, b.name, e.seed, e.withdrawn_at,
               COALESCE(r.rating, 1500) AS rating
        FROM tournament_entries e
        JOIN bots b ON b.id = e.bot_id
        LEFT JOIN ratings r ON r.bot_id = e.bot_id AND r.mode = $2
        WHERE e.tournament_id = $1
        ORDER BY e.seed NULLS LAST, rating DESC, e.bot_id
        """,
        tournament_id,
        t.mode,
    )
    rounds = await conn.fetch(
        "SELECT id, number, status FROM rounds WHERE tournament_id = $1 ORDER BY number",
        tournament_id,
    )
    match_rows = await conn.fetch(
        _MATCH_SELECT + " WHERE m.tournament_id = $1 ORDER BY rd.number, m.bracket, m.board, m.id",
        tournament_id,
    )
    matches = [_match(r) for r in match_rows]
    await _attach_entrants(conn, matches)
    return TournamentData(
        tournament=t,
        entries=[
            EntryRow(
                bot_id=r["bot_id"],
                name=r["name"],
                seed=r["seed"],
                rating=float(r["rating"]),
                withdrawn=r["withdrawn_at"] is not None,
            )
            for r in entries
        ],
        rounds=[RoundRow(id=r["id"], number=r["number"], status=r["status"]) for r in rounds],
        matches=matches,
    )


async def tournament_version(conn: Executor, tournament_id: int) -> str | None:
    """A short token that changes whenever the tournament page would change (for polling)."""
    row = await conn.fetchrow(
        """
        SELECT t.status, t.current_round,
               (SELECT count(*) FROM rounds r WHERE r.tournament_id = t.id) AS rounds,
               (SELECT count(*) FROM matches m WHERE m.tournament_id = t.id) AS matches,
               (SELECT string_agg(m.status || m.id::text, ',' ORDER BY m.id)
                FROM matches m WHERE m.tournament_id = t.id) AS states
        FROM tournaments t WHERE t.id = $1
        """,
        tournament_id,
    )
    if row is None:
        return None
    digest = zlib.crc32((row["states"] or "").encode())
    return f"{row['status']}.{row['current_round']}.{row['rounds']}.{row['matches']}.{digest:x}"


async def bot(conn: Executor, bot_id: int) -> BotRow | None:
    row = await conn.fetchrow(
        """
        SELECT b.id, b.name, a.name AS owner_name, b.status, b.created_at, b.deleted_at
        FROM bots b JOIN accounts a ON a.id = b.owner_id WHERE b.id = $1
        """,
        bot_id,
    )
    if row is None:
        return None
    return BotRow(
        id=row["id"],
        name=row["name"],
        owner_name=row["owner_name"],
        status=row["status"],
        created_at=row["created_at"],
        deleted_at=row["deleted_at"],
    )


async def bot_ratings(conn: Executor, bot_id: int) -> list[RatingRow]:
    rows = await conn.fetch(
        "SELECT r.mode, r.rating, r.matches, r.wins, r.losses, r.draws, "
        "i.low, i.high, i.los_next, n.name AS next_bot_name FROM ratings r "
        "LEFT JOIN rating_intervals i ON i.bot_id = r.bot_id AND i.mode = r.mode "
        "LEFT JOIN bots n ON n.id = i.next_bot_id "
        "WHERE r.bot_id = $1 ORDER BY r.mode",
        bot_id,
    )
    return [RatingRow(**dict(r)) for r in rows]


async def rating_history(conn: Executor, bot_id: int, limit: int = 200) -> list[HistoryPoint]:
    rows = await conn.fetch(
        """
        SELECT * FROM (
            SELECT mode, match_id, rating_before, rating_after, at, id FROM rating_history
            WHERE bot_id = $1 ORDER BY at DESC, id DESC LIMIT $2) recent
        ORDER BY at, id
        """,
        bot_id,
        limit,
    )
    return [
        HistoryPoint(
            mode=r["mode"],
            match_id=r["match_id"],
            before=r["rating_before"],
            after=r["rating_after"],
            at=r["at"],
        )
        for r in rows
    ]


async def bot_matches(conn: Executor, bot_id: int, limit: int = 20) -> list[MatchRow]:
    rows = await conn.fetch(
        _MATCH_SELECT
        + """ WHERE m.id IN (SELECT match_id FROM match_entrants WHERE bot_id = $1
                             ORDER BY match_id DESC LIMIT $2)
              ORDER BY m.id DESC""",
        bot_id,
        limit,
    )
    matches = [_match(r) for r in rows]
    await _attach_entrants(conn, matches)
    return matches


async def replays(conn: Executor, match_ids: list[int]) -> dict[int, bytes]:
    """The replay documents (JSON) of these matches that have one; one whose stored bytes do not
    decompress is left out (the page shows its match without a viewer)."""
    if not match_ids:
        return {}
    rows = await conn.fetch(
        "SELECT match_id, compression, data FROM replays WHERE match_id = ANY($1::bigint[])",
        match_ids,
    )
    found: dict[int, bytes] = {}
    for r in rows:
        try:
            found[r["match_id"]] = inflate(r["compression"], bytes(r["data"]))
        except zlib.error:
            continue
    return found


async def match(conn: Executor, match_id: int) -> MatchData | None:
    row = await conn.fetchrow(_MATCH_SELECT + " WHERE m.id = $1", match_id)
    if row is None:
        return None
    m = _match(row)
    await _attach_entrants(conn, [m])
    name = None
    if m.tournament_id is not None:
        name = await conn.fetchval("SELECT name FROM tournaments WHERE id = $1", m.tournament_id)
    found = await replays(conn, [match_id])
    return MatchData(match=m, tournament_name=name, replay=found.get(match_id))


async def match_version(conn: Executor, match_id: int) -> str | None:
    """Changes whenever a match's page would change: its status, its stored replay, whether it
    is still stopping (its seed is shown once it has stopped) and its event's status (a
    knockout's note, the master seed once the event is over)."""
    row = await conn.fetchrow(
        """
        SELECT m.status, COALESCE(r.size_bytes, -1) AS size,
               m.stopping_since IS NOT NULL AS stopping, t.status AS event
        FROM matches m LEFT JOIN replays r ON r.match_id = m.id
        LEFT JOIN tournaments t ON t.id = m.tournament_id WHERE m.id = $1
        """,
        match_id,
    )
    if row is None:
        return None
    return f"{row['status']}.{row['size']}.{int(row['stopping'])}.{row['event'] or '-'}"
