"""A replay packed once by the worker that played it: the bytes unpack to its document, through
Celery's own JSON serializer unchanged, and never past the bound a message may make the trusted
worker inflate."""

from __future__ import annotations

import asyncio
import zlib

import msgspec
import pytest
from kombu.serialization import dumps, loads

from arena.client.connection import InProcessBot, random_decider
from arena.match.replay import EntrantRecord, Replay, load_replay
from arena.match.runner import MatchSettings, run_match
from services.domain.packed_replay import TooLarge, pack, unpack


@pytest.fixture(scope="module")
def replay() -> Replay:
    entrants = [
        (EntrantRecord(n, "builtin:random"), InProcessBot(n, random_decider(k)))
        for k, n in enumerate("ab")
    ]
    return asyncio.run(run_match("9", 5, MatchSettings(games_per_match=2), entrants))


def test_a_packed_replay_unpacks_to_its_document(replay: Replay) -> None:
    packed = pack(replay)
    document = msgspec.json.encode(replay)
    assert packed.size == len(document) and len(packed.data) < len(document) / 3
    assert unpack(packed.data) == document
    assert load_replay(unpack(packed.data)) == replay


def test_the_bytes_cross_celerys_json_serializer_unchanged(replay: Replay) -> None:
    """``truco.store_result``'s arguments as the broker carries them (kombu's ``json``): the
    packed bytes come out as the same bytes, not as text."""
    packed = pack(replay).data
    content_type, encoding, body = dumps([7, packed, "task"], serializer="json")
    match_id, carried, task_id = loads(body, content_type, encoding)
    assert (match_id, task_id) == (7, "task")
    assert isinstance(carried, bytes) and carried == packed
    # and smaller than the JSON text the message carried before (the document as a string)
    _, _, old = dumps([7, msgspec.json.encode(replay).decode(), "task"], serializer="json")
    assert len(body) < len(old) / 2


def test_unpacking_stops_at_the_bound() -> None:
    """A message whose bytes would inflate past the bound (a zip bomb: 64 MB of zeros is a few
    tens of KB packed) is refused without inflating it whole."""
    bomb = zlib.compress(b"\0" * (8 * 1024 * 1024), 9)
    assert len(bomb) < 20_000
    with pytest.raises(TooLarge, match="inflates past"):
        unpack(bomb, limit=1024 * 1024)
    assert len(unpack(bomb, limit=8 * 1024 * 1024)) == 8 * 1024 * 1024


@pytest.mark.parametrize(
    "data",
    [b"", b"{}", zlib.compress(b"{}")[:-2], zlib.compress(b"{}") + b"junk"],
    ids=["empty", "not-zlib", "truncated", "trailing"],
)
def test_bytes_that_are_not_one_zlib_stream_are_refused(data: bytes) -> None:
    with pytest.raises(TooLarge):
        unpack(data)
