"""Helpers for the workflow tests: bots straight in the database, and a sender that runs
matches in this process (the job Celery does in production) and records their results,
recursively for the rounds that follow, so a whole tournament runs without workers."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field

import asyncpg
import pytest

from arena.client.connection import BotConnection, InProcessBot
from arena.match.entrants import connect
from arena.match.replay import EntrantRecord, Replay
from arena.match.runner import run_match
from arena.sdk import strategy_decider
from engine.rules import Rules
from services import flow
from services.base.config import Secret
from services.base.secretbox import SecretBox
from services.db import accounts as db_accounts
from services.db import bots as db_bots
from services.db.pool import create_pool
from services.domain.match_order import EntrantOrder, MatchOrder

SECRET_KEY = Secret("s" * 48)  # the same key as api_helpers.settings()
BOX = SecretBox(SECRET_KEY)

Connector = Callable[[EntrantOrder, int], tuple[EntrantRecord, BotConnection]]


def in_process(strategies: dict[int, str]) -> Connector:
    """Entrants played by built-in strategies in process, chosen per bot id (default random)."""

    def make(entrant: EntrantOrder, seed: int) -> tuple[EntrantRecord, BotConnection]:
        strategy = strategies.get(entrant.bot_id, "random")
        decide = strategy_decider(strategy, seed + entrant.bot_id)
        return EntrantRecord(entrant.name, entrant.url), InProcessBot(entrant.name, decide)

    return make


NO_FAULT_MS = 30_000
""":func:`over_http`'s deadline: the tests that call bots that way expect no timeout, so it is
one no loaded machine reaches. At 2 s, one loaded run (four busy processes beside the suite)
failed an SPRT test on a bot it "cannot reach", and a ladder-dodging test whose dodger was
paused (after three walkovers) having refused only two matches itself. A test about deadlines
uses :func:`timed_http` (``InProcessSender(timed=True)``)."""


def over_http(entrant: EntrantOrder, seed: int) -> tuple[EntrantRecord, BotConnection]:
    """Entrants called over real HTTP (signed, guarded client; loopback allowed in tests),
    with a deadline no bot of a test misses (:data:`NO_FAULT_MS`)."""
    return connect(
        entrant.url,
        seed=seed,
        secret=entrant.secret,
        timeout_ms=NO_FAULT_MS,
        allow_loopback=True,
        label=entrant.name,
    )


def timed_http(
    entrant: EntrantOrder, seed: int, timeout_ms: int
) -> tuple[EntrantRecord, BotConnection]:
    """Entrants called over real HTTP with the match's per-call timeout (as the worker does)."""
    return connect(
        entrant.url,
        seed=seed,
        secret=entrant.secret,
        timeout_ms=timeout_ms,
        allow_loopback=True,
        label=entrant.name,
    )


@dataclass
class InProcessSender:
    """``MatchSender`` for tests: runs the matches now, concurrently, and records the results.

    ``before_record(match_id)`` runs after a match is played and before its result is stored
    (a test may withdraw a bot there); ``replays`` keeps what each match produced;
    ``attempt`` is the attempt every match is played as (a match begun again: arena/game/deals.py);
    ``timed``: bots are called over HTTP with each match's own per-call timeout, as the
    bot-calling worker calls them (the connector is then not used).
    """

    connector: Connector
    box: SecretBox = BOX
    before_record: Callable[[asyncpg.Pool, int], asyncio.Future[None] | None] | None = None
    played: list[int] = field(default_factory=list)
    replays: dict[int, Replay] = field(default_factory=dict)
    calls: int = 0
    attempt: int = 0
    timed: bool = False

    async def __call__(self, pool: asyncpg.Pool, match_ids: list[int]) -> None:
        self.calls += 1
        specs = await flow.match_specs(pool, match_ids, secret_box=self.box)
        await asyncio.gather(*(self._one(pool, spec) for spec in specs))

    async def _one(self, pool: asyncpg.Pool, spec: MatchOrder) -> None:
        seed = spec.seed % 1_000_000
        entrants = [
            timed_http(e, seed, spec.settings.timeout_ms) if self.timed else self.connector(e, seed)
            for e in spec.entrants
        ]
        replay = await run_match(
            str(spec.match_id), spec.seed, spec.settings, entrants, attempt=self.attempt
        )
        self.played.append(spec.match_id)
        self.replays[spec.match_id] = replay
        if self.before_record is not None:
            pending = self.before_record(pool, spec.match_id)
            if pending is not None:
                await pending
        recorded = await flow.record_result(
            pool, spec.match_id, replay, task_id=f"t{spec.match_id}"
        )
        new = recorded.next_ids
        if new:
            await self(pool, new)


async def make_account(pool: asyncpg.Pool, prefix: str = "org") -> int:
    account = await db_accounts.create_account(
        pool, f"{prefix}-{secrets.token_hex(4)}", secrets.token_bytes(32)
    )
    return account.id


async def make_bot(
    pool: asyncpg.Pool,
    owner_id: int,
    url: str = "http://127.0.0.1:9",
    prefix: str = "bot",
    *,
    secret: str | None = None,
    box: SecretBox = BOX,
) -> int:
    """A bot of ``owner_id`` stored with its signing ``secret`` (a new one by default) sealed
    by ``box`` (the API tests' key by default)."""
    sealed = secret or "whsec_" + secrets.token_urlsafe(24)
    async with pool.acquire() as conn:
        bot = await db_bots.create_bot(
            conn,
            owner_id=owner_id,
            name=f"{prefix}-{secrets.token_hex(4)}",
            url=url,
            encrypt_secret=lambda bot_id: box.encrypt(sealed, bot_id),
            key_id=box.key_id,
        )
    return bot.id


async def make_tournament(
    pool: asyncpg.Pool,
    format: str,
    bots: int,
    *,
    mode: str = "1v1",
    rounds: int | None = None,
    games_per_match: int = 2,
    third_place: bool = False,
    partnership: str = "team",
    owners: list[int] | None = None,
) -> tuple[int, list[int]]:
    """A registering tournament with ``bots`` new bots entered: (id, bot ids). The organiser
    owns them all, unless ``owners`` gives each bot's owner as an index into new accounts."""
    organiser = await make_account(pool)
    tournament = await flow.create_tournament(
        pool,
        organiser_id=organiser,
        name=f"cup-{secrets.token_hex(3)}",
        format=format,
        mode=mode,
        settings=flow.TournamentSettings(
            rules=Rules(points_to_win=15),
            rounds=rounds,
            games_per_match=games_per_match,
            third_place=third_place,
        ),
        partnership=partnership,
    )
    accounts = {k: await make_account(pool) for k in sorted(set(owners or []))}
    bot_ids = [
        await make_bot(pool, accounts[owners[k]] if owners else organiser) for k in range(bots)
    ]
    for bot_id in bot_ids:
        await flow.enter_tournament(pool, tournament.id, bot_id)
    return tournament.id, bot_ids


@pytest.fixture
async def flow_pool(api_database_url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool on the API tests' database (tables shared; every test makes its own rows)."""
    pool = await create_pool(api_database_url, min_size=1, max_size=6)
    try:
        yield pool
    finally:
        await pool.close()
