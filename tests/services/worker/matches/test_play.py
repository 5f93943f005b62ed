"""``truco.play_match`` without a database: a real match against SDK bots on 127.0.0.1, the
replay handed on as a ``truco.store_result`` message; the trusted side's replay checks."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from arena.client.signing import generate_secret
from arena.match.replay import Replay
from arena.match.runner import MatchSettings
from engine.rules import Rules
from services.base.config import WorkerSettings
from services.domain.match_order import EntrantOrder, MatchOrder
from services.domain.packed_replay import unpack
from services.worker.matches import play_match as play
from services.worker.results.store import BadResult, check_replay, check_result
from tests.servers import RedisTarget
from tests.services.worker.fixtures import Sent, change_worker_settings


def _message(bots: list[Any], secrets_: list[str], match_id: int = 501) -> MatchOrder:
    settings = MatchSettings(rules=Rules(points_to_win=15), games_per_match=2)
    entrants = [
        EntrantOrder(bot_id=10 + i, name=f"b{i}", url=bot.url, secret=secret)
        for i, (bot, secret) in enumerate(zip(bots, secrets_, strict=True))
    ]
    return MatchOrder(match_id, 12345, settings, entrants)


def test_play_match_without_database_sends_the_replay(
    worker_env: RedisTarget, bot_server_factory: Any, sent: Sent
) -> None:
    assert play.app.settings.database.url is None  # no database credentials
    keys = [generate_secret(), generate_secret()]
    bots = [bot_server_factory("heuristic", keys[0]), bot_server_factory("random", keys[1])]
    message = _message(bots, keys)

    outcome = play.play_match.apply(args=[msgspec.to_builtins(message)], task_id="play-1")
    assert outcome.successful(), outcome.traceback

    # first truco.match_started (the match is running), then the result
    assert [(c[0], c[2]["queue"]) for c in sent.calls] == [
        ("truco.match_started", "results"),
        ("truco.store_result", "results"),
    ]
    args = sent.calls[1][1]
    match_id, packed, task_id = args
    assert (match_id, task_id) == (501, "play-1")
    replay, stored = check_result(match_id, packed)  # unpacks, decodes and re-simulates
    assert stored.data == packed  # the bytes sent are the bytes stored
    assert replay.result.reason != "walkover" and len(replay.games) == 2
    # replays are public: they name bots by id, never by URL
    assert [e.source for e in replay.entrants] == ["bot:10", "bot:11"]
    assert all("decision" in msgspec.json.encode(g.events).decode() for g in replay.games)
    # the slots were given back
    slots = play.bot_slots(play.app.settings)
    assert slots.in_use(10) == 0 and slots.in_use(11) == 0


def test_wrong_secret_means_faults_not_a_crash(
    worker_env: RedisTarget, bot_server_factory: Any, sent: Sent
) -> None:
    bots = [bot_server_factory("random", generate_secret()), bot_server_factory("random")]
    message = _message(bots, [generate_secret(), generate_secret()], match_id=502)
    outcome = play.play_match.apply(args=[msgspec.to_builtins(message)])
    assert outcome.successful(), outcome.traceback
    replay = msgspec.json.decode(unpack(sent.calls[-1][1][1]), type=Replay)
    # the bot that refuses our signature (401 on /start) cannot be played: a walkover to the
    # other, named as the unreachable entrant, and no game was played
    assert replay.result.reason == "walkover" and replay.result.walkover == (0,)
    assert replay.result.winner == 1 and replay.games == []


def test_a_bot_at_its_cap_is_retried_later(
    worker_env: RedisTarget, bot_server_factory: Any, sent: Sent, monkeypatch: pytest.MonkeyPatch
) -> None:
    change_worker_settings(worker=WorkerSettings(bot_max_matches=1))
    bot = bot_server_factory("random")
    message = _message([bot, bot_server_factory("random")], ["whsec_" + "A" * 32] * 2, 503)
    slots = play.bot_slots(play.app.settings)
    held = slots.acquire([10])
    assert held is not None

    class Retried(Exception):
        pass

    countdowns: list[float] = []

    def retry(**kwargs: Any) -> Exception:
        countdowns.append(kwargs["countdown"])
        return Retried()

    monkeypatch.setattr(play.play_match, "retry", retry)
    with pytest.raises(Retried):
        play.play_match(msgspec.to_builtins(message))
    assert sent.calls == [] and len(countdowns) == 1 and 3 <= countdowns[0] <= 7
    assert slots.in_use(11) == 0  # all or nothing: the free bot's slot was not kept
    slots.release([10], held)


def test_loopback_is_refused_in_production(
    worker_env: RedisTarget, bot_server_factory: Any, sent: Sent, monkeypatch: pytest.MonkeyPatch
) -> None:
    change_worker_settings(env="production")
    bots = [bot_server_factory("random"), bot_server_factory("random")]
    message = _message(bots, [generate_secret(), generate_secret()], match_id=504)
    outcome = play.play_match.apply(args=[msgspec.to_builtins(message)])
    assert outcome.successful(), outcome.traceback
    replay = msgspec.json.decode(unpack(sent.calls[-1][1][1]), type=Replay)
    assert replay.result.reason == "walkover" and replay.result.walkover == (0, 1)


def test_store_side_refuses_foreign_or_forged_replays(
    worker_env: RedisTarget, bot_server_factory: Any, sent: Sent
) -> None:
    bots = [bot_server_factory("random"), bot_server_factory("heuristic")]
    message = _message(bots, [generate_secret(), generate_secret()], match_id=505)
    assert play.play_match.apply(args=[msgspec.to_builtins(message)]).successful()
    replay_json = unpack(sent.calls[-1][1][1])
    with pytest.raises(BadResult, match="for match '505'"):
        check_replay(506, replay_json)
    with pytest.raises(BadResult, match="does not decode"):
        check_replay(505, "{")
    forged = msgspec.json.decode(replay_json, type=Replay)
    game = forged.games[0]
    game.score = (game.score[1] + 5, game.score[0])
    with pytest.raises(BadResult, match="re-simulate"):
        check_replay(505, msgspec.json.encode(forged))


def test_a_match_begun_again_is_dealt_afresh_and_both_attempts_verify(
    worker_env: RedisTarget, bot_server_factory: Any, sent: Sent
) -> None:
    """Issue 21, item 7: the same message played twice (a redelivery, the sweeper) is attempt
    0 then attempt 1, with other cards; the trusted side accepts both."""
    import secrets

    from engine.events import HandStarted

    bots = [bot_server_factory("random"), bot_server_factory("random")]
    message = _message(bots, [generate_secret(), generate_secret()], match_id=504)
    message = msgspec.structs.replace(message, seed=secrets.randbelow(2**62))  # fresh counter
    replays = []
    for _ in range(2):
        outcome = play.play_match.apply(args=[msgspec.to_builtins(message)])
        assert outcome.successful(), outcome.traceback
        replays.append(check_result(504, sent.calls[-1][1][1])[0])
    assert [r.attempt for r in replays] == [0, 1]
    # hand by hand, seat by seat (the issue: every one the same three cards); two independent
    # deals share a seat's three cards by chance once in 9,880, so at most one may coincide
    hands = [
        [tuple(sorted(h)) for g in r.games for e in g.events if isinstance(e, HandStarted)
         for h in e.deal]
        for r in replays
    ]  # fmt: skip
    aligned = list(zip(hands[0], hands[1], strict=False))
    assert len(aligned) >= 8 and sum(a == b for a, b in aligned) <= 1
