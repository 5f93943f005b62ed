"""Export readers as the attack of issue 21 (break 2) made them, against the API as served on
127.0.0.1: stalled readers that never read, a reader draining a byte a second, one address
opening export after export, the same finished export asked for again and again.

A finished event's export is made once (the cache folder's files and the app's count of
exports made say so), served from its file with an ETag, and is the same document (it
verifies); a running event's is streamed a match at a time. Neither holds more than a chunk
and the socket buffers per reader."""

from __future__ import annotations

import asyncio
import gzip
import logging
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import httpx
import pytest

from bench.export_readers_kit import (
    api_process,
    make_large_event,
    play_round_robin,
    read_response,
    rss_bytes,
    settle_rss,
    stalled_reader,
)
from services.api import serve
from services.api.routes.export_serving import slots_of
from services.api.routes.tournament_export import cache_of
from services.base.config import ExportSettings, Settings, WebSettings
from services.db import tournaments as db_tournaments
from services.db.pool import create_pool
from services.flow.export_cache import ExportCache
from services.tournaments.files.export_document import decode_export
from tests.services.api.served_api import HANG_GUARD_S, Served, serve_api
from truco_cli.verify_event import verify_export

pytestmark = pytest.mark.slow  # run early (tests/slow_first.py)

WRITE_DEADLINE_S = 2.0
PER_ADDRESS, TOTAL = 2, 3
STALLED = 40
TCP_ESTABLISHED, TCP_CLOSE, TCP_CLOSE_WAIT = 1, 7, 8
# per stalled reader: a file chunk, the transport's buffer and slack (finished); a batch of
# replays and the event's snapshot (running): far below the export (5 MB) or its copies
PER_READER_BOUND = {False: 1024 * 1024, True: 2 * 1024 * 1024}


@pytest.fixture(scope="module")
def large_event(api_database_url: str) -> int:
    return make_large_event(api_database_url)


