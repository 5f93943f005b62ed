"""House bots in production (issue 11, finding 12): a ``builtin:NAME`` entrant is the strategy
played in the bot-calling worker's process, with loopback refused and no connection made."""

from __future__ import annotations

from typing import Any

import anyio
import msgspec
import pytest

from arena.client.signing import generate_secret
from arena.match.replay import Replay
from arena.match.runner import MatchSettings
from engine.rules import Rules
from services.domain.match_order import EntrantOrder, MatchOrder
from services.domain.packed_replay import unpack
from services.worker.matches import play_match as play
from services.worker.matches.probe import probe_all
from services.worker.messages import ProbeTarget
from services.worker.results.store import check_result
from tests.servers import RedisTarget
from tests.services.worker.fixtures import Sent, change_worker_settings


class NoNetwork:
    """A client factory that fails the test if anything tries to reach a bot."""

    def __call__(self, *args: Any) -> Any:
        raise AssertionError(f"a built-in bot must not be called over the network: {args}")


def test_builtin_house_bots_play_in_process_in_production(
    worker_env: RedisTarget,
    sent: Sent,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    change_worker_settings(env="production")  # loopback refused
    monkeypatch.setattr(play, "BotClient", NoNetwork())
    settings = MatchSettings(rules=Rules(points_to_win=15), games_per_match=2)
    entrants = [
        EntrantOrder(21, "house-heuristic", "builtin:heuristic", generate_secret()),
        EntrantOrder(22, "house-random", "builtin:random", generate_secret()),
    ]
    message = MatchOrder(601, 99, settings, entrants)
    outcome = play.play_match.apply(args=[msgspec.to_builtins(message)])
    assert outcome.successful(), outcome.traceback
    replay = msgspec.json.decode(unpack(sent.calls[-1][1][1]), type=Replay)
    assert replay.result.reason != "walkover" and len(replay.games) == 2
    assert sum(replay.result.faults) == 0
    assert [e.source for e in replay.entrants] == ["bot:21", "bot:22"]
    check_result(601, sent.calls[-1][1][1])  # the trusted side re-simulates it


def test_a_url_bot_beside_a_builtin_one_still_goes_through_the_guard(
    worker_env: RedisTarget,
    sent: Sent,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    change_worker_settings(env="production")
    entrants = [
        EntrantOrder(23, "house-random", "builtin:random", generate_secret()),
        EntrantOrder(24, "sneaky", "http://127.0.0.1:9/", generate_secret()),
    ]
    message = MatchOrder(602, 5, MatchSettings(), entrants)
    assert play.play_match.apply(args=[msgspec.to_builtins(message)]).successful()
    replay = msgspec.json.decode(unpack(sent.calls[-1][1][1]), type=Replay)
    assert replay.result.reason == "walkover" and replay.result.walkover == (1,)


def test_builtin_bots_pass_health_checks_without_a_connection() -> None:
    targets = [
        ProbeTarget(31, "builtin:heuristic"),
        ProbeTarget(32, "builtin:random"),
        ProbeTarget(33, "builtin:no-such-strategy"),
    ]
    outcomes = anyio.run(lambda: probe_all(targets, allow_loopback=False, make_client=NoNetwork()))
    assert [(o.bot_id, o.ok) for o in outcomes] == [(31, True), (32, True), (33, False)]
    assert outcomes[2].error is not None and "no-such-strategy" in outcomes[2].error
