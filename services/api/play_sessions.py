"""Play sessions as an API process sees them: in Redis, served by any process (docs/play.md).

A session's state lives in Redis (:mod:`services.play.store`), written by its player; any API
process reads it (:meth:`PlayRoom.view`), waits for its changes (one subscription to
``play:changed`` per process, :class:`ChangeWatch`, with a read every ``BACKSTOP_S`` should a
message be lost), hands the person's answers to the player, and counts the limits there, so a
load balancer need not be sticky and a session outlives the process that made it.

Who plays: with a Redis shared with the workers (``REDIS_URL`` set: production, ``make run``)
the bot-calling worker (``truco.play_person``); the API process then never calls a bot for
/play. Without one (tests, a bare app), this process plays its own sessions on its loop, with
the same code, the same Redis state and the same ending (:func:`~services.worker.results.
play_results.end_play`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import asyncpg
import msgspec
import redis.asyncio as aioredis

from arena.client.connection import BotConnection
from arena.match.replay import EntrantRecord
from services.api.schemas.play import PlayOption, PlayTurn, PlayView
from services.base.config import Settings
from services.play.items import PlayOrder
from services.play.session import play_session
from services.play.store import BACKSTOP_S, PlayStore, Session, changed_channel
from services.worker.results.play_results import end_play

logger = logging.getLogger("services.api.routes.play")

CAUSE_API_STOPPED = "the API process playing this session stopped; the match is abandoned"


class ChangeWatch:
    """This process's one subscription to ``play:changed``: wakes the requests waiting on a
    session (a long poll, a stream) when its player wrote."""

    def __init__(self, client: aioredis.Redis, channel: str) -> None:
        self.client = client
        self.channel = channel
        self._waiters: dict[int, set[asyncio.Event]] = {}
        self._task: asyncio.Task[None] | None = None

    def register(self, play_id: int) -> asyncio.Event:
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._run())
        event = asyncio.Event()
        self._waiters.setdefault(play_id, set()).add(event)
        return event

    def unregister(self, play_id: int, event: asyncio.Event) -> None:
        found = self._waiters.get(play_id)
        if found is not None:
            found.discard(event)
            if not found:
                del self._waiters[play_id]

    def _wake(self, play_id: int) -> None:
        for event in self._waiters.get(play_id, ()):
            event.set()

    async def _run(self) -> None:
        while True:
            pubsub = self.client.pubsub()
            try:
                await pubsub.subscribe(self.channel)
                async for message in pubsub.listen():
                    if message.get("type") == "message":
                        with contextlib.suppress(ValueError):
                            self._wake(int(message["data"]))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a lost connection: the backstop reads meanwhile
                logger.warning("play changes: subscription lost (%s); again", exc)
                await asyncio.sleep(0.5)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def aclose(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task


def _turn(session: Session, now_ms: int) -> PlayTurn | None:
    """The decision the person owes now (none once answered: the player takes it)."""
    turn = session.seat.turn
    if turn is None or session.status != "playing" or turn.number <= session.answered:
        return None
    clock_left = max(0, turn.deadline_ms - now_ms)
    bank = None
    if turn.bank_left_ms is not None:
        bank = max(0, turn.bank_left_ms - max(0, turn.clock_ms - clock_left))
    return PlayTurn(
        number=turn.number,
        legal_actions=[
            PlayOption(action=a.action, card=a.card) for a in turn.request.legal_actions
        ],
        clock_ms=turn.clock_ms,
        clock_left_ms=clock_left,
        bank_left_ms=bank,
    )


@dataclass
class PlayRoom:
    """This API process's side of every play session (see the module docstring)."""

    settings: Settings
    client: aioredis.Redis
    store: PlayStore
    watch: ChangeWatch
    _local: dict[int, asyncio.Task[None]] = field(default_factory=dict)

    @classmethod
    def of(cls, settings: Settings) -> PlayRoom:
        redis_settings = settings.redis
        client = aioredis.Redis.from_url(redis_settings.url_or_local)
        prefix = redis_settings.prefix
        if redis_settings.url is None:
            # no Redis shared with workers: this process plays its own sessions, under keys of
            # its own (another process on the local Redis numbers its sessions from 1 too)
            prefix = f"{prefix}play-local-{secrets.token_hex(8)}:"
        return cls(
            settings,
            client,
            PlayStore(client, prefix),
            ChangeWatch(client, changed_channel(prefix)),
        )

    @property
    def on_workers(self) -> bool:
        """Whether the bot-calling workers play the sessions (a Redis shared with them)."""
        return self.settings.redis.url is not None

    async def read(self, play_id: int) -> Session | None:
        return await self.store.read(play_id)

    async def view(
        self, session: Session, since: int | None = None, until: int | None = None
    ) -> PlayView:
        """What the person sees of ``session``: the log from item ``since`` (default: the
        current game's) to ``until`` (default: every item of the session's version)."""
        seat = session.seat
        end = seat.log_len if until is None else until
        first = since if since is not None else seat.game_starts[-1] if seat.game_starts else 0
        items = await self.store.items(session.play_id, max(0, first), end)
        static = session.static
        playing = session.status == "playing"
        finished = session.status == "finished"
        return PlayView(
            id=session.play_id,
            status="playing" if playing else "finished" if finished else "abandoned",
            version=session.version,
            opponent=static.opponent,
            partner=static.partner,
            person_side=static.person_side,
            rules=static.settings.rules,
            games=static.settings.games_per_match,
            game_number=seat.game_number,
            turn=_turn(session, round(time.time() * 1000)),
            observation=None if seat.observation is None else msgspec.to_builtins(seat.observation),
            outcome=session.outcome,
            replay_url=f"/v1/play/{session.play_id}/replay" if finished else None,
            to_act=seat.to_act if playing else None,
            seating=seat.seating,
            log=items,
            cause=session.cause,
        )

    async def wait_change(self, play_id: int, version: int, timeout_s: float) -> Session | None:
        """The session once its version is past ``version`` or it is over (at most
        ``timeout_s``: then as it is)."""
        deadline = time.monotonic() + timeout_s
        while True:
            event = self.watch.register(play_id)
            try:
                session = await self.store.read(play_id)
                if session is None or session.version > version or session.status != "playing":
                    return session
                left = deadline - time.monotonic()
                if left <= 0:
                    return session
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(event.wait(), min(left, BACKSTOP_S))
            finally:
                self.watch.unregister(play_id, event)

    # --- sessions this process plays (no Redis shared with workers) ------------------------

    def play_here(
        self,
        pool: asyncpg.Pool,
        order: PlayOrder,
        bots: Sequence[tuple[EntrantRecord, BotConnection]],
    ) -> None:
        """Play ``order`` on this process's loop (only without workers: see the module)."""
        self._local[order.play_id] = asyncio.create_task(self._play(pool, order, bots))

    async def _play(
        self,
        pool: asyncpg.Pool,
        order: PlayOrder,
        bots: Sequence[tuple[EntrantRecord, BotConnection]],
    ) -> None:
        try:
            replay = await play_session(
                self.store,
                play_id=order.play_id,
                mark=f"api:{id(self)}",
                address=order.address,
                seed=order.seed,
                settings=order.settings,
                clock_s=order.clock_s,
                bank_s=order.bank_s,
                bots=bots,
            )
            if replay is not None:
                await end_play(pool, self.store, order.play_id, replay)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await end_play(pool, self.store, order.play_id, None, CAUSE_API_STOPPED)
            raise
        except Exception as exc:
            logger.exception("play session %s failed; stored as abandoned", order.play_id)
            with contextlib.suppress(Exception):
                cause = f"the match failed ({type(exc).__name__}); the match is abandoned"
                await end_play(pool, self.store, order.play_id, None, cause)
        finally:
            self._local.pop(order.play_id, None)

    async def aclose(self, pool: asyncpg.Pool | None) -> None:
        """The process stops: the sessions it plays itself are stored as abandoned (those
        the workers play go on)."""
        del pool
        running = list(self._local.values())
        for task in running:
            task.cancel()
        for task in running:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.watch.aclose()
        with contextlib.suppress(Exception):
            await self.client.aclose()
