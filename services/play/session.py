"""Playing a session: the match of a person against bots, the person's seat fed from Redis.

Whoever plays a session (the bot-calling worker's ``truco.play_person``; the API process only
when no Redis is shared with workers) calls :func:`play_session` with the bots' connections.
It claims the session (a message delivered again after its worker died finds it claimed and
plays nothing: the session is abandoned, never played twice), then runs ``run_match`` with a
:class:`~arena.match.human.HumanSeat` for the person, exactly as before (the same clock, bank,
faults, judge and replay), while three things go on beside the match:

* the person's answers are taken from the session's list (``BLPOP``) and handed to the seat;
* every change of the seat and every new log item is written to Redis (one script: the items,
  the seat's snapshot, a new version, a message on ``play:changed``);
* the lease is renewed every :data:`~services.play.store.HEARTBEAT_S`.

The replay comes back to the caller, who has it stored (``play_matches``) and then ends the
session in Redis; if the session was ended meanwhile (its lease ran out), the match is cut and
None comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence

import msgspec
import redis

from arena.client.connection import BotConnection
from arena.match.human import HumanSeat
from arena.match.replay import Decision, EntrantRecord, Replay
from arena.match.runner import MatchSettings, Progress, run_match
from arena.wire.protocol import ActResponse
from engine.events import Event
from engine.state import State
from services.domain.packed_replay import pack
from services.play.items import OpenTurn, SeatSnapshot
from services.play.log import PlayLog
from services.play.store import BACKSTOP_S, HEARTBEAT_S, PlayStore

logger = logging.getLogger(__name__)

REDIS_DOWN = (redis.ConnectionError, redis.TimeoutError, OSError)
"""What a short Redis outage raises: tried again (the session's lease decides its fate)."""
RETRY_S = 0.5
HAND_ON_TRIES = 16
"""A played match's last write and hand-on are tried this often (8 s) before its replay goes
to be stored regardless (a session still playing in Redis is ended when it is stored)."""
PERSON = EntrantRecord("person", "person")
"""The person's entrant in the replay (``services.web.views.table_names`` reads its source)."""


class SessionLost(Exception):
    """The session is no longer this player's (ended meanwhile: its lease ran out)."""


def snapshot(seat: HumanSeat, log: PlayLog) -> SeatSnapshot:
    """The person's seat now, as written to Redis (the open turn's deadline on the wall clock,
    so any process computes the clock left)."""
    turn = seat.turn
    open_turn = None
    if turn is not None and seat.deadline is not None:
        left_s = seat.deadline - seat.now()
        open_turn = OpenTurn(
            number=turn.number,
            request=turn.request,
            clock_ms=turn.clock_ms,
            deadline_ms=round((time.time() + left_s) * 1000),
            bank_left_ms=None if seat.bank_left is None else round(seat.bank_left * 1000),
        )
    return SeatSnapshot(
        game_number=seat.game_number,
        turn=open_turn,
        observation=seat.observation,
        to_act=log.to_act,
        seating=list(log.seating),
        game_starts=list(log.game_starts),
        log_len=len(log.items),
    )


class _Player:
    def __init__(
        self, store: PlayStore, play_id: int, mark: str, address: str, seat: HumanSeat, log: PlayLog
    ) -> None:
        self.store, self.play_id, self.mark, self.address = store, play_id, mark, address
        self.seat, self.log = seat, log
        self.written_items = 0
        self.written_version = -1
        self._writing = asyncio.Lock()  # one write at a time: the items go once, in order

    def progress(self) -> Progress:
        def record(
            index: int, state: State, decision: Decision | None, events: Sequence[Event]
        ) -> None:
            self.log.record(index, state, decision, events)
            self.seat.touch()

        return record

    async def flush(self) -> None:
        """Write the seat and the new log items if anything changed since the last write."""
        async with self._writing:
            await self._flush()

    async def _flush(self) -> None:
        version = self.seat.version
        if version == self.written_version and self.written_items == len(self.log.items):
            return
        items = self.log.items[self.written_items :]
        encoded = [msgspec.json.encode(item) for item in items]
        written = await self.store.write(
            self.play_id, self.mark, snapshot(self.seat, self.log), encoded
        )
        if not written:
            raise SessionLost(f"play session {self.play_id} is no longer this player's")
        self.written_items += len(items)
        self.written_version = version

    async def writer(self) -> None:
        while True:
            await self.seat.wait_change(self.written_version, BACKSTOP_S)
            try:
                await self.flush()
            except REDIS_DOWN as exc:  # written again once it answers (the lease decides)
                logger.warning("play session %s: Redis write failed (%s)", self.play_id, exc)
                await asyncio.sleep(RETRY_S)

    async def listener(self) -> None:
        """The person's answers to the seat; the lease renewed every HEARTBEAT_S."""
        renewed = time.monotonic()
        while True:
            try:
                answer = await self.store.take_answer(self.play_id, HEARTBEAT_S)
            except REDIS_DOWN as exc:  # a short outage: the lease decides (LEASE_S)
                logger.warning("play session %s: Redis read failed (%s)", self.play_id, exc)
                await asyncio.sleep(RETRY_S)
                continue
            if answer is not None:
                if answer.leave:
                    self.seat.leave()
                else:
                    response = ActResponse(action=answer.action, card=answer.card, sena=answer.sena)
                    self.seat.submit(answer.number, response)  # a stale one is dropped
            if time.monotonic() - renewed >= HEARTBEAT_S:
                try:
                    kept = await self.store.renew(self.play_id, self.mark, self.address)
                except REDIS_DOWN as exc:
                    logger.warning("play session %s: lease not renewed (%s)", self.play_id, exc)
                    continue
                if not kept:
                    raise SessionLost(f"play session {self.play_id}: its lease is lost")
                renewed = time.monotonic()


async def play_session(
    store: PlayStore,
    *,
    play_id: int,
    mark: str,
    address: str,
    seed: int,
    settings: MatchSettings,
    clock_s: float,
    bank_s: float | None,
    bots: Sequence[tuple[EntrantRecord, BotConnection]],
) -> Replay | None:
    """Play session ``play_id`` (the person is entrant 0, ``bots`` the others in slot order)
    and return its replay; None when it was not this player's to play (claimed already,
    over) or stopped being so. The bots' connections are closed either way."""
    claimed = await store.claim(play_id, mark, address)
    if claimed != "ok":
        for _, bot in bots:
            await bot.close()
        logger.warning("play session %s not played: %s", play_id, claimed)
        return None
    seat = HumanSeat("person", clock_s=clock_s, bank_s=bank_s)
    entrants: list[tuple[EntrantRecord, BotConnection]] = [(PERSON, seat), *bots]
    log = PlayLog([record.name for record, _ in entrants], settings.rules.players)
    player = _Player(store, play_id, mark, address, seat, log)
    match = asyncio.ensure_future(
        run_match(f"play-{play_id}", seed, settings, entrants, player.progress())
    )
    helpers = [asyncio.ensure_future(player.writer()), asyncio.ensure_future(player.listener())]
    try:
        done, _ = await asyncio.wait([match, *helpers], return_when=asyncio.FIRST_COMPLETED)
        if match not in done:  # a helper ended: the session was lost, or Redis failed
            match.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await match
            for helper in done:
                error = helper.exception()
                if isinstance(error, SessionLost):
                    logger.warning("%s; the match is cut", error)
                    return None
                if error is not None:
                    raise error
            return None
        replay = match.result()
        for attempt in range(HAND_ON_TRIES):  # through a short Redis outage: the replay counts
            try:
                await player.flush()  # the last items before the result
                if not await store.hand_on(play_id, mark, address, pack(replay).data):
                    raise SessionLost(f"play session {play_id} ended before its result came")
                break
            except REDIS_DOWN as exc:
                logger.warning("play session %s: hand-on failed (%s)", play_id, exc)
                if attempt + 1 < HAND_ON_TRIES:
                    await asyncio.sleep(RETRY_S)
        return replay
    except SessionLost as exc:
        logger.warning("%s; its replay is not stored", exc)
        return None
    finally:
        for task in (match, *helpers):
            task.cancel()
        for task in (match, *helpers):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
