"""A tournament as one verifiable document, and a Swiss as a FIDE TRF file.

:func:`snapshot` reads the event once (tournament, entries, rounds, every match, standings
through :func:`services.flow.standings`); :func:`export_chunks` then writes the document of
:mod:`services.tournaments.files.export_document` piece by piece, reading replays and Elo changes
:data:`BATCH` matches at a time and yielding one match at a time, so a large event is
streamed with bounded memory (a batch's replays) and no database connection is held while a
slow client reads. Only matches finished in the snapshot
carry a replay and Elo changes, so the document agrees with itself while the event goes on.

:func:`trf` is the TRF-16 file of a started Swiss (team or 1v1: a TRF line is one player),
through :func:`services.tournaments.files.trf.export_trf`, with the platform's own ranks as places.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime

import asyncpg
import msgspec

from arena.match.replay import LEGACY_FORMAT, load_replay
from services import flow
from services.db import matches as db_matches
from services.db import ratings as db_ratings
from services.db import tournaments as db_tournaments
from services.db.matches import StoredMatch
from services.db.tournaments import Entry, Tournament
from services.domain import INDIVIDUAL, seeds
from services.tournaments.event import seeded_players
from services.tournaments.files.export_document import (
    FORMAT,
    ExportEntry,
    ExportMatch,
    ExportRatingChange,
    ExportRound,
    ExportSeeds,
    ExportStanding,
    ExportTournament,
    TournamentExport,
)
from services.tournaments.files.trf import export_trf
from services.tournaments.formats import get_format
from services.tournaments.played import complete_rounds, history

BATCH = 10  # matches whose replays are read (and held in memory) at once
_LEGACY_REPLAY = b'{"format":"' + LEGACY_FORMAT.encode() + b'"'
_NO_MATCHES = b'"matches":[]}'


class NoTrf(flow.FlowError):
    """The tournament has no TRF file (not a Swiss of one bot a side; API: 404)."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The event as read at one moment: the document without its matches, and the matches."""

    head: TournamentExport
    matches: list[StoredMatch]


def export_seeds(tournament: Tournament) -> ExportSeeds:
    master = tournament.master_seed
    if master is None:
        return ExportSeeds(scheme="legacy", commitment=None, master_seed=None)
    return ExportSeeds(
        scheme=seeds.SCHEME,
        commitment=seeds.commitment(master),
        master_seed=master.hex() if tournament.seed_revealed else None,
    )


def _entry(entry: Entry) -> ExportEntry:
    return ExportEntry(
        bot_id=entry.bot_id,
        name=entry.name,
        owner_id=entry.owner_id,
        seed=entry.seed,
        withdrawn=entry.withdrawn_at is not None,
    )


async def snapshot(pool: asyncpg.Pool, tournament_id: int) -> Snapshot:
    """Raises :class:`services.flow.TournamentNotFound`."""
    tournament = await db_tournaments.get_tournament(pool, tournament_id)
    if tournament is None:
        raise flow.TournamentNotFound(f"there is no tournament {tournament_id}")
    entries = await db_tournaments.entries(pool, tournament_id)
    entrants, matches = await flow.event_state(pool, tournament_id)
    rounds = await db_tournaments.rounds(pool, tournament_id)
    standings = flow.standings(
        tournament.format,
        entrants,
        matches,
        third_place=tournament.settings.third_place,
        partnership=tournament.partnership,
    )
    head = TournamentExport(
        format=FORMAT,
        exported_at=datetime.now(UTC),
        tournament=ExportTournament(
            id=tournament.id,
            name=tournament.name,
            format=tournament.format,
            mode=tournament.mode,
            partnership=tournament.partnership,
            status=tournament.status,
            organiser_id=tournament.organiser_id,
            settings=msgspec.to_builtins(tournament.settings),
            current_round=tournament.current_round,
            created_at=tournament.created_at,
            started_at=tournament.started_at,
            finished_at=tournament.finished_at,
        ),
        seeds=export_seeds(tournament),
        entries=[_entry(e) for e in sorted(entries, key=lambda e: e.bot_id)],
        rounds=[ExportRound(number=r.number, status=r.status) for r in rounds],
        standings=[
            ExportStanding(
                rank=row.rank,
                bot_id=row.bot_id,
                points=row.points,
                withdrawn=row.withdrawn,
                tiebreaks={str(k): float(v) for k, v in row.tiebreaks.items()},
            )
            for row in standings
        ],
        matches=[],
    )
    return Snapshot(head, matches)


def _replay_bytes(document: bytes) -> bytes:
    """A stored replay as the export carries it: a version 1 document gets its ``deals``
    (from ``duplicate``), so every replay of the export decodes as one type."""
    if document.startswith(_LEGACY_REPLAY):
        return msgspec.json.encode(load_replay(document))
    return document


