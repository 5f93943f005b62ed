# ruff: noqa: F811 - pytest fixtures imported from helper modules are parameters here
"""The export of every format verifies end to end (matches played in process): seeds derived
from the master seed, replays, results, standings through the format registry, Elo; a bot
that withdraws mid-event, byes, and the streaming in batches give the same document."""

from __future__ import annotations

import asyncpg
import msgspec
import pytest

from services import flow, flow_export
from services.tournaments.export import TournamentExport, decode_export
from tests.services.flow_helpers import (  # noqa: F401
    InProcessDispatcher,
    flow_pool,
    in_process,
    make_tournament,
)
from tests.services.test_api_helpers import api_database_url  # noqa: F401
from truco_cli.verify_event import verify_export

pytestmark = pytest.mark.anyio


async def _export(pool: asyncpg.Pool, tid: int, batch: int = flow_export.BATCH) -> bytes:
    snap = await flow_export.snapshot(pool, tid)
    return b"".join([chunk async for chunk in flow_export.export_chunks(pool, snap, batch)])


def _checked(data: bytes) -> TournamentExport:
    doc = decode_export(data)
    lines: list[str] = []
    outcome = verify_export(doc, say=lines.append)
    assert outcome.complete, lines
    assert len(lines) == 6 and all(line.startswith("ok ") for line in lines)
    return doc


@pytest.mark.parametrize(
    ("format", "bots", "mode", "partnership"),
    [
        ("swiss", 5, "1v1", "team"),
        ("round_robin", 4, "1v1", "team"),
        ("single_elimination", 5, "1v1", "team"),
        ("double_elimination", 4, "2v2", "team"),
        ("swiss", 5, "2v2", "individual"),
    ],
)
async def test_every_format_exports_a_document_that_verifies(
    flow_pool: asyncpg.Pool, format: str, bots: int, mode: str, partnership: str
) -> None:
    tid, bot_ids = await make_tournament(
        flow_pool, format, bots, mode=mode, partnership=partnership, games_per_match=1
    )
    dispatcher = InProcessDispatcher(in_process({bot_ids[0]: "heuristic"}))
    await dispatcher(flow_pool, await flow.start_tournament(flow_pool, tid))
    doc = _checked(await _export(flow_pool, tid))
    assert doc.tournament.status == "finished" and doc.seeds.master_seed is not None
    assert {m.seed_scheme for m in doc.matches} == {"derived-v1"}
    played = [m for m in doc.matches if m.replay is not None]
    assert played and all(m.rating_changes for m in played)
    if format.endswith("elimination"):
        assert all(m.bracket_match for m in doc.matches)
    if format == "swiss" and partnership == "team":
        assert any(m.bye for m in doc.matches)  # five bots: a bye every round
    assert await _export(flow_pool, tid, batch=2) != b""
    again = msgspec.json.decode(await _export(flow_pool, tid, batch=2))
    first = msgspec.json.decode(await _export(flow_pool, tid))
    again.pop("exported_at"), first.pop("exported_at")
    assert again == first  # the batches splice into the same document


async def test_a_withdrawal_mid_event_still_verifies(flow_pool: asyncpg.Pool) -> None:
    tid, bot_ids = await make_tournament(flow_pool, "swiss", 6, rounds=3, games_per_match=1)
    leaver = bot_ids[-1]
    left: list[int] = []

    async def withdraw_once(pool: asyncpg.Pool, match_id: int) -> None:
        if not left:
            left.append(match_id)
            await flow.withdraw_bot(pool, leaver)

    dispatcher = InProcessDispatcher(in_process({}), before_record=withdraw_once)
    await dispatcher(flow_pool, await flow.start_tournament(flow_pool, tid))
    doc = _checked(await _export(flow_pool, tid))
    assert any(e.withdrawn for e in doc.entries)
    unplayed = [m for m in doc.matches if m.status == "forfeit" and m.replay is None]
    assert unplayed and all(not m.rating_changes for m in unplayed)
