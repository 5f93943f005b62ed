"""The export of every format verifies end to end (matches played in process): seeds derived
from the master seed, replays, results, standings through the format registry, Elo; a bot
that withdraws mid-event, byes, and the streaming in batches give the same document."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import asyncpg
import msgspec
import pytest

from arena.client.connection import InProcessBot, random_decider
from arena.match.replay import LEGACY_FORMAT, EntrantRecord
from arena.match.runner import MatchSettings, run_match
from engine.rules import Rules
from services import flow
from services.db.matches import StoredMatch
from services.flow import export as flow_export
from services.tournaments.files.export_document import ExportMatch, TournamentExport, decode_export
from tests.services.helpers.flow_helpers import (
    InProcessSender,
    in_process,
    make_tournament,
)
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
    sender = InProcessSender(in_process({bot_ids[0]: "heuristic"}))
    await sender(flow_pool, await flow.start_tournament(flow_pool, tid))
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


async def test_matches_played_again_are_exported_with_their_attempt_and_verify(
    flow_pool: asyncpg.Pool,
) -> None:
    """Issue 21, item 7: every match of this event was begun twice before (attempt 2), so it
    was dealt afresh; the export says so and the verifier derives the deals from it."""
    from truco_cli.verify_event import Discrepancy

    tid, bot_ids = await make_tournament(flow_pool, "swiss", 4, rounds=2, games_per_match=1)
    sender = InProcessSender(in_process({bot_ids[0]: "heuristic"}), attempt=2)
    await sender(flow_pool, await flow.start_tournament(flow_pool, tid))
    data = await _export(flow_pool, tid)
    doc = decode_export(data)
    lines: list[str] = []
    assert verify_export(doc, say=lines.append).complete, lines
    assert "4 played again and dealt afresh (attempt > 0)" in lines[2]
    played = [m for m in doc.matches if m.replay is not None]
    assert len(played) == 4 and {(m.attempt, m.replay.attempt) for m in played} == {(2, 2)}
    # a tampered attempt number fails: in the export, or in the replay
    for path, forged in ((("attempt",), 1), (("replay", "attempt"), 0)):
        raw = msgspec.json.decode(data)
        match = next(m for m in raw["matches"] if m["replay"] is not None)
        (match["replay"] if path[0] == "replay" else match)[path[-1]] = forged
        with pytest.raises(Discrepancy, match="attempt"):
            verify_export(decode_export(msgspec.json.encode(raw)), say=lines.append)


async def test_a_withdrawal_mid_event_still_verifies(flow_pool: asyncpg.Pool) -> None:
    tid, bot_ids = await make_tournament(flow_pool, "swiss", 6, rounds=3, games_per_match=1)
    leaver = bot_ids[-1]
    left: list[int] = []

    async def withdraw_once(pool: asyncpg.Pool, match_id: int) -> None:
        if not left:
            left.append(match_id)
            await flow.withdraw_bot(pool, leaver)

    sender = InProcessSender(in_process({}), before_record=withdraw_once)
    await sender(flow_pool, await flow.start_tournament(flow_pool, tid))
    doc = _checked(await _export(flow_pool, tid))
    assert any(e.withdrawn for e in doc.entries)
    unplayed = [m for m in doc.matches if m.status == "forfeit" and m.replay is None]
    assert unplayed and all(not m.rating_changes for m in unplayed)


def test_a_version_1_replay_is_exported_with_its_deals_and_nothing_else_changed() -> None:
    """A replay stored before independent deals (format 1, ``duplicate``) decodes as every
    other replay of the export, still saying it is format 1; a format 2 replay goes out
    byte for byte as stored."""
    entrants = [
        (EntrantRecord(n, "builtin:random"), InProcessBot(n, random_decider(k)))
        for k, n in enumerate("ab")
    ]
    replay = asyncio.run(run_match("7", 5, MatchSettings(games_per_match=2), entrants))
    current = msgspec.json.encode(replay)
    old = msgspec.to_builtins(replay)
    old.update(format=LEGACY_FORMAT, duplicate=False)
    del old["deals"]
    row = StoredMatch(
        id=7, tournament_id=1, round_id=1, round_number=1, bracket="main", bracket_match=None,
        board=0, mode="1v1", status="done", seed=5, rated=False, games_per_match=2, rules=Rules(),
        winner_side=replay.result.winner, bye=False, attempts=1, created_at=datetime.now(UTC),
        queued_at=None, finished_at=None, deals="independent", bot0=1, bot1=2, result=None,
    )  # fmt: skip
    exported = msgspec.json.decode(flow_export.match_json(row, msgspec.json.encode(old), []))
    assert exported["replay"]["format"] == LEGACY_FORMAT
    assert exported["replay"]["deals"] == "independent" and "duplicate" not in exported["replay"]
    decoded = msgspec.convert(exported, ExportMatch)
    assert decoded.replay is not None and decoded.replay.games == replay.games
    assert decoded.seed_scheme == "legacy" and decoded.seed == 5
    spliced = flow_export.match_json(row, current, [])
    assert spliced.endswith(b',"replay":' + current + b"}")


async def test_an_event_without_a_master_seed_goes_on_with_legacy_seeds(
    flow_pool: asyncpg.Pool,
) -> None:
    """A tournament from before migration 0008 (no master seed) keeps dealing from random
    seeds, each marked legacy; its export says the seeds cannot be verified, the rest can."""
    tid, _ = await make_tournament(flow_pool, "round_robin", 3, games_per_match=1)
    await flow_pool.execute("UPDATE tournaments SET master_seed = NULL WHERE id = $1", tid)
    await InProcessSender(in_process({}))(flow_pool, await flow.start_tournament(flow_pool, tid))
    doc = decode_export(await _export(flow_pool, tid))
    assert doc.seeds.scheme == "legacy" and doc.seeds.commitment is None
    assert {m.seed_scheme for m in doc.matches} == {"legacy"}
    lines: list[str] = []
    outcome = verify_export(doc, say=lines.append)
    assert not outcome.complete and lines[0].startswith("skip  seeds: this event was created")
    assert [line.split()[1] for line in lines[1:]] == [
        "replays:", "results:", "standings:", "Elo:",
    ]  # fmt: skip
