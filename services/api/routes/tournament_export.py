"""A tournament's whole record for anyone to check: the export document and the TRF file.

A finished event's export is made once into files (:mod:`services.flow.export_cache`) and
served from them a chunk at a time, with a strong ETag (a matching ``If-None-Match`` is a
304). A running event's export is streamed (:mod:`services.flow.export`): the event is read
once, then one match at a time, gzip-compressed (in a thread) when the client accepts it.
Slots, files and the bytes of a response: :mod:`services.api.routes.export_serving`.
"""

from __future__ import annotations

import logging

import asyncpg
from litestar import Controller, Request, Response, get
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.response import Stream

from services import flow
from services.api.guard.read_lane import READ_LANE
from services.api.problems import ProblemError, problem_responses
from services.api.routes.export_serving import (
    accepts_gzip,
    cache_of,
    etag_matches,
    from_file,
    gzipped,
    not_modified,
    stream,
    take_slot,
)
from services.api.routes.tournaments import TournamentId, flow_problem
from services.db import tournaments as db_tournaments
from services.flow import export as flow_export
from services.tournaments.files.export_document import TournamentExport

__all__ = ["TournamentExportController", "cache_of"]

logger = logging.getLogger("services.api")


def _problem(exc: flow.FlowError) -> ProblemError:
    if isinstance(exc, flow.TournamentNotFound):
        return ProblemError(404, str(exc), slug="tournament-not-found")
    if isinstance(exc, flow_export.NoTrf):
        return ProblemError(404, str(exc), slug="no-trf")
    return flow_problem(exc)


class TournamentExportController(Controller):
    path = "/v1/tournaments"
    tags = ("tournaments",)

    @get(
        "/{tournament_id:int}/export",
        opt={READ_LANE: False},  # its own slots
        operation_id="exportTournament",
        summary="The whole tournament as one JSON document, for `truco verify tournament`",
        description=(
            "Settings, entries, rounds, standings, and every match with its place, seed, "
            "stored result, replay and the Elo changes it applied; `seeds` gives the "
            "commitment to the master seed every match seed is derived from, and the master "
            "seed itself once the tournament is finished or cancelled and no worker still "
            "plays a match of it (docs/verify.md). A match's seed appears once it is over "
            "and stopped, its replay and rating changes once it is finished. Events "
            "created before seeds were committed say `scheme: legacy`: their seeds cannot be "
            "verified. Streamed; gzip-compressed when the request accepts gzip. A finished "
            "event's export is made once and has a strong `ETag` (`If-None-Match` gives a "
            "304). At most TRUCO_EXPORTS_PER_ADDRESS exports at once per client address (a "
            "429, `/problems/too-many-exports`) and TRUCO_EXPORTS_TOTAL per server in their "
            "first TRUCO_EXPORT_SLOT_S seconds (a 503, `/problems/exports-busy`), both with "
            "Retry-After; while the send buffers are full "
            "a client that reads under TRUCO_WRITE_FLOOR_BYTES (16 KiB) in "
            "TRUCO_WRITE_DEADLINE_S (30 s) is cut."
        ),
        responses={
            200: ResponseSpec(
                data_container=TournamentExport,
                description="The export document (format truco-arena-tournament-export/1)",
                generate_examples=False,
            ),
            304: ResponseSpec(
                data_container=None,
                description="Not modified: the finished event's export has this ETag",
                generate_examples=False,
            ),
            **problem_responses(400, 404, 503),
        },
    )
    async def export(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        tournament_id: TournamentId,
    ) -> Stream | Response[bytes]:
        gzip = accepts_gzip(request)
        headers = {
            "Content-Disposition": f'attachment; filename="tournament-{tournament_id}.json"',
            "Vary": "Accept-Encoding",
        }
        tournament = await db_tournaments.get_tournament(pool, tournament_id)
        if tournament is None:
            raise _problem(flow.TournamentNotFound(f"there is no tournament {tournament_id}"))
        cache = cache_of(request.app.state)
        final = tournament.seed_revealed  # its export is made once (for these entries' names)
        entries = await db_tournaments.entries(pool, tournament_id) if final else []
        cached = cache.find(tournament, entries) if final else None
        if cached is not None and etag_matches(
            cached.etag(gzip), request.headers.get("if-none-match")
        ):
            return not_modified(cached, gzip, headers)
        slot = take_slot(request)
        try:
            if cached is None:
                cached = await cache.get(pool, tournament, entries)
            if cached is not None:
                try:
                    return from_file(cached, gzip, headers, slot)
                except OSError as exc:  # removed meanwhile (by hand): read the database
                    logger.warning("export file of tournament %d: %s", tournament_id, exc)
            snap = await flow_export.snapshot(pool, tournament_id)
        except flow.FlowError as exc:
            slot.release()
            raise _problem(exc) from None
        except BaseException:
            slot.release()
            raise
        chunks = flow_export.export_chunks(pool, snap)
        if gzip:
            headers["Content-Encoding"] = "gzip"
            chunks = gzipped(chunks)
        return stream(chunks, headers, slot)

    @get(
        "/{tournament_id:int}/trf",
        operation_id="getTournamentTrf",
        summary="A Swiss tournament as a FIDE TRF-16 file",
        description=(
            "The complete rounds of a started Swiss of one bot a side (1v1 or team 2v2) in the "
            "Tournament Report File format chess pairing programs read: the mano of a match "
            "plays white; `XXR` is the planned round count while the event runs and the "
            "rounds played once it is over; places are the standings' ranks. Another format, "
            "or individual 2v2, is a 404; a tournament still registering is a 409."
        ),
        responses={
            200: ResponseSpec(
                data_container=str,
                description="The TRF-16 text",
                media_type="text/plain",
                generate_examples=False,
            ),
            **problem_responses(400, 404, 409),
        },
    )
    async def trf(
        self, pool: NamedDependency[asyncpg.Pool], tournament_id: TournamentId
    ) -> Response[str]:
        try:
            text = await flow_export.trf(pool, tournament_id)
        except flow.FlowError as exc:
            raise _problem(exc) from None
        return Response(
            content=text,
            media_type="text/plain; charset=utf-8",
            headers={
                "Content-Disposition": f'attachment; filename="tournament-{tournament_id}.trf"'
            },
        )
