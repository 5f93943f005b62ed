"""What another owner's bot accepts (``services.flow.fair_play.refusal``): its own minimum
timeout in any event, the platform's floors in rated ones."""

from __future__ import annotations

from datetime import UTC, datetime

import asyncpg
import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services import flow
from services.base.config import FairPlaySettings
from services.flow.fair_play import NEED_MARGIN, Floors, floors_of, needed_timeout_ms, refusal
from services.flow.settings import TournamentSettings
from services.worker.results import periodic
from tests.services.helpers.flow_helpers import make_tournament

FLOORS = Floors(timeout_ms=200, fault_limit=3, games_per_match=2)


def test_the_floors_are_the_settings() -> None:
    assert floors_of(FairPlaySettings()) == FLOORS
    raised = FairPlaySettings(
        rated_min_timeout_ms=500, rated_min_fault_limit=4, rated_min_games_per_match=6
    )
    assert floors_of(raised) == Floors(500, 4, 6)


def test_settings_at_the_floors_are_accepted() -> None:
    at = TournamentSettings(timeout_ms=200, fault_limit=3, games_per_match=2)
    assert refusal(at, FLOORS, 7, None) is None
    assert refusal(TournamentSettings(), FLOORS, 7, 1000) is None  # the defaults: 1000 ms


def test_each_setting_under_its_floor_is_refused_naming_it() -> None:
    for field, value in (("timeout_ms", 199), ("fault_limit", 2), ("games_per_match", 1)):
        refused = refusal(TournamentSettings(**{field: value}), FLOORS, 7, None)
        assert refused is not None and refused.field == field
        assert f"{field} of at least" in str(refused) and f"is {value}" in str(refused)


def test_the_bots_own_minimum_holds_in_any_event() -> None:
    unrated = TournamentSettings(timeout_ms=1000, rated=False)
    refused = refusal(unrated, FLOORS, 7, 1500)
    assert refused is not None and refused.field == "timeout_ms"
    assert "bot 7 accepts a timeout_ms of at least 1500" in str(refused)
    assert refusal(unrated, None, 7, 1500) is not None  # no floors: still the bot's own
    assert refusal(TournamentSettings(timeout_ms=1500), FLOORS, 7, 1500) is None


@given(st.floats(min_value=1, max_value=40_000, allow_nan=False))
def test_a_bot_s_need_covers_its_measured_latency_with_the_margin(p95: float) -> None:
    need = needed_timeout_ms(p95)
    assert need is not None and need % 10 == 0
    assert p95 * NEED_MARGIN <= need < p95 * NEED_MARGIN + 10
    assert needed_timeout_ms(None) is None


def test_a_rated_event_under_a_bot_s_measured_need_is_refused_naming_it() -> None:
    at_floors = TournamentSettings(timeout_ms=200, fault_limit=3, games_per_match=2)
    refused = refusal(at_floors, FLOORS, 7, None, needed_ms=510)
    assert refused is not None and refused.field == "timeout_ms"
    assert "at least 510" in str(refused) and "measured latency" in str(refused)
    enough = msgspec.structs.replace(at_floors, timeout_ms=510)
    assert refusal(enough, FLOORS, 7, None, needed_ms=510) is None
    casual = msgspec.structs.replace(at_floors, rated=False)
    assert refusal(casual, FLOORS, 7, None, needed_ms=510) is None  # unrated: nothing to farm


def test_unrated_events_and_callers_without_floors_have_none() -> None:
    harsh = {"timeout_ms": 10, "fault_limit": 1, "games_per_match": 1}
    assert refusal(TournamentSettings(**harsh, rated=False), FLOORS, 7, None) is None
    assert refusal(TournamentSettings(**harsh), None, 7, None) is None
    assert refusal(TournamentSettings(**harsh), FLOORS, 7, None) is not None


@pytest.mark.anyio
async def test_a_scheduled_start_leaves_out_the_bots_that_refuse(flow_pool: asyncpg.Pool) -> None:
    """Beat starts a due event with the configured floors: an event of one game a match whose
    bots all belong to other owners (entered before the floors rose, or through the flow
    without floors) has nobody left to play, so it is cancelled at its start time like one with
    too few entries (not retried on every tick); the same event without floors starts."""
    made = [
        await make_tournament(flow_pool, "round_robin", 3, games_per_match=1, owners=[0, 1, 2])
        for _ in range(2)
    ]
    (refused, _), (free, _) = made
    with pytest.raises(flow.NotEnoughEntrants):
        await flow.start_tournament(flow_pool, refused, floors_of(FairPlaySettings()))
    await flow_pool.execute("UPDATE tournaments SET start_at = now() WHERE id = $1", refused)
    started = await periodic.start_due(flow_pool, datetime.now(UTC), FairPlaySettings())
    assert refused not in started
    status = await flow_pool.fetchval("SELECT status FROM tournaments WHERE id = $1", refused)
    assert status == "cancelled"
    assert await flow.start_tournament(flow_pool, free)  # no floors: it starts
