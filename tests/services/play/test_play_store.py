"""A /play session's Redis scripts (``services.play.store``) on the real Redis: the caps count
every process's sessions and give places back; one answer a decision, only while it is open;
one player a session (a message delivered again plays nothing); a session ends once, and a
player whose session ended can no longer write to it; a lease that ran out names its cause."""

from __future__ import annotations

import secrets
import time
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as aioredis

from arena.game.truco import TRUCO
from arena.match.runner import MatchSettings
from arena.wire.protocol import act_request
from engine.rules import Rules
from services.play.items import (
    OpenTurn,
    Opponent,
    PersonAnswer,
    PlayOutcome,
    PlayStatic,
    SeatSnapshot,
)
from services.play.store import (
    CAUSE_NEVER_BEGUN,
    CAUSE_NOT_STORED,
    CAUSE_WORKER_LOST,
    LEASE_S,
    RESULT_GRACE_S,
    START_GRACE_S,
    PlayStore,
)
from tests.servers import RedisTarget

pytestmark = pytest.mark.anyio
STATIC = PlayStatic(opponent=Opponent(bot_id=1, name="house"), settings=MatchSettings())


@pytest.fixture
async def store(redis_target: RedisTarget) -> AsyncIterator[PlayStore]:
    client = aioredis.Redis.from_url(redis_target.url)
    try:
        yield PlayStore(client, f"{redis_target.prefix}store-{secrets.token_hex(3)}:")
    finally:
        await client.aclose()


async def _session(store: PlayStore, play_id: int, address: str = "aa") -> None:
    refused, reservation = await store.admit(address, per_address=100, total=1000)
    assert refused == 0
    await store.create(play_id, b"\x01" * 32, address, STATIC, reservation)


def _turn(number: int) -> SeatSnapshot:
    state = TRUCO.new_game(Rules(), 5)
    seat = TRUCO.to_act(state)
    request = act_request(
        "play-1",
        "g",
        seat,
        TRUCO.observe(state, seat),
        TRUCO.legal_actions(state),
        timeout_ms=1000,
        time_bank_ms=1000,
        last_latency_ms=None,
    )
    now_ms = round(time.time() * 1000)
    return SeatSnapshot(
        turn=OpenTurn(number=number, request=request, clock_ms=60_000, deadline_ms=now_ms + 60_000)
    )


async def test_the_caps_count_every_session_and_give_places_back(store: PlayStore) -> None:
    first = await store.admit("aa", per_address=2, total=3)
    second = await store.admit("aa", per_address=2, total=3)
    assert first[0] == 0 and second[0] == 0
    assert (await store.admit("aa", per_address=2, total=3))[0] == 1  # the address's cap
    assert (await store.admit("bb", per_address=2, total=3))[0] == 0
    assert (await store.admit("cc", per_address=2, total=3))[0] == 2  # the total
    await store.release("aa", first[1])
    assert (await store.admit("aa", per_address=2, total=4))[0] == 0
    await store.create(7, b"\x02" * 32, "aa", STATIC, second[1])  # the reservation becomes 7
    assert await store.end(7, "abandoned", None, "gone")
    assert (await store.admit("aa", per_address=2, total=4))[0] == 0  # 7's place given back


async def test_one_answer_a_decision_only_while_it_is_open(store: PlayStore) -> None:
    await _session(store, 11)
    answer = PersonAnswer(number=1, action="mazo")
    assert await store.answer(11, answer) == "stale"  # no decision is open yet
    assert await store.claim(11, "w1", "aa") == "ok"
    assert await store.write(11, "w1", _turn(1), []) > 0
    assert await store.answer(11, answer) == "ok"
    assert await store.answer(11, answer) == "stale"  # answered already
    assert await store.answer(11, PersonAnswer(number=2, action="mazo")) == "stale"
    taken = await store.take_answer(11, 1.0)
    assert taken == answer
    session = await store.read(11)
    assert session is not None and session.answered == 1 and session.seat.turn is not None
    assert await store.end(
        11,
        "finished",
        PlayOutcome(winner_side=1, games_won=(0, 1), reason="games", person_won=False),
        None,
    )
    assert await store.answer(11, PersonAnswer(number=1, action="mazo")) == "over"


async def test_one_player_a_session_and_none_after_its_end(store: PlayStore) -> None:
    await _session(store, 21)
    assert await store.claim(21, "w1", "aa") == "ok"
    assert await store.claim(21, "w2", "aa") == "taken"  # a message delivered again
    assert not await store.renew(21, "w2", "aa")
    assert await store.renew(21, "w1", "aa")
    first = await store.write(21, "w1", SeatSnapshot(log_len=1), [b'{"n":0,"game":1,"event":{}}'])
    assert first > 1 and await store.mark(21, first) == 1
    assert await store.end(21, "abandoned", None, "swept")
    assert not await store.end(21, "finished", None, None)  # once
    assert await store.write(21, "w1", SeatSnapshot(), []) == 0  # no longer the player's
    assert not await store.hand_on(21, "w1", "aa", b"replay")
    session = await store.read(21)
    assert session is not None and session.status == "abandoned" and session.cause == "swept"
    assert session.version == first + 1 and await store.mark(21, session.version) == 1


async def test_a_lease_that_ran_out_names_its_cause(store: PlayStore) -> None:
    for play_id in (31, 32, 33):
        await _session(store, play_id)
    assert await store.claim(32, "w", "aa") == "ok"
    assert await store.claim(33, "w", "aa") == "ok"
    assert await store.hand_on(33, "w", "aa", b"replay")
    now = time.time()
    assert await store.expired(now) == []
    soon = await store.expired(now + LEASE_S + 1)
    assert soon == ["32"]  # a worker's lease: 10 s; a handed-on result's: 30 s; a new one's: 60 s
    assert set(await store.expired(now + RESULT_GRACE_S + 1)) == {"32", "33"}
    assert set(await store.expired(now + START_GRACE_S + 1)) == {"31", "32", "33"}
    assert await store.handed_replay(33) == b"replay" and await store.handed_replay(32) is None
    assert await store.lost_cause(31) == CAUSE_NEVER_BEGUN
    assert await store.lost_cause(32) == CAUSE_WORKER_LOST
    assert await store.lost_cause(33) == CAUSE_NOT_STORED
