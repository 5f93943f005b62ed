"""From ``start_tournament`` to the queued matches' orders the tournament's row is read once,
under its lock: the first round is planned from that row, and each order's time limits come
from its match's own row (migration 0027), the event's. A caller who does not organise the
event cannot start it (checked under the same lock); the matches' column defaults are the
settings' defaults."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
import pytest

from engine.rules import Rules
from services import flow
from services.db import tournaments as db_tournaments
from services.domain.tournament_settings import (
    DEFAULT_FAULT_LIMIT,
    DEFAULT_TIME_BANK_MS,
    DEFAULT_TIMEOUT_MS,
)
from tests.services.helpers.flow_helpers import BOX, make_account, make_bot

pytestmark = pytest.mark.anyio


async def _event(pool: asyncpg.Pool) -> tuple[int, int]:
    organiser = await make_account(pool)
    tournament = await flow.create_tournament(
        pool,
        organiser_id=organiser,
        name="timed",
        format="swiss",
        mode="1v1",
        settings=flow.TournamentSettings(
            rules=Rules(points_to_win=15), timeout_ms=700, time_bank_ms=20_000, fault_limit=3
        ),
    )
    for _ in range(4):
        await flow.enter_tournament(pool, tournament.id, await make_bot(pool, organiser))
    return tournament.id, organiser


async def test_start_reads_the_tournament_once_and_the_orders_carry_its_limits(
    flow_pool: asyncpg.Pool, monkeypatch: pytest.MonkeyPatch
) -> None:
    tournament_id, organiser = await _event(flow_pool)
    reads: list[int] = []
    original: Callable[..., Awaitable[Any]] = db_tournaments.get_tournament

    async def counted(conn: Any, tid: int, **kwargs: Any) -> Any:
        reads.append(tid)
        return await original(conn, tid, **kwargs)

    monkeypatch.setattr(db_tournaments, "get_tournament", counted)
    queued = await flow.start_tournament(flow_pool, tournament_id, organiser_id=organiser)
    orders = await flow.match_specs(flow_pool, queued, secret_box=BOX)
    assert len(orders) == 2 and reads == [tournament_id]
    assert {
        (o.settings.timeout_ms, o.settings.time_bank_ms, o.settings.fault_limit) for o in orders
    } == {(700, 20_000, 3)}


async def test_only_the_organiser_starts_it(flow_pool: asyncpg.Pool) -> None:
    tournament_id, _ = await _event(flow_pool)
    stranger = await make_account(flow_pool)
    with pytest.raises(flow.NotOrganiser):
        await flow.start_tournament(flow_pool, tournament_id, organiser_id=stranger)
    started = await db_tournaments.get_tournament(flow_pool, tournament_id)
    assert started is not None and started.status == "registering"


async def test_the_matches_time_limit_defaults_are_the_settings_defaults(
    flow_pool: asyncpg.Pool,
) -> None:
    rows = await flow_pool.fetch(
        "SELECT column_name, column_default FROM information_schema.columns "
        "WHERE table_name = 'matches' AND column_name IN ('timeout_ms', 'time_bank_ms', "
        "'fault_limit')"
    )
    defaults = {r["column_name"]: int(r["column_default"]) for r in rows}
    assert defaults == {
        "timeout_ms": DEFAULT_TIMEOUT_MS,
        "time_bank_ms": DEFAULT_TIME_BANK_MS,
        "fault_limit": DEFAULT_FAULT_LIMIT,
    }
    assert flow.TournamentSettings().timeout_ms == DEFAULT_TIMEOUT_MS
