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

A ladder day's export (``GET /v1/ladders/{pool}/days/{day}/export``) is kept the same way once
the day is revealed (over, and none of its matches playing): its files are named by the pool,
the day and a digest of its commitment (so another database's day never meets them).

**The folder is kept to a size** (``TRUCO_EXPORT_CACHE_BYTES``, issue 33, 7: a bot's owner who
renamed the bot and asked for the export again got a new 84 MB file each time, 84 -> 336 MB,
none ever removed). When an export is made, the other files of the same event (made for names
since changed) are removed at once, then the least recently used exports (each use touches its
``.meta``) until the folder is within its size; the export just made is never removed, so the
size may be passed by that one export. A reader of a removed file keeps reading it (the file
lives on until it is closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import BinaryIO

import asyncpg
import msgspec

from services.db.tournaments import Entry, Tournament
from services.flow import export as flow_export
from services.flow.ladder_export import day_chunks
from services.tournaments.files.export_document import FORMAT, LADDER_DAY_FORMAT

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
    return f"{_event_group(tournament)}{digest}"


def _event_group(tournament: Tournament) -> str:
    """What every key of one event starts with (its exports for names since changed too)."""
    created = int(tournament.created_at.timestamp() * 1_000_000)
    return f"tournament-{tournament.id}-{created}-"


def day_key(ladder: str, day: date, commitment: str) -> str:
    """A ladder day's files: the pool, the day and a digest of the format and the day's
    commitment (another database's day of the same date has another)."""
    parts = [LADDER_DAY_FORMAT, str(CACHE_VERSION), commitment]
    digest = hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]
    return f"ladder-{ladder}-{day.isoformat()}-{digest}"


Making = Callable[[], Awaitable[AsyncIterator[bytes] | None]]
"""Reads what an export needs and gives its chunks; None when it may still change."""


class ExportCache:
    """The cache folder of one API process; :attr:`made` counts exports written here and
    :attr:`removed` exports removed to keep the folder within ``max_bytes`` (None: no bound)."""

    def __init__(self, directory: Path, max_bytes: int | None = None) -> None:
        self.directory = directory
        self.max_bytes = max_bytes
        self.made = 0
        self.removed = 0
        self._locks: dict[str, asyncio.Lock] = {}

    def find(self, tournament: Tournament, entries: Sequence[Entry]) -> CachedExport | None:
        """The files of ``tournament`` (with these ``entries``) if they are complete, else
        None."""
        return self.find_key(cache_key(tournament, entries))

    def find_key(self, key: str) -> CachedExport | None:
        """The complete files under ``key`` (their use noted for the pruning), else None."""
        paths = self._paths(key)
        try:
            meta = msgspec.json.decode(paths[2].read_bytes(), type=Meta)
            sizes = (paths[0].stat().st_size, paths[1].stat().st_size)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None
        if sizes != (meta.plain_size, meta.gzip_size):
            return None
        with contextlib.suppress(OSError):
            os.utime(paths[2])  # used now: the least recently used leave first
        return CachedExport(paths[0], paths[1], meta)

    async def get(
        self, pool: asyncpg.Pool, tournament: Tournament, entries: Sequence[Entry]
    ) -> CachedExport | None:
        """The files of a finished event, made now if they are missing; None when the
        event may still change (not over, or a match of it still played) or the files cannot
        be written (logged; the caller streams the export from the database)."""
        if not tournament.seed_revealed:
            return None

        async def making() -> AsyncIterator[bytes] | None:
            snap = await flow_export.snapshot(pool, tournament.id)
            if not all(match.stopped for match in snap.matches):
                return None
            return flow_export.export_chunks(pool, snap)

        key = cache_key(tournament, entries)
        return await self.kept(key, _event_group(tournament), making, f"tournament {tournament.id}")

    async def get_day(
        self, pool: asyncpg.Pool, ladder: str, day: date, commitment: str
    ) -> CachedExport | None:
        """The files of a revealed ladder day (the caller checked it is), made now if missing;
        None when they cannot be written (the caller streams the day instead)."""

        async def making() -> AsyncIterator[bytes] | None:
            return day_chunks(pool, ladder, day)

        key = day_key(ladder, day, commitment)
        group = key.rsplit("-", 1)[0] + "-"
        return await self.kept(key, group, making, f"ladder {ladder} day {day}")

    async def kept(self, key: str, group: str, making: Making, label: str) -> CachedExport | None:
        """The files under ``key``, made from ``making`` if missing (one making per key in
        this process; the others wait for it), then the folder pruned (other keys of
        ``group`` first)."""
        found = self.find_key(key)
        if found is not None:
            return found
        lock = self._locks.setdefault(key, asyncio.Lock())
        try:
            async with lock:
                found = self.find_key(key)
                if found is not None:
                    return found
                chunks = await making()
                if chunks is None:
                    return None
                try:
                    made = await self._make(chunks, key, label)
                except OSError as exc:  # a full disk, a folder not writable: streamed instead
                    logger.warning("export of %s not kept: %s", label, exc)
                    return None
                self.prune(keep=key, group=group)
                return made
        finally:
            if not lock.locked():
                self._locks.pop(key, None)

    def prune(self, keep: str, group: str = "") -> None:
        """Remove the other exports of ``group`` (made for names since changed), then the least
        recently used until the folder is within :attr:`max_bytes`; never ``keep``."""
        kept: list[tuple[float, int, str]] = []
        for meta in self.directory.glob("*.meta"):
            key = meta.name.removesuffix(".meta")
            if key == keep:
                continue
            if group and key.startswith(group):
                self._remove(key)
                continue
            try:
                used = meta.stat().st_mtime
            except OSError:
                continue
            kept.append((used, sum(_size(p) for p in self._paths(key)), key))
        if self.max_bytes is None:
            return
        total = sum(size for _, size, _ in kept) + sum(_size(p) for p in self._paths(keep))
        for _, size, key in sorted(kept):
            if total <= self.max_bytes:
                return
            self._remove(key)
            total -= size

    def _remove(self, key: str) -> None:
        plain, packed, meta = self._paths(key)
        for path in (meta, plain, packed):  # the .meta first: the pair is no longer complete
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        self.removed += 1
        logger.info("export %s removed from the cache folder", key)

    def _paths(self, key: str) -> tuple[Path, Path, Path]:
        base = self.directory / key
        return (
            base.with_name(key + ".json"),
            base.with_name(key + ".json.gz"),
            base.with_name(key + ".meta"),
        )

    async def _make(self, chunks: AsyncIterator[bytes], key: str, label: str) -> CachedExport:
        self.directory.mkdir(parents=True, exist_ok=True)
        plain_path, gzip_path, meta_path = self._paths(key)
        writer = _Writer(self.directory, key)
        try:
            async for chunk in chunks:
                await asyncio.to_thread(writer.write, chunk)
            meta = await asyncio.to_thread(writer.finish)
            os.replace(writer.plain_tmp, plain_path)
            os.replace(writer.gzip_tmp, gzip_path)
            _atomic_write(meta_path, msgspec.json.encode(meta))
        finally:
            writer.discard()
        self.made += 1
        logger.info(
            "export of %s made: %d bytes, %d gzipped", label, meta.plain_size, meta.gzip_size
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


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
