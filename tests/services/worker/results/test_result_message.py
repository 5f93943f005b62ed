"""``truco.store_result``'s replay as the trusted worker takes it: the packed bytes the worker
sent are stored as they are once they decode to the verified replay; a previous version's JSON
text, or a document carrying more than the replay, is stored as the replay's own encoding; a
message that does not unpack, or inflates too far, is a bad result."""

from __future__ import annotations

import asyncio
import zlib

import msgspec
import pytest

from arena.client.connection import InProcessBot, random_decider
from arena.match.replay import EntrantRecord, Replay
from arena.match.runner import MatchSettings, run_match
from services.domain import packed_replay
from services.domain.packed_replay import pack, unpack
from services.worker.results.store import BadResult, check_result


@pytest.fixture(scope="module")
def replay() -> Replay:
    entrants = [
        (EntrantRecord(n, "builtin:random"), InProcessBot(n, random_decider(k)))
        for k, n in enumerate("ab")
    ]
    return asyncio.run(run_match("41", 3, MatchSettings(games_per_match=2), entrants))


def test_the_bytes_sent_are_the_bytes_stored(replay: Replay) -> None:
    sent = pack(replay)
    checked, stored = check_result(41, sent.data)
    assert checked == replay
    assert stored.data is sent.data and stored.size == sent.size


def test_a_previous_versions_json_text_is_packed_here(replay: Replay) -> None:
    text = msgspec.json.encode(replay).decode()
    checked, stored = check_result(41, text)
    assert checked == replay and unpack(stored.data) == text.encode()


def test_a_document_with_more_than_the_replay_is_stored_as_the_replay(replay: Replay) -> None:
    """Fields the replay does not have (a compromised worker's payload) never reach the
    database: what is stored is exactly the verified replay's encoding."""
    document = msgspec.to_builtins(replay)
    document["payload"] = "x" * 10_000
    sent = zlib.compress(msgspec.json.encode(document))
    checked, stored = check_result(41, sent)
    assert checked == replay
    assert stored.data != sent and unpack(stored.data) == msgspec.json.encode(replay)


def test_bytes_that_do_not_unpack_are_a_bad_result(
    replay: Replay, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(BadResult, match="does not unpack"):
        check_result(41, b"not zlib")
    document = msgspec.json.encode(replay)
    with pytest.raises(BadResult, match="for match '41'"):
        check_result(42, zlib.compress(document))
    monkeypatch.setattr(packed_replay, "MAX_REPLAY_BYTES", len(document) - 1)
    with pytest.raises(BadResult, match="inflates past"):
        check_result(41, pack(replay).data)
