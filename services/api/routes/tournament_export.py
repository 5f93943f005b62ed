"""A tournament's whole record for anyone to check: the export document and the TRF file.

A finished event's export is made once into files (:mod:`services.flow.export_cache`) and
served from them a chunk at a time, with a strong ETag (a matching ``If-None-Match`` is a
304). A running event's export is streamed (:mod:`services.flow.export`): the event is read
once, then one match at a time, gzip-compressed (in a thread) when the client accepts it.
Either way a chunk is made only once the previous one was taken by the socket (uvicorn's
``send`` waits while the client does not drain), so a response holds a chunk and the send
buffers however slowly it is read, and a client that reads under ``TRUCO_WRITE_FLOOR_BYTES``
in ``TRUCO_WRITE_DEADLINE_S`` while they are full is cut (:mod:`services.api.serve`).
Exports being costly, one API process serves ``TRUCO_EXPORTS_PER_ADDRESS`` at once to one
client address (a 429 past it) and ``TRUCO_EXPORTS_TOTAL`` in all (a 503), both with
Retry-After.
"""

from __future__ import annotations

import asyncio
import logging
import zlib
from collections.abc import AsyncIterator
from typing import Any, Final

import asyncpg
from litestar import Controller, Request, Response, get
from litestar.background_tasks import BackgroundTask
from litestar.datastructures import State
from litestar.di import NamedDependency
from litestar.openapi.datastructures import ResponseSpec
from litestar.response import Stream

from services import flow
from services.api.deps import services_of
from services.api.guard.client_address import client_address_reader
from services.api.guard.stream_caps import Slot, StreamCaps
from services.api.problems import ProblemError, problem_responses
from services.api.routes.tournaments import TournamentId, flow_problem
from services.db import tournaments as db_tournaments
from services.flow import export as flow_export
from services.flow.export_cache import CachedExport, ExportCache, file_chunks, open_file
from services.tournaments.files.export_document import TournamentExport

GZIP_LEVEL = 6
logger = logging.getLogger("services.api")
RETRY_AFTER_S: Final = 10
_CAPS, _CACHE = "export_caps", "export_cache"


def caps_of(state: State) -> StreamCaps:
    found = state.get(_CAPS)
    if not isinstance(found, StreamCaps):
        limits = services_of(state).settings.exports
        found = state[_CAPS] = StreamCaps(per_address=limits.per_address, total=limits.total)
    return found


def cache_of(state: State) -> ExportCache:
    found = state.get(_CACHE)
    if not isinstance(found, ExportCache):
        found = state[_CACHE] = ExportCache(services_of(state).settings.export_cache_dir)
    return found


def _slot(request: Request[Any, Any, State]) -> Slot:
    settings = services_of(request.app.state).settings
    address = client_address_reader(settings.web.trusted_proxies)(request)
    caps = caps_of(request.app.state)
    slot = caps.acquire(address)
    if slot is not None:
        return slot
    retry = {"Retry-After": str(RETRY_AFTER_S)}
    if caps.by_address.get(address, 0) >= caps.per_address:
        raise ProblemError(
            429,
            f"this address is already downloading {caps.per_address} exports from this "
            "server; wait for one to finish",
            slug="too-many-exports",
            headers=retry,
        )
    raise ProblemError(
        503,
        "this server is serving as many exports as it can at once; try again shortly",
        slug="exports-busy",
        headers=retry,
    )


async def _released(chunks: AsyncIterator[bytes], slot: Slot) -> AsyncIterator[bytes]:
    try:
        async for chunk in chunks:
            yield chunk
    finally:
        slot.release()


def _matches(etag: str, if_none_match: str | None) -> bool:
    if not if_none_match:
        return False
    wanted = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return "*" in wanted or etag in wanted


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
        packed = await asyncio.to_thread(packer.compress, chunk)  # off the event loop
        if packed:
            yield packed
    yield packer.flush()


def _problem(exc: flow.FlowError) -> ProblemError:
    if isinstance(exc, flow.TournamentNotFound):
        return ProblemError(404, str(exc), slug="tournament-not-found")
    if isinstance(exc, flow_export.NoTrf):
        return ProblemError(404, str(exc), slug="no-trf")
    return flow_problem(exc)


def _stream(chunks: AsyncIterator[bytes], headers: dict[str, str], slot: Slot) -> Stream:
    return Stream(
        _released(chunks, slot),
        media_type="application/json",
        headers=headers,
        background=BackgroundTask(slot.release),  # also when the body never started
    )


def _finished_headers(cached: CachedExport, gzip: bool, headers: dict[str, str]) -> None:
    headers["ETag"] = cached.etag(gzip)
    headers["Cache-Control"] = "public, max-age=3600"
    if gzip:
        headers["Content-Encoding"] = "gzip"


def _not_modified(cached: CachedExport, gzip: bool, headers: dict[str, str]) -> Response[bytes]:
    _finished_headers(cached, gzip, headers)
    del headers["Content-Disposition"]
    headers.pop("Content-Encoding", None)
    return Response(content=b"", status_code=304, headers=headers)


def _from_file(cached: CachedExport, gzip: bool, headers: dict[str, str], slot: Slot) -> Stream:
    path, size = (
        (cached.gzipped, cached.meta.gzip_size) if gzip else (cached.plain, cached.meta.plain_size)
    )
    handle = open_file(path)  # first: an OSError leaves the headers as they were
    _finished_headers(cached, gzip, headers)
    headers["Content-Length"] = str(size)
    return _stream(file_chunks(handle), headers, slot)


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
            "verified. Streamed; gzip-compressed when the request accepts gzip. A finished "
            "event's export is made once and has a strong `ETag` (`If-None-Match` gives a "
            "304). At most TRUCO_EXPORTS_PER_ADDRESS exports at once per client address (a "
            "429, `/problems/too-many-exports`) and TRUCO_EXPORTS_TOTAL per server (a 503, "
            "`/problems/exports-busy`), both with Retry-After; while the send buffers are full "
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
        gzip = _accepts_gzip(request)
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
        if cached is not None and _matches(cached.etag(gzip), request.headers.get("if-none-match")):
            return _not_modified(cached, gzip, headers)
        slot = _slot(request)
        try:
            if cached is None:
                cached = await cache.get(pool, tournament, entries)
            if cached is not None:
                try:
                    return _from_file(cached, gzip, headers, slot)
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
        return _stream(chunks, headers, slot)

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
