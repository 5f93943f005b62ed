"""A finished event's export, made once into files and served from them (issue 21, break 2).

Once an event is over and no worker plays a match of it (:attr:`Tournament.seed_revealed`),
its export no longer changes: the first request writes the document and its gzip form in one
pass of :func:`services.flow.export.export_chunks` (compression and writes in a thread, off
the event loop) to temporary files, renamed into place, then a small ``.meta`` file with the
document's SHA-256 and sizes (written last: its presence says the pair is complete). Every
later request streams a file (:func:`file_chunks`) instead of reading the database and
encoding again. Files are named by the tournament's id, its creation time (so a database
made afresh never meets an old file) and a digest of the export format, :data:`CACHE_VERSION`
and the entries' bots' names (the one thing of a finished event's export that may change: a
bot renamed later gets its events new files; the old ones are left).

Several API processes may make the same files at once; each renames its own complete files
over the others' (the same document but ``exported_at``), so a reader never sees half a file.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import zlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import asyncpg
import msgspec

from services.db.tournaments import Entry, Tournament
from services.flow import export as flow_export
from services.tournaments.files.export_document import FORMAT

CACHE_VERSION = 1
"""Bump when the files' layout or the way the document is made changes."""
GZIP_LEVEL = 6
READ_CHUNK = 64 * 1024
"""Bytes a served file is read (and sent) at a time."""

logger = logging.getLogger("services.flow")


class Meta(msgspec.Struct, frozen=True):
    sha256: str
    plain_size: int
    gzip_size: int


@dataclass(frozen=True, slots=True)
class CachedExport:
    """A finished event's export on disk: the document and its gzip form."""

    plain: Path
    gzipped: Path
    meta: Meta

    def etag(self, gzip: bool) -> str:
        """A strong ETag per representation (the gzip bytes are another one)."""
        return f'"{self.meta.sha256[:32]}{"-gzip" if gzip else ""}"'


def cache_key(tournament: Tournament, entries: Sequence[Entry]) -> str:
    """The files' name: the tournament's id and creation time, and a digest of the export
    format, :data:`CACHE_VERSION` and what the document takes from rows that may still change
    after the event (a bot's name: a renamed bot's event gets a new export)."""
    parts = [FORMAT, str(CACHE_VERSION)]
    parts += sorted(f"{e.bot_id}:{e.owner_id}:{e.name}" for e in entries)
    digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    created = int(tournament.created_at.timestamp() * 1_000_000)
    return f"tournament-{tournament.id}-{created}-{digest}"


class ExportCache:
    """The cache folder of one API process; :attr:`made` counts exports written here."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.made = 0
        self._locks: dict[str, asyncio.Lock] = {}

    def find(self, tournament: Tournament, entries: Sequence[Entry]) -> CachedExport | None:
        """The files of ``tournament`` (with these ``entries``) if they are complete, else
        None."""
        key = cache_key(tournament, entries)
        paths = self._paths(key)
        try:
            meta = msgspec.json.decode(paths[2].read_bytes(), type=Meta)
            sizes = (paths[0].stat().st_size, paths[1].stat().st_size)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None
        if sizes != (meta.plain_size, meta.gzip_size):
            return None
        return CachedExport(paths[0], paths[1], meta)

    async def get(
        self, pool: asyncpg.Pool, tournament: Tournament, entries: Sequence[Entry]
    ) -> CachedExport | None:
        """The files of a finished event, made now if they are missing; None when the
        event may still change (not over, or a match of it still played) or the files cannot
        be written (logged; the caller streams the export from the database)."""
        if not tournament.seed_revealed:
            return None
        found = self.find(tournament, entries)
        if found is not None:
            return found
        key = cache_key(tournament, entries)
        lock = self._locks.setdefault(key, asyncio.Lock())
        try:
            async with lock:  # one request of this process makes it; the others wait for it
                found = self.find(tournament, entries)
                if found is not None:
                    return found
                snap = await flow_export.snapshot(pool, tournament.id)
                if not all(match.stopped for match in snap.matches):
                    return None
                try:
                    return await self._make(pool, snap, key)
                except OSError as exc:  # a full disk, a folder not writable: streamed instead
                    logger.warning("export of tournament %d not kept: %s", tournament.id, exc)
                    return None
        finally:
            if not lock.locked():
                self._locks.pop(key, None)

    def _paths(self, key: str) -> tuple[Path, Path, Path]:
        base = self.directory / key
        return base.with_suffix(".json"), base.with_suffix(".json.gz"), base.with_suffix(".meta")

    async def _make(self, pool: asyncpg.Pool, snap: flow_export.Snapshot, key: str) -> CachedExport:
        self.directory.mkdir(parents=True, exist_ok=True)
        plain_path, gzip_path, meta_path = self._paths(key)
        writer = _Writer(self.directory, key)
        try:
            async for chunk in flow_export.export_chunks(pool, snap):
                await asyncio.to_thread(writer.write, chunk)
            meta = await asyncio.to_thread(writer.finish)
            os.replace(writer.plain_tmp, plain_path)
            os.replace(writer.gzip_tmp, gzip_path)
            _atomic_write(meta_path, msgspec.json.encode(meta))
        finally:
            writer.discard()
        self.made += 1
        logger.info(
            "export of tournament %d made: %d bytes, %d gzipped",
            snap.head.tournament.id,
            meta.plain_size,
            meta.gzip_size,
        )
        return CachedExport(plain_path, gzip_path, meta)


class _Writer:
    """The two temporary files being written (plain and gzip) and the document's digest."""

    def __init__(self, directory: Path, key: str) -> None:
        self.plain_tmp = directory / f".{key}.{os.getpid()}.{id(self)}.json.tmp"
        self.gzip_tmp = directory / f".{key}.{os.getpid()}.{id(self)}.json.gz.tmp"
        self._plain: BinaryIO = open(self.plain_tmp, "wb")  # noqa: SIM115 - closed in finish
        self._gzip: BinaryIO = open(self.gzip_tmp, "wb")  # noqa: SIM115
        self._packer = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
        self._digest = hashlib.sha256()
        self._plain_size = 0
        self._gzip_size = 0

    def write(self, chunk: bytes) -> None:
        self._plain.write(chunk)
        self._digest.update(chunk)
        self._plain_size += len(chunk)
        packed = self._packer.compress(chunk)
        self._gzip.write(packed)
        self._gzip_size += len(packed)

    def finish(self) -> Meta:
        tail = self._packer.flush()
        self._gzip.write(tail)
        self._gzip_size += len(tail)
        for handle in (self._plain, self._gzip):
            handle.flush()
            os.fsync(handle.fileno())
            handle.close()
        return Meta(self._digest.hexdigest(), self._plain_size, self._gzip_size)

    def discard(self) -> None:
        for handle in (self._plain, self._gzip):
            handle.close()
        for path in (self.plain_tmp, self.gzip_tmp):
            with contextlib.suppress(FileNotFoundError):
                path.unlink()


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def open_file(path: Path) -> BinaryIO:
    """``path`` opened for :func:`file_chunks` (a copy renamed over it later does not matter)."""
    return open(path, "rb")


async def file_chunks(handle: BinaryIO, chunk: int = READ_CHUNK) -> AsyncIterator[bytes]:
    """``handle``'s file a chunk at a time, each read only when the previous one was taken
    (the response's ``send`` waits while the client does not drain: memory stays a chunk);
    closes ``handle`` at the end."""
    try:
        while True:
            data = await asyncio.to_thread(handle.read, chunk)
            if not data:
                return
            yield data
    finally:
        handle.close()
