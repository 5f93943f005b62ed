"""Serving exports (a tournament's, a ladder day's): their slots, their files, their bytes.

Exports being costly, a download holds an :class:`~services.api.guard.export_slots.ExportSlot`
(``TRUCO_EXPORTS_PER_ADDRESS`` at once per client address, a 429 past it; ``TRUCO_EXPORTS_TOTAL``
in their first ``TRUCO_EXPORT_SLOT_S`` per process, a 503 past it; both with ``Retry-After``).
A finished export is served from its files (:mod:`services.flow.export_cache`) a chunk at a
time with a strong ETag (a matching ``If-None-Match`` is a 304, taking no slot); one that may
still change is streamed, gzip-compressed in a thread when the client accepts it. Either way a
chunk is made only once the previous one was taken by the socket, and a client that reads under
``TRUCO_WRITE_FLOOR_BYTES`` in ``TRUCO_WRITE_DEADLINE_S`` while the buffers are full is cut
(:mod:`services.api.serve`).
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator
from typing import Any, Final

from litestar import Request, Response
from litestar.background_tasks import BackgroundTask
from litestar.datastructures import State
from litestar.response import Stream

from services.api.deps import services_of
from services.api.guard.client_address import client_address_reader
from services.api.guard.export_slots import ExportSlot, ExportSlots
from services.api.problems import ProblemError
from services.flow.export_cache import CachedExport, ExportCache, file_chunks, open_file

GZIP_LEVEL = 6
RETRY_AFTER_S: Final = 10
_SLOTS, _CACHE = "export_slots", "export_cache"


def slots_of(state: State) -> ExportSlots:
    found = state.get(_SLOTS)
    if not isinstance(found, ExportSlots):
        limits = services_of(state).settings.exports
        found = state[_SLOTS] = ExportSlots(limits.per_address, limits.total, limits.slot_s)
    return found


def cache_of(state: State) -> ExportCache:
    found = state.get(_CACHE)
    if not isinstance(found, ExportCache):
        settings = services_of(state).settings
        found = state[_CACHE] = ExportCache(
            settings.export_cache_dir, max_bytes=settings.exports.cache_bytes
        )
    return found


def take_slot(request: Request[Any, Any, State]) -> ExportSlot:
    """A download's places for the request's address, or the 429 / 503 problem."""
    settings = services_of(request.app.state).settings
    address = client_address_reader(settings.web.trusted_proxies)(request)
    slots = slots_of(request.app.state)
    slot = slots.acquire(address)
    if slot is not None:
        return slot
    retry = {"Retry-After": str(RETRY_AFTER_S)}
    if slots.address_full(address):
        raise ProblemError(
            429,
            f"this address is already downloading {slots.per_address} exports from this "
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


async def _released(chunks: AsyncIterator[bytes], slot: ExportSlot) -> AsyncIterator[bytes]:
    try:
        async for chunk in chunks:
            slot.start_sending()
            yield chunk
    finally:
        slot.release()


def etag_matches(etag: str, if_none_match: str | None) -> bool:
    if not if_none_match:
        return False
    wanted = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
    return "*" in wanted or etag in wanted


def accepts_gzip(request: Request[object, object, State]) -> bool:
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


def stream(chunks: AsyncIterator[bytes], headers: dict[str, str], slot: ExportSlot) -> Stream:
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


def not_modified(cached: CachedExport, gzip: bool, headers: dict[str, str]) -> Response[bytes]:
    _finished_headers(cached, gzip, headers)
    del headers["Content-Disposition"]
    headers.pop("Content-Encoding", None)
    return Response(content=b"", status_code=304, headers=headers)


def from_file(
    cached: CachedExport, gzip: bool, headers: dict[str, str], slot: ExportSlot
) -> Stream:
    path, size = (
        (cached.gzipped, cached.meta.gzip_size) if gzip else (cached.plain, cached.meta.plain_size)
    )
    handle = open_file(path)  # first: an OSError leaves the headers as they were
    _finished_headers(cached, gzip, headers)
    headers["Content-Length"] = str(size)
    return stream(file_chunks(handle), headers, slot)
