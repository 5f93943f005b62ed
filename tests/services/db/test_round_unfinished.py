"""The index probe that lets a result skip reading the whole event says what the pairing's own
test says: ``round_unfinished`` agrees with ``Played.current_round_open`` for every status."""

from __future__ import annotations

import itertools
from typing import get_args

import asyncpg
import pytest

from arena.match.runner import run_match
from services import flow
from services.db import matches as db_matches
from services.domain import MatchStatus
from services.tournaments.played import played
from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_tournament

pytestmark = pytest.mark.anyio


async def _open_by_pairing(pool: asyncpg.Pool, tid: int, number: int) -> bool:
    entrants, matches = await flow.event_state(pool, tid)
    return played(entrants, matches, current_round=number).current_round_open


async def test_the_probe_agrees_with_the_pairing_for_every_status(flow_pool: asyncpg.Pool) -> None:
    tid, _ = await make_tournament(flow_pool, "swiss", 4)
    first = await flow.start_tournament(flow_pool, tid)
    assert len(first) == 2
    statuses = get_args(MatchStatus)
    seen = set()
    for pair in itertools.product(statuses, repeat=2):
        for match_id, status in zip(first, pair, strict=True):
            await flow_pool.execute(
                "UPDATE matches SET status = $2 WHERE id = $1", match_id, status
            )
        probe = await db_matches.round_unfinished(flow_pool, tid, 1)
        assert probe == await _open_by_pairing(flow_pool, tid, 1), pair
        seen.add(probe)
    assert seen == {True, False}
    assert not await db_matches.round_unfinished(flow_pool, tid, 2)  # no such round yet


async def test_a_swiss_round_is_paired_by_its_last_result_only(flow_pool: asyncpg.Pool) -> None:
    tid, _ = await make_tournament(flow_pool, "swiss", 8, rounds=2)
    first = await flow.start_tournament(flow_pool, tid)
    connect = in_process({})
    specs = await flow.match_specs(flow_pool, first, secret_box=InProcessSender(connect).box)
    created = []
    for spec in specs:
        entrants = [connect(e, spec.seed % 1_000_000) for e in spec.entrants]
        replay = await run_match(str(spec.match_id), spec.seed, spec.settings, entrants)
        created.append((await flow.record_result(flow_pool, spec.match_id, replay)).next_ids)
    assert created[:-1] == [[], [], []]
    assert len(created[-1]) == 4
    matches = await db_matches.get_matches(flow_pool, created[-1])
    assert {m.round_number for m in matches} == {2}
    assert await db_matches.round_unfinished(flow_pool, tid, 2)
    assert not await db_matches.round_unfinished(flow_pool, tid, 1)
