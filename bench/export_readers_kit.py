"""The export readers' bench and tests (issue 21, break 2) share these: a finished event large
enough that its export outgrows the sockets' buffers (played in this process, random bots),
the API as a process of its own (its memory measured alone), and raw-socket readers that
read slowly or not at all."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncpg

from arena.client.connection import InProcessBot
from arena.match.replay import EntrantRecord
from arena.match.runner import run_match
from arena.sdk import strategy_decider
from bench.platform_procs import Procs
from bench.platform_run import ROOT
from bench.serve import SERVED, port_of, start_api
from engine.rules import Rules
from services import flow
from services.base.config import Secret
from services.base.secretbox import SecretBox
from services.db import accounts as db_accounts
from services.db import bots as db_bots
from services.db.pool import create_pool

SMALL_RCVBUF = 4096


def make_large_event(database_url: str, bots: int = 16, games: int = 10) -> int:
    """A finished round robin of ``bots`` bots and ``games`` games a match, played in process
    by random bots (16 bots, 10 games: 120 matches, an export of about 5 MB)."""

    async def made() -> int:
        pool = await create_pool(database_url, min_size=1, max_size=6)
        try:
            return await play_round_robin(pool, bots, games)
        finally:
            await pool.close()

    return asyncio.run(made())


async def play_round_robin(pool: asyncpg.Pool, bots: int, games: int) -> int:
    box = SecretBox(Secret("k" * 48))  # the bots are never called: their secrets never read
    tag = secrets.token_hex(4)
    owner = (await db_accounts.create_account(pool, f"big-{tag}", secrets.token_bytes(32))).id
    tournament = await flow.create_tournament(
        pool,
        organiser_id=owner,
        name=f"big-{tag}",
        format="round_robin",
        mode="1v1",
        settings=flow.TournamentSettings(rules=Rules(points_to_win=15), games_per_match=games),
    )
    for k in range(bots):
        async with pool.acquire() as conn:
            bot = await db_bots.create_bot(
                conn,
                owner_id=owner,
                name=f"big-{tag}-{k}",
                url="http://127.0.0.1:9",
                encrypt_secret=lambda bot_id: box.encrypt("whsec_never-used", bot_id),
                key_id=box.key_id,
            )
        await flow.enter_tournament(pool, tournament.id, bot.id)
    pending = await flow.start_tournament(pool, tournament.id)
    while pending:
        specs = await flow.match_specs(pool, pending, secret_box=box)
        pending = []
        for spec in specs:
            entrants = [
                (
                    EntrantRecord(e.name, e.url),
                    InProcessBot(e.name, strategy_decider("random", spec.seed % 1000 + e.bot_id)),
                )
                for e in spec.entrants
            ]
            replay = await run_match(str(spec.match_id), spec.seed, spec.settings, entrants)
            recorded = await flow.record_result(
                pool, spec.match_id, replay, task_id=f"t{spec.match_id}"
            )
            pending += recorded.next_ids
    return tournament.id


def request(path: str, *, gzip: bool = False, headers: dict[str, str] | None = None) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1"]
    lines.append(f"Accept-Encoding: {'gzip' if gzip else 'identity'}")
    lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def stalled_reader(port: int, path: str, **kwargs: object) -> socket.socket:
    """A connection that asks for ``path`` and then reads nothing (a small receive buffer, so
    the server's send buffer fills soon)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, SMALL_RCVBUF)
    sock.settimeout(30)
    sock.connect(("127.0.0.1", port))
    sock.sendall(request(path, **kwargs))  # type: ignore[arg-type]
    return sock


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for process {pid}")


@dataclass(frozen=True)
class ApiProcess:
    port: int
    pid: int


@contextlib.contextmanager
def api_process(database_url: str, data_dir: Path, **env: str) -> Iterator[ApiProcess]:
    """``python -m services.api.serve`` on 127.0.0.1 with these ``TRUCO_*`` settings
    (:func:`bench.serve.start_api`; its log under ``data_dir``)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("TRUCO_")}
    environ.pop("REDIS_URL", None)  # rate-limit counters in memory
    environ.update(
        DATABASE_URL=database_url,
        TRUCO_SECRET_KEY="k" * 48,
        TRUCO_DATA_DIR=str(data_dir),
        TRUCO_RATE_LIMIT_PER_MINUTE="100000",
        TRUCO_ADDRESS_RATE_LIMIT_PER_MINUTE="100000",
        TRUCO_CONNECTIONS_PER_ADDRESS="100000",  # every reader is 127.0.0.1: memory is measured
        **env,
    )
    data_dir.mkdir(parents=True, exist_ok=True)
    with Procs(data_dir, ROOT) as procs:
        port = port_of(start_api(procs, environ, argv=SERVED, health=False))
        yield ApiProcess(port, procs.running["api"].pid)


def read_response(sock: socket.socket) -> tuple[bytes, bytes]:
    """A whole response with a Content-Length or closed at its end: (head, body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"closed before the head: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = None
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while length is None or len(body) < length:
        chunk = sock.recv(1 << 20)
        if not chunk:
            break
        body += chunk
    return head, body


def settle_rss(pid: int, *, quiet_s: float = 1.5, within_s: float = 30.0) -> int:
    """The process's RSS once it stopped growing for ``quiet_s`` (or after ``within_s``)."""
    deadline = time.monotonic() + within_s
    last = rss_bytes(pid)
    stable_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = rss_bytes(pid)
        if now > last + 256 * 1024:
            last, stable_since = now, time.monotonic()
        elif time.monotonic() - stable_since >= quiet_s:
            return max(now, last)
    return rss_bytes(pid)
