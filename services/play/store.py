"""A play session in Redis: what any API process reads and writes, and what its player writes.

Keys (under ``TRUCO_REDIS_PREFIX``):

* ``play:{id}`` (hash): ``token`` (the SHA-256 of the play token, hex), ``address`` (the
  digest its limits count it under), ``static`` (:class:`~services.play.items.PlayStatic`),
  ``status`` (``playing``, ``finished``, ``abandoned``), ``version`` (bumped on every change,
  by the player and by whoever ends it), ``seat`` (the player's
  :class:`~services.play.items.SeatSnapshot`), ``turn`` (the open decision's number, 0 for
  none), ``answered`` (the last decision number answered), ``claimed`` (the player's mark),
  ``outcome`` and ``cause`` once over;
* ``play:{id}:log`` (list): the person's log items, item ``n`` at index ``n`` (append only);
* ``play:{id}:marks`` (hash): version -> how many log items that version's view held, so a
  stream resumes from ``Last-Event-ID`` (a version) with no gap and no duplicate;
* ``play:{id}:answers`` (list): the person's answers (and ``leave``), taken by the player;
* ``play:live`` (sorted set): every session going on (and a new one's reservation), scored by
  when its lease runs out: the player renews it every :data:`HEARTBEAT_S`; the sweeper ends a
  session whose lease ran out as abandoned; its count is ``TRUCO_PLAY_TOTAL``'s;
* ``play:address:{digest}`` (sorted set): the sessions of one client address, scored so too
  (``TRUCO_PLAY_PER_ADDRESS``);
* channel ``play:changed``: ``{id}`` published on every change (API processes wake their
  waiting requests; they also read again every :data:`BACKSTOP_S` should a message be lost).

Every change of status is a Lua script, so two processes never both end a session, and a
player whose session was ended meanwhile (its lease ran out) can no longer write to it.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Final, TypeVar

import msgspec
import redis.asyncio as aioredis

from services.play.items import PersonAnswer, PlayLogItem, PlayOutcome, PlayStatic, SeatSnapshot

T = TypeVar("T")

HEARTBEAT_S: Final = 2.0
"""How often the player renews its session's lease."""
LEASE_S: Final = 10.0
"""A session whose player has not renewed its lease for this long is ended as abandoned by
the sweeper (``truco.sweep_play_sessions``, every :data:`SWEEP_EVERY_S`)."""
SWEEP_EVERY_S: Final = 5.0
RESULT_GRACE_S: Final = 30.0
"""A played session's lease once its player handed its replay on: the trusted worker stores it
and ends the session meanwhile; else (its message was lost with a trusted worker killed) the
sweeper stores the replay kept with the session. Either is idempotent."""
START_GRACE_S: Final = 60.0
"""A new session's first lease: no worker has begun it by then, it is ended as abandoned."""
ABANDONED_WITHIN_S: Final = LEASE_S + SWEEP_EVERY_S + HEARTBEAT_S
"""The most a session stays ``playing`` after its player died (docs/play.md: 17 s)."""
PLAYING_TTL_S: Final = 4 * 3600
"""A session's keys expire this long after their last write while it plays (a guard)."""
LINGER_S: Final = 600
"""How long a finished session's keys stay (its page shows the end from them)."""
BACKSTOP_S: Final = 2.0

CAUSE_WORKER_LOST: Final = (
    "the worker playing this session stopped (no heartbeat for "
    f"{LEASE_S:g} s); the match is abandoned"
)
CAUSE_NOT_STORED: Final = (
    f"the match was played but its result was not stored within {RESULT_GRACE_S:g} s; "
    "the match is abandoned"
)
CAUSE_NEVER_MADE: Final = (
    "the API process making this session stopped before it was ready; the match is abandoned"
)
ORPHAN_AFTER_S: Final = 2 * START_GRACE_S
"""A play match still ``playing`` this long after its row was stored, with no session going
on, was never made a session (its API process died in between): the sweeper abandons it."""
CAUSE_NEVER_BEGUN: Final = (
    f"no worker began this session within {START_GRACE_S:g} s; the match is abandoned"
)


def session_key(prefix: str, play_id: int) -> str:
    return f"{prefix}play:{play_id}"


def live_key(prefix: str) -> str:
    return f"{prefix}play:live"


def address_set(prefix: str, address: str) -> str:
    return f"{prefix}play:address:{address}"


def changed_channel(prefix: str) -> str:
    return f"{prefix}play:changed"


