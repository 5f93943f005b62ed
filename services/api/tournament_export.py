"""A tournament's whole record for anyone to check: the export document and the TRF file.

The export is streamed (:mod:`services.flow.export`): the event is read once, then replays go
out a batch at a time, gzip-compressed when the client accepts it (replays shrink about ten
times). There is no size cap: memory stays bounded by the batch, no database connection waits
on a slow reader, and every request counts against the rate limits like any other.
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

import asyncpg
from litestar import Controller, Request, Response, get
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.response import Stream

from services import flow
from services.api.problems import ProblemError, problem_responses
from services.api.tournaments import TournamentId, flow_problem
from services.flow import export as flow_export
from services.tournaments.export import TournamentExport

GZIP_LEVEL = 6


def _accepts_gzip(request: Request[object, object, State]) -> bool:
    codings = request.headers.get("accept-encoding", "")
    for part in codings.split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() == "gzip":
            return params.replace(" ", "").lower() not in ("q=0", "q=0.0", "q=0.00", "q=0.000")
    return False


async def gzipped(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """``chunks`` as one gzip stream."""
    packer = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    async for chunk in chunks:
        packed = packer.compress(chunk)
        if packed:
            yield packed
    yield packer.flush()


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
            "verified. Streamed; gzip-compressed when the request accepts gzip."
        ),
        responses={
            200: ResponseSpec(
                data_container=TournamentExport,
                description="The export document (format truco-arena-tournament-export/1)",
                generate_examples=False,
            ),
            **problem_responses(400, 404),
        },
    )
    async def export(
        self,
        request: Request[object, object, State],
        pool: NamedDependency[asyncpg.Pool],
        tournament_id: TournamentId,
    ) -> Stream:
        try:
            snap = await flow_export.snapshot(pool, tournament_id)
        except flow.FlowError as exc:
            raise _problem(exc) from None
        chunks = flow_export.export_chunks(pool, snap)
        headers = {
            "Content-Disposition": f'attachment; filename="tournament-{tournament_id}.json"',
            "Vary": "Accept-Encoding",
        }
        if _accepts_gzip(request):
            headers["Content-Encoding"] = "gzip"
            chunks = gzipped(chunks)
        return Stream(chunks, media_type="application/json", headers=headers)

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
