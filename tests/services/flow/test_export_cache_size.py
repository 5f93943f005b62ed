"""The export folder is kept to a size (issue 33, 7): a bot's owner who renamed the bot and asked
for the export again got a new 84 MB file each time (84 -> 336 MB), never removed. Making an
export removes the event's other files at once, then the least recently used exports until the
folder is within ``TRUCO_EXPORT_CACHE_BYTES``; the export just made stays, and a reader of a
removed file reads it to its end."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from services.flow.export_cache import ExportCache

pytestmark = pytest.mark.anyio
SIZE = 50_000


def document(fill: bytes, size: int = SIZE) -> bytes:
    return b'{"x":"' + fill * (size - 8) + b'"}'


async def make(cache: ExportCache, key: str, group: str, fill: bytes) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield document(fill)

    async def making() -> AsyncIterator[bytes] | None:
        return chunks()

    made = await cache.kept(key, group, making, key)
    assert made is not None and made.plain.read_bytes() == document(fill)


def keys(folder: Path) -> set[str]:
    return {p.name.removesuffix(".meta") for p in folder.glob("*.meta")}


def used(cache: ExportCache, key: str, at: float) -> None:
    os.utime(cache.directory / f"{key}.meta", (at, at))


async def test_the_least_recently_used_exports_leave_and_the_folder_stays_within_its_size(
    tmp_path: Path,
) -> None:
    # about three exports fit (each is its document, its gzip form and a small .meta)
    cache = ExportCache(tmp_path, max_bytes=int(SIZE * 3.2))
    for n, key in enumerate(("tournament-1-1-a", "tournament-2-1-a", "tournament-3-1-a")):
        await make(cache, key, key[:-1], b"abc"[n : n + 1])
        used(cache, key, 1_000_000 + n)
    assert keys(tmp_path) == {"tournament-1-1-a", "tournament-2-1-a", "tournament-3-1-a"}
    # event 1 is read again: now event 2 is the least recently used
    assert cache.find_key("tournament-1-1-a") is not None
    await make(cache, "tournament-4-1-a", "tournament-4-1-", b"d")
    assert keys(tmp_path) == {"tournament-1-1-a", "tournament-3-1-a", "tournament-4-1-a"}
    assert cache.removed == 1
    on_disk = sum(p.stat().st_size for p in tmp_path.iterdir() if not p.name.startswith("."))
    assert on_disk <= cache.max_bytes  # type: ignore[operator]
    assert not list(tmp_path.glob("tournament-2-*"))  # the pair and its .meta


async def test_a_renamed_bot_s_event_keeps_one_export(tmp_path: Path) -> None:
    cache = ExportCache(tmp_path, max_bytes=None)  # no size: only the event's own older files
    group = "tournament-7-123-"
    for n, digest in enumerate(("aaaa", "bbbb", "cccc", "dddd")):  # four renames
        await make(cache, group + digest, group, b"wxyz"[n : n + 1])
    await make(cache, "tournament-8-123-aaaa", "tournament-8-123-", b"q")
    assert keys(tmp_path) == {group + "dddd", "tournament-8-123-aaaa"}
    assert len(list(tmp_path.iterdir())) == 6  # two exports of three files each


async def test_the_export_just_made_stays_and_a_reader_of_a_removed_one_finishes(
    tmp_path: Path,
) -> None:
    cache = ExportCache(tmp_path, max_bytes=SIZE // 2)  # smaller than any export
    await make(cache, "tournament-1-1-a", "tournament-1-1-", b"a")
    reading = cache.find_key("tournament-1-1-a")
    assert reading is not None
    handle = reading.plain.open("rb")
    try:
        head = handle.read(10)
        await make(cache, "tournament-2-1-a", "tournament-2-1-", b"b")
        assert keys(tmp_path) == {"tournament-2-1-a"}  # the new one kept, over the size
        assert head + handle.read() == document(b"a")  # removed under its reader: read whole
    finally:
        handle.close()