def _keys(prefix: str, play_id: int) -> tuple[str, str, str, str]:
    base = session_key(prefix, play_id)
    return base, f"{base}:log", f"{base}:marks", f"{base}:answers"


_ADMIT = """
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCOUNT', KEYS[1], now, '+inf') >= tonumber(ARGV[3]) then return 2 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 1 end
redis.call('ZADD', KEYS[1], ARGV[5], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[4])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[6]))
return 0
"""

# KEYS: session, log, marks, live, address set; ARGV: token, address, static, reservation,
# lease end, ttl, id
_CREATE = """
redis.call('HSET', KEYS[1], 'token', ARGV[1], 'address', ARGV[2], 'static', ARGV[3],
  'status', 'playing', 'version', 1, 'turn', 0, 'answered', 0, 'seat', '{}')
redis.call('HSET', KEYS[3], 1, 0)
redis.call('ZREM', KEYS[4], ARGV[4]); redis.call('ZREM', KEYS[5], ARGV[4])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[7]); redis.call('ZADD', KEYS[5], ARGV[5], ARGV[7])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], tonumber(ARGV[6])) end
return 1
"""

# KEYS: session, live, address set; ARGV: claim mark, lease end, id
_CLAIM = """
if redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 'over' end
if redis.call('HEXISTS', KEYS[1], 'claimed') == 1 then return 'taken' end
redis.call('HSET', KEYS[1], 'claimed', ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3]); redis.call('ZADD', KEYS[3], ARGV[2], ARGV[3])
return 'ok'
"""

# KEYS: session, live, address set; ARGV: claim mark, lease end, id
_RENEW = """
if redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 0 end
if redis.call('HGET', KEYS[1], 'claimed') ~= ARGV[1] then return 0 end
redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[3], 'XX', ARGV[2], ARGV[3])
return 1
"""

# KEYS: session, live, address set; ARGV: claim mark, lease end, id, packed replay
_HAND_ON = """
if redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 0 end
if redis.call('HGET', KEYS[1], 'claimed') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'handed', 1, 'replay', ARGV[4])
redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[3], 'XX', ARGV[2], ARGV[3])
return 1
"""

# KEYS: session, log, marks, channel; ARGV: claim mark, seat, open turn number, ttl, id,
# items...
_WRITE = """
if redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 0 end
if redis.call('HGET', KEYS[1], 'claimed') ~= ARGV[1] then return 0 end
for i = 6, #ARGV do redis.call('RPUSH', KEYS[2], ARGV[i]) end
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('HSET', KEYS[1], 'seat', ARGV[2], 'turn', ARGV[3])
redis.call('HSET', KEYS[3], version, redis.call('LLEN', KEYS[2]))
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], tonumber(ARGV[4])) end
redis.call('PUBLISH', KEYS[4], ARGV[5])
return version
"""

# KEYS: session, log, marks, live, channel, address set; ARGV: status, outcome, cause, linger, id
_END = """
if redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 0 end
local version = redis.call('HINCRBY', KEYS[1], 'version', 1)
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'turn', 0, 'outcome', ARGV[2], 'cause', ARGV[3])
redis.call('HDEL', KEYS[1], 'replay')
redis.call('HSET', KEYS[3], version, redis.call('LLEN', KEYS[2]))
redis.call('ZREM', KEYS[4], ARGV[5])
redis.call('ZREM', KEYS[6], ARGV[5])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], tonumber(ARGV[4])) end
redis.call('PUBLISH', KEYS[5], ARGV[5])
return version
"""

# KEYS: session, answers; ARGV: number, answer, ttl
_ANSWER = """
if redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 'over' end
local number = tonumber(ARGV[1])
if tonumber(redis.call('HGET', KEYS[1], 'turn')) ~= number then return 'stale' end
if tonumber(redis.call('HGET', KEYS[1], 'answered')) >= number then return 'stale' end
redis.call('HSET', KEYS[1], 'answered', number)
redis.call('RPUSH', KEYS[2], ARGV[2])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[3]))
return 'ok'
"""

# KEYS: session, answers; ARGV: answer, ttl
_LEAVE = """
if redis.call('HGET', KEYS[1], 'status') ~= 'playing' then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[2], tonumber(ARGV[2]))
return 1
"""


async def _done(result: Awaitable[T] | T) -> T:
    """The asyncio client's result (its stubs type every command for both clients)."""
    return await result if inspect.isawaitable(result) else result


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True, slots=True)
class Session:
    """A session as read from Redis at one moment."""

    play_id: int
    token: str
    address: str
    static: PlayStatic
    status: str
    version: int
    seat: SeatSnapshot
    answered: int
    outcome: PlayOutcome | None
    cause: str | None


