"""The live streams' fan-out: ONE poller per watched match or tournament per API process.

A :class:`Feed` holds the SSE frames of one watched thing, built once, in order; every
subscriber (one open stream) keeps only a cursor into it and wakes when the poller appends.
The cost of a new event is one Redis read per process, one encoding, and one write per
subscriber: not one Redis poll per spectator. A feed and its poller live while someone
watches; the last subscriber leaving stops the poller and drops the frames.

* A match feed reads the live list (``services.live.reader``) as soon as the worker says it
  wrote to it (the hub's one subscription to the live channel per process nudges the feed),
  and at the latest every :data:`MATCH_POLL_S` (the safety net for a lost notification):
  one pipelined round trip (the first item, to notice a new run, and the items past the last
  one read). Each item becomes a frame whose ``id`` is its index in the list; a run's header
  is ``event: run``. Every :data:`STATUS_POLL_S` (and when the list disappears) it reads the
  match's status; once the match is over it sends ``event: end`` and stops.
* A tournament feed reads the tournament and its matches every :data:`STATUS_POLL_S` and
  sends ``event: match`` for each match whose status or result changed (every match on the
  first read), ``event: tournament`` when the tournament's status or round changed, and
  ``event: end`` once it is finished or cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Final

import asyncpg

from services.api.schemas.streams import (
    MatchChange,
    MatchEnd,
    MatchGone,
    TournamentGone,
    TournamentHead,
    Unavailable,
)
from services.api.sse.frames import HEARTBEAT, frame, json_frame
from services.db import matches as db_matches
from services.db import tournaments as db_tournaments
from services.db.matches import StoredMatch
from services.domain import LIVE_TOURNAMENT_STATUSES, OPEN_STATUSES
from services.live.feed import LiveHeader, decode
from services.live.reader import LiveReader

logger = logging.getLogger("services.api")

MATCH_POLL_S: Final = 0.25
STATUS_POLL_S: Final = 1.0
HEARTBEAT_S: Final = 15.0


@dataclass(slots=True)
class Feed:
    """The frames of one watched match or tournament, shared by its subscribers."""

    frames: list[bytes] = field(default_factory=list)
    generation: int = 0
    """Bumped when the frames start over (a new run of the match): cursors go back to 0."""
    end: bytes | None = None
    subscribers: int = 0
    task: asyncio.Task[None] | None = None
    _changed: asyncio.Event = field(default_factory=asyncio.Event)
    _nudged: asyncio.Event = field(default_factory=asyncio.Event)

    def nudge(self) -> None:
        """Something new was written: the poller reads now instead of at its next poll."""
        self._nudged.set()

    async def nudged(self, timeout: float) -> None:
        """The poller's pause: until a :meth:`nudge` or ``timeout`` seconds."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._nudged.wait(), timeout)
        self._nudged.clear()

    def append(self, new: list[bytes]) -> None:
        if new:
            self.frames.extend(new)
            self._wake()

    def restart(self) -> None:
        self.frames = []
        self.generation += 1
        self._wake()

    def finish(self, last: bytes) -> None:
        self.end = last
        self._wake()

    def _wake(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def changed(self, timeout: float) -> bool:
        """Wait for new frames (True) or ``timeout`` seconds (False)."""
        event = self._changed
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            return False
        return True


async def follow(feed: Feed, cursor: int, heartbeat_s: float | None = None) -> AsyncIterator[bytes]:
    """A subscriber: every frame from ``cursor`` on, as it arrives (new frames joined in one
    chunk), a heartbeat comment when idle (every :data:`HEARTBEAT_S`), the end frame last."""
    heartbeat_s = HEARTBEAT_S if heartbeat_s is None else heartbeat_s
    generation = feed.generation
    while True:
        if feed.generation != generation:
            generation, cursor = feed.generation, 0
        if cursor < len(feed.frames):
            chunk = b"".join(feed.frames[cursor:])
            cursor = len(feed.frames)
            yield chunk
            continue
        if feed.end is not None:
            yield feed.end
            return
        if not await feed.changed(heartbeat_s):
            yield HEARTBEAT


# --- match feeds ------------------------------------------------------------------------------


def end_of_match(match: StoredMatch | None, match_id: int) -> bytes:
    """The ``end`` frame: the final status (and the winning side and games won, if any)."""
    if match is None:
        return json_frame(MatchGone(match_id), event="end")
    return json_frame(
        MatchEnd(match.id, match.status, match.winner_side, list(match.games_won)), event="end"
    )


def item_frame(raw: bytes, index: int) -> bytes:
    """A live item as a frame: ``id`` its index in the list; a run's header is ``event: run``."""
    header = isinstance(decode(raw), LiveHeader)
    return frame(raw.strip(), event="run" if header else None, id=index)


def run_of(raw: bytes | None) -> str | None:
    item = decode(raw)
    return None if item is None else item.run


Decided = Callable[[], Awaitable[bytes | None]]
"""The match's ``end`` frame if it is over, else None (a database read)."""


def decided_in(pool: asyncpg.Pool, match_id: int) -> Decided:
    async def decided() -> bytes | None:
        match = await db_matches.get_match(pool, match_id)
        if match is None or match.status not in OPEN_STATUSES:
            return end_of_match(match, match_id)
        return None

    return decided


async def poll_match(
    feed: Feed,
    reader: LiveReader,
    match_id: int,
    decided: Decided,
    *,
    poll_s: float = MATCH_POLL_S,
    status_s: float = STATUS_POLL_S,
) -> None:
    """The one poller of a watched match (see the module docstring)."""
    run: str | None = None
    status_at = time.monotonic()
    while True:
        first, items = await reader.since(match_id, len(feed.frames))
        now = time.monotonic()
        if first == b"":  # Redis unreadable: try again later
            pass
        elif first is not None:
            head = run_of(first)
            if run is not None and head != run:  # a new run replaced the list
                run = head
                feed.restart()
                continue
            run = head
            start = len(feed.frames)
            feed.append([item_frame(raw, start + k) for k, raw in enumerate(items)])
        gone = first is None and run is not None  # the list was deleted: decided, likely
        if gone or now - status_at >= status_s:
            status_at = now
            end = await decided()
            if end is not None:
                if first is not None and first != b"":  # read what is left
                    _, rest = await reader.since(match_id, len(feed.frames))
                    start = len(feed.frames)
                    feed.append([item_frame(raw, start + k) for k, raw in enumerate(rest)])
                feed.finish(end)
                return
        await feed.nudged(poll_s)


# --- tournament feeds -------------------------------------------------------------------------


def match_change(match: StoredMatch) -> MatchChange:
    return MatchChange(
        id=match.id,
        round=match.round_number,
        board=match.board,
        status=match.status,
        winner_side=match.winner_side,
        games_won=list(match.games_won),
    )


async def poll_tournament(
    feed: Feed, pool: asyncpg.Pool, tournament_id: int, *, status_s: float = STATUS_POLL_S
) -> None:
    """The one poller of a watched tournament (see the module docstring)."""
    seen: dict[int, MatchChange] = {}
    shown: TournamentHead | None = None
    while True:
        tournament = await db_tournaments.get_tournament(pool, tournament_id)
        if tournament is None:
            feed.finish(json_frame(TournamentGone(tournament_id), event="end"))
            return
        new: list[bytes] = []
        for match in await db_matches.tournament_matches(pool, tournament_id):
            change = match_change(match)
            if seen.get(match.id) != change:
                seen[match.id] = change
                new.append(json_frame(change, event="match"))
        head = TournamentHead(tournament.id, tournament.status, tournament.current_round)
        if head != shown:
            shown = head
            new.append(json_frame(head, event="tournament"))
        feed.append(new)
        if tournament.status not in LIVE_TOURNAMENT_STATUSES:
            feed.finish(json_frame(head, event="end"))
            return
        await asyncio.sleep(status_s)


# --- the hub ----------------------------------------------------------------------------------

Poller = Callable[[Feed], Awaitable[None]]


@dataclass(slots=True)
class Hub:
    """This process's feeds, by ``(kind, id)``."""

    feeds: dict[tuple[str, int], Feed] = field(default_factory=dict)
    listener: asyncio.Task[None] | None = None

    def listen(self, written: Callable[[], AsyncIterator[int]]) -> None:
        """Nudge a watched match's feed each time ``written`` yields its id (one task per
        process, started on the first call: :meth:`LiveReader.notifications`)."""
        if self.listener is None or self.listener.done():
            self.listener = asyncio.create_task(self._nudge_from(written))

    async def _nudge_from(self, written: Callable[[], AsyncIterator[int]]) -> None:
        try:
            async for match_id in written():
                feed = self.feeds.get(("match", match_id))
                if feed is not None:
                    feed.nudge()
        except asyncio.CancelledError:
            raise
        except Exception:  # the feeds still poll
            logger.exception("live notifications stopped")

    @contextlib.asynccontextmanager
    async def watch(self, key: tuple[str, int], poller: Poller) -> AsyncIterator[Feed]:
        """Subscribe to a feed (starting its poller if nobody watched it); leaving unsubscribes
        and the last one out stops the poller."""
        feed = self.feeds.get(key)
        if feed is None:
            feed = self.feeds[key] = Feed()
            feed.task = asyncio.create_task(_guarded(poller, feed, key))
        feed.subscribers += 1
        try:
            yield feed
        finally:
            feed.subscribers -= 1
            if feed.subscribers == 0 and self.feeds.get(key) is feed:
                del self.feeds[key]
                if feed.task is not None and not feed.task.done():
                    feed.task.cancel()

    async def aclose(self) -> None:
        if self.listener is not None:
            self.listener.cancel()
            self.listener = None
        for feed in self.feeds.values():
            if feed.task is not None:
                feed.task.cancel()
        self.feeds.clear()


async def _guarded(poller: Poller, feed: Feed, key: tuple[str, int]) -> None:
    """A poller that fails ends its streams (clients reconnect and resume) instead of
    leaving them silent."""
    try:
        await poller(feed)
    except asyncio.CancelledError:
        raise
    except Exception:
        logger.exception("live feed %s failed", key)
        feed.finish(json_frame(Unavailable(), event="end"))