@pytest.fixture(scope="module")
def served(api_database_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    settings = Settings(
        data_dir=str(tmp_path_factory.mktemp("data")),
        web=WebSettings(trusted_proxies=("127.0.0.1/32",), write_deadline_s=WRITE_DEADLINE_S),
        exports=ExportSettings(per_address=PER_ADDRESS, total=TOTAL),
    )
    with serve_api(api_database_url, settings=settings, write_deadline_s=WRITE_DEADLINE_S) as s:
        yield s


def _get(served: Served, path: str, **headers: str) -> httpx.Response:
    return httpx.get(f"http://127.0.0.1:{served.port}{path}", headers=headers, timeout=60)


def _export_path(tid: int) -> str:
    return f"/v1/tournaments/{tid}/export"


def test_a_finished_export_is_made_once_and_served_from_its_file(
    served: Served, large_event: int
) -> None:
    assert served.app is not None
    cache = cache_of(served.app.state)
    made_before = cache.made
    plain = _get(served, _export_path(large_event), **{"accept-encoding": "identity"})
    assert plain.status_code == 200, plain.text
    files = sorted(cache.directory.glob(f"tournament-{large_event}-*"))
    assert [f.suffix for f in files] == [".json", ".gz", ".meta"]
    # not written again: the same inodes, and the documents' times (the .meta's time is when
    # the export was last used, for the cache's pruning)
    stamps = [(f.stat().st_ino, f.stat().st_mtime_ns if f.suffix != ".meta" else 0) for f in files]
    packed = httpx.Client(timeout=60).send(
        httpx.Request(
            "GET",
            f"http://127.0.0.1:{served.port}{_export_path(large_event)}",
            headers={"accept-encoding": "gzip"},
        ),
        stream=True,
    )
    raw = b"".join(packed.iter_raw())
    again = _get(served, _export_path(large_event), **{"accept-encoding": "identity"})
    assert cache.made == made_before + 1  # three requests, one export made
    assert [
        (f.stat().st_ino, f.stat().st_mtime_ns if f.suffix != ".meta" else 0) for f in files
    ] == stamps
    assert packed.headers["content-encoding"] == "gzip"
    assert gzip.decompress(raw) == plain.content == again.content  # byte for byte
    assert int(plain.headers["content-length"]) == len(plain.content) > 2_000_000
    doc = decode_export(plain.content)
    lines: list[str] = []
    assert verify_export(doc, say=lines.append).complete, lines
    assert doc.tournament.status == "finished" and len(doc.matches) == 120

    # a strong ETag per representation; a matching If-None-Match is a 304 without a body
    assert plain.headers["etag"] != packed.headers["etag"]
    for encoding, tag in (("identity", plain.headers["etag"]), ("gzip", packed.headers["etag"])):
        cached = _get(
            served,
            _export_path(large_event),
            **{"accept-encoding": encoding, "if-none-match": f'"other", {tag}'},
        )
        assert cached.status_code == 304 and cached.content == b""
        assert cached.headers["etag"] == tag
    stale = _get(served, _export_path(large_event), **{"if-none-match": '"other"'})
    assert stale.status_code == 200 and stale.headers["etag"] == packed.headers["etag"]
    assert cache.made == made_before + 1


def test_a_bot_renamed_after_the_event_gets_the_export_made_again(
    served: Served, api_database_url: str, large_event: int
) -> None:
    assert served.app is not None
    cache = cache_of(served.app.state)
    first = _get(served, _export_path(large_event))
    made = cache.made
    entry = decode_export(first.content).entries[0]  # httpx has decompressed it
    new_name = f"renamed-{entry.bot_id}"
    _sql(api_database_url, "UPDATE bots SET name = $1 WHERE id = $2", new_name, entry.bot_id)
    again = _get(served, _export_path(large_event))
    assert cache.made == made + 1 and again.headers["etag"] != first.headers["etag"]
    renamed = decode_export(again.content).entries[0]
    assert (renamed.bot_id, renamed.name) == (entry.bot_id, new_name)
    assert _get(served, _export_path(large_event)).content == again.content
    assert cache.made == made + 1
    # issue 33, 7: the files made for the old name are gone (the folder did grow by 84 MB a
    # rename, never shrinking): one export of the event is kept
    assert len(list(cache.directory.glob(f"tournament-{large_event}-*.meta"))) == 1
    assert len(list(cache.directory.glob(f"tournament-{large_event}-*"))) == 3


def test_a_reader_draining_a_byte_a_second_is_cut_at_the_write_deadline(
    served: Served, large_event: int, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger=serve.logger.name)
    assert _get(served, _export_path(large_event)).status_code == 200  # the file exists
    with stalled_reader(served.port, _export_path(large_event)) as sock:
        began = time.monotonic()
        received = 0
        cut_at = None
        while time.monotonic() - began < WRITE_DEADLINE_S + HANG_GUARD_S:
            # the server's reset leaves what the kernel had received readable (a byte a
            # second would take minutes): the connection's own state says it was cut
            if _tcp_state(sock) in (TCP_CLOSE, TCP_CLOSE_WAIT):
                cut_at = time.monotonic()
                break
            try:
                byte = sock.recv(1)
            except ConnectionResetError:
                cut_at = time.monotonic()
                break
            if not byte:
                cut_at = time.monotonic()
                break
            received += 1
            time.sleep(1.0)
    assert cut_at is not None, "a byte-a-second reader was still served"
    assert cut_at - began >= WRITE_DEADLINE_S - 0.5  # not before its deadline
    # cut by the write deadline (how soon after it is speed: no bound here)
    assert "of a full send buffer" in caplog.text and "connection cut" in caplog.text


def test_a_slow_but_steady_reader_is_not_cut(served: Served, large_event: int) -> None:
    """The deadline is on progress, not speed: 8 KiB every 0.25 s outlives three deadlines."""
    assert _get(served, _export_path(large_event)).status_code == 200
    with stalled_reader(served.port, _export_path(large_event)) as sock:
        began = time.monotonic()
        received = 0
        while time.monotonic() - began < 3 * WRITE_DEADLINE_S:
            chunk = sock.recv(8192)
            assert chunk, f"cut after {received} bytes, {time.monotonic() - began:.1f} s"
            received += len(chunk)
            time.sleep(0.25)
        assert _tcp_state(sock) == TCP_ESTABLISHED
    assert received > 50_000


def _tcp_state(sock: socket.socket) -> int:
    """The connection's TCP state (Linux ``TCP_INFO``: the first byte)."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def test_the_per_address_cap_refuses_the_next_export_and_others_are_served(
    served: Served, large_event: int
) -> None:
    path = _export_path(large_event)
    assert _get(served, path).status_code == 200
    one = {"X-Forwarded-For": "198.51.100.1"}
    held = [stalled_reader(served.port, path, headers=one) for _ in range(PER_ADDRESS)]
    try:
        for sock in held:
            head = sock.recv(4096)
            assert head.startswith(b"HTTP/1.1 200"), head[:200]
        refused = _get(served, path, **one)
        assert refused.status_code == 429, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.json()["type"].endswith("/too-many-exports")
        assert int(refused.headers["retry-after"]) > 0
        # another address is served; the cap of the whole process then refuses with a 503
        other = {"X-Forwarded-For": "198.51.100.2"}
        third = stalled_reader(served.port, path, headers=other)
        held.append(third)
        assert third.recv(4096).startswith(b"HTTP/1.1 200")
        busy = _get(served, path, **{"X-Forwarded-For": "198.51.100.3"})
        assert busy.status_code == 503 and busy.json()["type"].endswith("/exports-busy")
        assert int(busy.headers["retry-after"]) > 0
        assert _get(served, f"/v1/tournaments/{large_event}").status_code == 200
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + 20  # the slots are given back once the readers are gone
    while (status := _get(served, path, **one).status_code) != 200:
        assert status in (429, 503) and time.monotonic() < deadline
        time.sleep(0.2)


def _sql(database_url: str, statement: str, *args: object) -> None:
    async def run() -> None:
        pool: asyncpg.Pool = await create_pool(database_url, min_size=1, max_size=1)
        try:
            await pool.execute(statement, *args)
        finally:
            await pool.close()

    asyncio.run(run())


@pytest.mark.parametrize("running", [False, True], ids=["finished", "running"])
def test_stalled_readers_do_not_grow_the_api_memory(
    api_database_url: str, tmp_path: Path, large_event: int, running: bool
) -> None:
    """On the module's large event (made once: playing it is most of the cost), read by an
    API process of the test's own (its own export cache)."""
    tid = large_event
    if running:  # as if a round were still to come: streamed from the database, not a file
        _sql(api_database_url, "UPDATE tournaments SET status = 'running' WHERE id = $1", tid)
    try:
        _stalled_readers(api_database_url, tmp_path, tid, running)
    finally:  # finished again, for the module's other tests
        _sql(api_database_url, "UPDATE tournaments SET status = 'finished' WHERE id = $1", tid)


def _stalled_readers(api_database_url: str, tmp_path: Path, tid: int, running: bool) -> None:
    path = _export_path(tid)
    with api_process(
        api_database_url,
        tmp_path,
        TRUCO_EXPORTS_PER_ADDRESS=str(STALLED + 5),
        TRUCO_EXPORTS_TOTAL=str(STALLED + 5),
        TRUCO_WRITE_DEADLINE_S="600",
    ) as api:
        size = 0
        for _ in range(2):  # the file made, the process warmed up by whole downloads
            with socket.create_connection(("127.0.0.1", api.port), timeout=60) as sock:
                sock.sendall(
                    f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
                )
                head, body = read_response(sock)
                assert head.startswith(b"HTTP/1.1 200"), head
                size = len(body)
        assert size > 2_000_000
        before = settle_rss(api.pid)
        readers = [stalled_reader(api.port, path) for _ in range(STALLED)]
        try:
            for sock in readers:
                assert sock.recv(64).startswith(b"HTTP/1.1 200")
            after = settle_rss(api.pid)
            with socket.create_connection(("127.0.0.1", api.port), timeout=30) as sock:
                sock.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n")
                assert sock.recv(64).startswith(b"HTTP/1.1 200")  # others still answered
            assert rss_bytes(api.pid) > 0
        finally:
            for sock in readers:
                sock.close()
    grown = after - before
    print(f"\n{STALLED} stalled readers of a {size} byte export: RSS +{grown / 2**20:.1f} MiB")
    assert grown < STALLED * PER_READER_BOUND[running], (grown, size)


@pytest.mark.anyio
async def test_an_unwritable_cache_folder_streams_the_export_instead(
    api_database_url: str, tmp_path: Path
) -> None:
    """A full disk or a folder that cannot be written is no 500: the export is streamed."""
    pool = await create_pool(api_database_url, min_size=1, max_size=2)
    try:
        tid = await play_round_robin(pool, 4, 1)
        tournament = await db_tournaments.get_tournament(pool, tid)
        assert tournament is not None and tournament.seed_revealed
        entries = await db_tournaments.entries(pool, tid)
        blocked = tmp_path / "not-a-folder"
        blocked.write_text("a file where the folder should be")
        cache = ExportCache(blocked / "exports")
        assert await cache.get(pool, tournament, entries) is None and cache.made == 0
        kept = ExportCache(tmp_path / "exports")
        made = await kept.get(pool, tournament, entries)
        assert made is not None and kept.made == 1
        assert decode_export(made.plain.read_bytes()).tournament.id == tid
        assert gzip.decompress(made.gzipped.read_bytes()) == made.plain.read_bytes()
    finally:
        await pool.close()


class SlowReader(threading.Thread):
    """A reader of ``path`` from ``address`` taking 8 KiB every 0.25 s (32 KB/s, above the
    write floor: never cut), as the attack's 1.1 KB/s readers, until told to stop."""

    def __init__(self, port: int, path: str, address: str) -> None:
        super().__init__(daemon=True)
        self.sock = stalled_reader(port, path, headers={"X-Forwarded-For": address})
        self.head = self.sock.recv(4096)
        self.stop = threading.Event()
        self.received = len(self.head)

    def run(self) -> None:
        while not self.stop.wait(0.25):
            try:
                chunk = self.sock.recv(8192)
            except OSError:
                return
            if not chunk:
                return
            self.received += len(chunk)

    def close(self) -> None:
        self.stop.set()
        self.join(HANG_GUARD_S)
        self.sock.close()


def test_slow_readers_hold_their_own_addresses_places_not_everyones(
    served: Served, large_event: int
) -> None:
    """Issue 33, 7: readers above the write floor from several addresses held every export slot
    (another address got 503s for 136 s; ``truco verify`` downloads the same export). A
    download keeps its place in the process's total for its first ``TRUCO_EXPORT_SLOT_S``
    only, then goes on in overtime, counted against its own address."""
    assert served.app is not None
    path = _export_path(large_event)
    assert _get(served, path).status_code == 200  # the file exists
    slots = slots_of(served.app.state)
    slots.slot_s, kept = 1.0, slots.slot_s
    addresses = ["198.51.100.31", "198.51.100.31", "198.51.100.32"]  # fill the total of 3
    readers = [SlowReader(served.port, path, a) for a in addresses]
    try:
        for reader in readers:
            assert reader.head.startswith(b"HTTP/1.1 200"), reader.head[:200]
            reader.start()
        deadline = time.monotonic() + HANG_GUARD_S
        while slots.in_slots > 0:  # each went into overtime after its first second
            assert time.monotonic() < deadline, (slots.in_slots, slots.overtimes)
            time.sleep(0.05)
        assert all(r.is_alive() for r in readers)  # still downloading, none cut
        assert slots.by_address == {"198.51.100.31": 2, "198.51.100.32": 1}
        # another address gets its export while they read, and it verifies
        other = _get(served, path, **{"X-Forwarded-For": "198.51.100.33"})
        assert other.status_code == 200, other.text
        lines: list[str] = []
        assert verify_export(decode_export(other.content), say=lines.append).complete, lines
        # the slow readers' address is still at its own cap
        refused = _get(served, path, **{"X-Forwarded-For": "198.51.100.31"})
        assert refused.status_code == 429 and refused.json()["type"].endswith("too-many-exports")
    finally:
        slots.slot_s = kept
        for reader in readers:
            reader.close()
    assert max(r.received for r in readers) > 8192