_FIELDS = ("token", "address", "static", "status", "version", "seat", "answered", "outcome")


class PlayStore:
    """The sessions on one Redis (``client``) under ``prefix``."""

    def __init__(self, client: aioredis.Redis, prefix: str) -> None:
        self.client = client
        self.prefix = prefix
        self._admit = client.register_script(_ADMIT)
        self._create = client.register_script(_CREATE)
        self._claim = client.register_script(_CLAIM)
        self._renew = client.register_script(_RENEW)
        self._hand_on = client.register_script(_HAND_ON)
        self._write = client.register_script(_WRITE)
        self._end = client.register_script(_END)
        self._answer = client.register_script(_ANSWER)
        self._leave = client.register_script(_LEAVE)

    # --- the API -----------------------------------------------------------------------------

    async def admit(self, address: str, per_address: int, total: int) -> tuple[int, str]:
        """Reserve a place for a new session of ``address``: (0, reservation) when taken, (1,
        "") past the address's cap, (2, "") past the total."""
        reservation = f"r:{time.time_ns()}:{id(self)}"
        now = time.time()
        refused = await self._admit(
            keys=[live_key(self.prefix), address_set(self.prefix, address)],
            args=[now, per_address, total, reservation, now + START_GRACE_S, PLAYING_TTL_S],
        )
        return (int(refused), "") if int(refused) else (0, reservation)

    async def release(self, address: str, member: str) -> None:
        """Give back a reservation (the session was not made after all)."""
        await self.client.zrem(live_key(self.prefix), member)
        await self.client.zrem(address_set(self.prefix, address), member)

    async def create(
        self, play_id: int, token_hash: bytes, address: str, static: PlayStatic, reservation: str
    ) -> None:
        base, log, marks, _ = _keys(self.prefix, play_id)
        await self._create(
            keys=[base, log, marks, live_key(self.prefix), address_set(self.prefix, address)],
            args=[
                token_hash.hex(),
                address,
                msgspec.json.encode(static),
                reservation,
                time.time() + START_GRACE_S,
                PLAYING_TTL_S,
                play_id,
            ],
        )

    async def read(self, play_id: int) -> Session | None:
        base = session_key(self.prefix, play_id)
        values = await _done(self.client.hmget(base, [*_FIELDS, "cause"]))
        if values[0] is None or values[2] is None:
            return None
        token, address, static, status, version, seat, answered, outcome, cause = values
        return Session(
            play_id=play_id,
            token=_text(token) or "",
            address=_text(address) or "",
            static=msgspec.json.decode(static, type=PlayStatic),
            status=_text(status) or "playing",
            version=int(version or 0),
            seat=msgspec.json.decode(seat or b"{}", type=SeatSnapshot),
            answered=int(answered or 0),
            outcome=None if not outcome else msgspec.json.decode(outcome, type=PlayOutcome),
            cause=_text(cause) or None,
        )

    async def items(self, play_id: int, first: int, end: int) -> list[PlayLogItem]:
        """Log items ``first`` to ``end`` (excluded)."""
        if end <= first:
            return []
        raw = await _done(
            self.client.lrange(f"{session_key(self.prefix, play_id)}:log", first, end - 1)
        )
        return [msgspec.json.decode(item, type=PlayLogItem) for item in raw]

    async def mark(self, play_id: int, version: int) -> int | None:
        """How many log items the view of ``version`` held (None: no such version)."""
        found = await _done(
            self.client.hget(f"{session_key(self.prefix, play_id)}:marks", str(version))
        )
        return None if found is None else int(found)

    async def answer(self, play_id: int, answer: PersonAnswer) -> str:
        """Hand the person's answer to the player: ``ok``, ``stale`` (not the open decision,
        or answered already) or ``over``."""
        base, _, _, answers = _keys(self.prefix, play_id)
        done = await self._answer(
            keys=[base, answers],
            args=[answer.number, msgspec.json.encode(answer), PLAYING_TTL_S],
        )
        return _text(done) or "over"

    async def leave(self, play_id: int) -> bool:
        base, _, _, answers = _keys(self.prefix, play_id)
        done = await self._leave(
            keys=[base, answers],
            args=[msgspec.json.encode(PersonAnswer(leave=True)), PLAYING_TTL_S],
        )
        return bool(done)

    # --- the player ----------------------------------------------------------------------------

    async def claim(self, play_id: int, mark: str, address: str) -> str:
        """Become the session's player: ``ok``, ``taken`` (it had a player: this is a message
        delivered again after a worker died; never played twice) or ``over``."""
        done = await self._claim(
            keys=[
                session_key(self.prefix, play_id),
                live_key(self.prefix),
                address_set(self.prefix, address),
            ],
            args=[mark, time.time() + LEASE_S, play_id],
        )
        return _text(done) or "over"

    async def renew(self, play_id: int, mark: str, address: str) -> bool:
        """Renew the lease; False once the session is no longer this player's to play."""
        done = await self._renew(
            keys=[
                session_key(self.prefix, play_id),
                live_key(self.prefix),
                address_set(self.prefix, address),
            ],
            args=[mark, time.time() + LEASE_S, play_id],
        )
        return bool(done)

    async def hand_on(self, play_id: int, mark: str, address: str, replay: bytes) -> bool:
        """The match is over and its replay (``replay``, packed) goes to the trusted worker:
        it is kept with the session too, and the lease becomes :data:`RESULT_GRACE_S`, after
        which the sweeper stores it itself (the trusted worker's message lost with it);
        False: the session is no longer this player's."""
        done = await self._hand_on(
            keys=[
                session_key(self.prefix, play_id),
                live_key(self.prefix),
                address_set(self.prefix, address),
            ],
            args=[mark, time.time() + RESULT_GRACE_S, play_id, replay],
        )
        return bool(done)

    async def handed_replay(self, play_id: int) -> bytes | None:
        """The packed replay a player handed on with the session, if any (until it ends)."""
        found = await _done(self.client.hget(session_key(self.prefix, play_id), "replay"))
        if found is None:
            return None
        return found.encode() if isinstance(found, str) else bytes(found)

    async def write(self, play_id: int, mark: str, seat: SeatSnapshot, items: list[bytes]) -> int:
        """Append ``items`` to the log and set the seat; the new version (0: the session is
        no longer this player's)."""
        base, log, marks, _ = _keys(self.prefix, play_id)
        turn = 0 if seat.turn is None else seat.turn.number
        version = await self._write(
            keys=[base, log, marks, changed_channel(self.prefix)],
            args=[mark, msgspec.json.encode(seat), turn, PLAYING_TTL_S, play_id, *items],
        )
        return int(version)

    async def take_answer(self, play_id: int, timeout_s: float) -> PersonAnswer | None:
        """The person's next answer, waiting at most ``timeout_s`` (None: none came)."""
        found = await _done(
            self.client.blpop([f"{session_key(self.prefix, play_id)}:answers"], timeout=timeout_s)
        )
        if found is None:
            return None
        try:
            return msgspec.json.decode(found[1], type=PersonAnswer)
        except msgspec.ValidationError:
            return None

    # --- whoever ends it ----------------------------------------------------------------------

    async def end(
        self, play_id: int, status: str, outcome: PlayOutcome | None, cause: str | None
    ) -> bool:
        """End a session still playing (``finished`` or ``abandoned``); False if it was over
        already. Its places in the limits are given back."""
        base, log, marks, _ = _keys(self.prefix, play_id)
        address = _text(await _done(self.client.hget(base, "address"))) or ""
        version = await self._end(
            keys=[
                base,
                log,
                marks,
                live_key(self.prefix),
                changed_channel(self.prefix),
                address_set(self.prefix, address),
            ],
            args=[
                status,
                b"" if outcome is None else msgspec.json.encode(outcome),
                cause or "",
                LINGER_S,
                play_id,
            ],
        )
        return bool(version)

    async def expired(self, now: float) -> list[str]:
        """The members of ``play:live`` whose lease ran out (session ids and reservations)."""
        found = await _done(self.client.zrangebyscore(live_key(self.prefix), "-inf", now))
        return [_text(member) or "" for member in found]

    async def live_ids(self) -> list[int]:
        """The sessions going on (``play:live``'s members but the reservations)."""
        found = await _done(self.client.zrange(live_key(self.prefix), 0, -1))
        return [int(text) for member in found if (text := _text(member) or "").isdigit()]

    async def forget(self, member: str) -> None:
        await self.client.zrem(live_key(self.prefix), member)

    async def lost_cause(self, play_id: int) -> str:
        """Why a session whose lease ran out is abandoned: never begun, its worker stopped, or
        its result never stored."""
        claimed, handed = await _done(
            self.client.hmget(session_key(self.prefix, play_id), ["claimed", "handed"])
        )
        if handed:
            return CAUSE_NOT_STORED
        return CAUSE_WORKER_LOST if claimed else CAUSE_NEVER_BEGUN