def match_json(
    match: StoredMatch,
    replay: bytes | None,
    changes: list[db_ratings.AppliedChange],
    result: bytes | None = None,
) -> bytes:
    """One element of ``matches``, the replay spliced in as it is stored (not decoded); the
    result from ``match``, or as stored (``result``: JSON, with the luck that an event's reads
    leave out, :func:`services.db.matches.tournament_matches`)."""
    record = ExportMatch(
        id=match.id,
        round=match.round_number,
        board=match.board,
        bracket=match.bracket,
        bracket_match=match.bracket_match,
        bye=match.bye,
        status=match.status,
        mode=match.mode,
        partnership=match.partnership,
        rated=match.rated,
        games_per_match=match.games_per_match,
        deals=match.deals,
        rules=match.rules.to_dict(),
        seats=list(match.bots),
        seed=match.seed if match.stopped else None,
        seed_scheme=match.seed_scheme,
        winner_side=match.winner_side,
        result=msgspec.to_builtins(match.result) if match.finished and match.result else None,
        rating_changes=[
            ExportRatingChange(
                bot_id=c.bot_id,
                pool=c.pool,
                before=c.before,
                after=c.after,
                rated_matches_before=c.rated_before,
            )
            for c in changes
        ],
        attempt=match.played_attempt if match.finished else None,
        replay=None,
    )
    fields = msgspec.structs.asdict(record)
    fields["replay"] = None if replay is None else msgspec.Raw(_replay_bytes(replay))
    if result is not None and fields["result"] is not None:
        fields["result"] = msgspec.Raw(result)
    return msgspec.json.encode(fields)


async def export_chunks(
    pool: asyncpg.Pool, snap: Snapshot, batch: int = BATCH
) -> AsyncIterator[bytes]:
    """The export document of ``snap`` in pieces that concatenate to one JSON object."""
    head = msgspec.json.encode(snap.head)
    assert head.endswith(_NO_MATCHES), "matches must be the document's last key"
    yield head[: -len(b"]}")]
    for start in range(0, len(snap.matches), batch):
        part = snap.matches[start : start + batch]
        done = [m.id for m in part if m.finished]
        async with pool.acquire() as conn:
            replays = await db_matches.replays_json(conn, done)
            results = await db_matches.results_json(conn, done)
            changes = await db_ratings.changes_of_matches(conn, done)
        by_match: dict[int, list[db_ratings.AppliedChange]] = {}
        for change in changes:
            by_match.setdefault(change.match_id, []).append(change)
        for index, match in enumerate(part):
            # one match at a time: the response sends it before the next is encoded, and
            # each replay is let go once encoded (a large event's replays are ~150 KB each)
            piece = match_json(
                match,
                replays.pop(match.id, None),
                by_match.get(match.id, []),
                results.pop(match.id, None),
            )
            yield (b"," if start or index else b"") + piece
    yield b"]}"


async def trf(pool: asyncpg.Pool, tournament_id: int) -> str:
    """The TRF-16 file of a started Swiss over its complete rounds; ``XXR`` is the planned
    round count while it runs and the rounds played once it is over. Raises
    :class:`services.flow.TournamentNotFound`, :class:`services.flow.TournamentStateError`
    (not started) or :class:`NoTrf`."""
    tournament = await db_tournaments.get_tournament(pool, tournament_id)
    if tournament is None:
        raise flow.TournamentNotFound(f"there is no tournament {tournament_id}")
    if not get_format(tournament.format).offers_trf or tournament.partnership == INDIVIDUAL:
        raise NoTrf(
            f"tournament {tournament_id} is not a Swiss of one bot a side ("
            f"{tournament.format}, {tournament.mode} {tournament.partnership}): only such a "
            "Swiss has a TRF file"
        )
    if tournament.status == "registering":
        raise flow.TournamentStateError(
            f"tournament {tournament_id} has not started: its TRF file exists once it runs"
        )
    entries = await db_tournaments.entries(pool, tournament_id)
    entrants, matches = await flow.event_state(pool, tournament_id)
    rounds = history(matches, complete_rounds(matches))
    planned = tournament.settings.rounds or len(rounds)
    total = planned if tournament.status == "running" else len(rounds)
    standings = flow.standings(tournament.format, entrants, matches)
    return export_trf(
        seeded_players(entrants),
        rounds,
        total_rounds=max(total, len(rounds)),
        name=tournament.name,
        names={e.bot_id: e.name for e in entries},
        places={row.bot_id: row.rank for row in standings},
        ratings=False,
    )
