"""The soak's spectators: Server-Sent Events clients through the proxy, on one asyncio loop in
a thread of their own (:class:`Spectators`).

* A **match spectator** picks a match being played (``running``), follows its stream to
  ``event: end``, then picks another. Its connection cut (the API behind it killed, the proxy's next
  request landing on another API), it reconnects with ``Last-Event-ID``. It keeps, per match,
  the indexes of the items it got of the match's last run: once each, in order, from 0
  (asserted by the test). A run that began while it was away (the match redelivered after
  its worker died) is told by the items' ``run``: docs/live.md says a resumed stream may then
  miss the new run's first items, so it starts that run over from index 0 (counted).
* A **tournament spectator** follows the tournament's stream to ``event: end``, reconnecting
  when cut; each message is a state, so it keeps the last state of every match.
"""

from __future__ import annotations

import asyncio
import random
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import asyncpg
import httpx

from tests.services.worker.play_cluster import Frame, FrameReader
from tests.services.worker.soak_people import RETRYABLE, Answers


async def frames(response: httpx.Response) -> AsyncIterator[Frame]:
    """The events of a text/event-stream, read asynchronously."""
    reader = FrameReader()
    async for line in response.aiter_lines():
        frame = reader.feed(line)
        if frame is not None:
            yield frame


@dataclass
class Followed:
    """One match as one spectator saw it."""

    match_id: int
    run: str | None = None
    items: list[int] = field(default_factory=list)
    """The indexes of the last run's items, as they came."""
    decisions: int = 0
    """``decision`` events among the last run's items."""
    runs: int = 0
    restarted: int = 0
    """Runs it started over from 0 (a new run met on resuming)."""
    reconnects: int = 0
    end: dict[str, Any] | None = None
    ended_away: bool = False
    """The end came at once on a resumed connection: the match ended while the spectator was
    away (its API killed), and a client then loads the stored replay (docs/live.md)."""


@dataclass
class Watched:
    """The tournament as one spectator saw it: the last state of every match."""

    matches: dict[int, dict[str, Any]] = field(default_factory=dict)
    head: dict[str, Any] | None = None
    end: dict[str, Any] | None = None
    reconnects: int = 0
    messages: int = 0


class Spectators(threading.Thread):
    def __init__(
        self, base: str, database: str, tournament: int, answers: Answers, counts: tuple[int, int]
    ) -> None:
        super().__init__(daemon=True, name="spectators")
        self.base, self.database, self.tournament, self.answers = (
            base,
            database,
            tournament,
            answers,
        )
        self.match_watchers, self.tournament_watchers = counts
        self.followed: list[Followed] = []
        self.watched: list[Watched] = []
        self.failures: list[BaseException] = []
        self.items = 0
        self.quit = threading.Event()
        """Set: match spectators take no new match (each finishes the one it follows)."""
        self._live: list[int] = []

    def run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported by the test
            self.failures.append(exc)

    async def _main(self) -> None:
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=None)
        timeout = httpx.Timeout(60, read=90)
        async with httpx.AsyncClient(
            base_url=self.base, timeout=timeout, limits=limits, trust_env=False
        ) as client:
            finding = asyncio.create_task(self._find_live())
            tasks = [
                asyncio.create_task(self._match_watcher(client, k))
                for k in range(self.match_watchers)
            ] + [
                asyncio.create_task(self._tournament_watcher(client))
                for _ in range(self.tournament_watchers)
            ]
            results = await asyncio.gather(*tasks, return_exceptions=True)
            finding.cancel()
        self.failures += [r for r in results if isinstance(r, BaseException)]

    async def _find_live(self) -> None:
        conn = await asyncpg.connect(self.database)
        try:
            while True:
                rows = await conn.fetch("SELECT id FROM matches WHERE status = 'running'")
                self._live = [int(r["id"]) for r in rows]
                await asyncio.sleep(0.5)
        finally:
            await conn.close()

    async def _match_watcher(self, client: httpx.AsyncClient, seed: int) -> None:
        chance = random.Random(seed)
        while not self.quit.is_set():
            if not self._live:
                await asyncio.sleep(0.3)
                continue
            followed = Followed(chance.choice(self._live))
            self.followed.append(followed)
            await self._follow(client, followed)

    async def _open(
        self, client: httpx.AsyncClient, path: str, headers: dict[str, str]
    ) -> httpx.Response | None:
        """The stream's response, or None (a 5xx or a broken connection: try again)."""
        try:
            request = client.build_request("GET", path, headers=headers)
            response = await client.send(request, stream=True)
        except httpx.TransportError:
            self.answers.broken()
            return None
        if response.status_code != 200:
            body = (await response.aread()).decode(errors="replace")
            await response.aclose()
            self.answers.note("GET", path, response.status_code, body)
            assert response.status_code in RETRYABLE, (path, response.status_code, body)
            return None
        self.answers.note("GET", path, 200)
        return response

    async def _follow(self, client: httpx.AsyncClient, seen: Followed) -> None:
        path = f"/v1/matches/{seen.match_id}/stream"
        last: int | None = None
        while seen.end is None:
            headers = {} if last is None else {"Last-Event-ID": str(last)}
            response = await self._open(client, path, headers)
            if response is not None:
                try:
                    last = await self._items(response, seen, last, resumed=last is not None)
                except httpx.TransportError:
                    self.answers.broken()
                finally:
                    await response.aclose()
            if seen.end is None:
                seen.reconnects += 1
                await asyncio.sleep(0.1)

    async def _items(
        self, response: httpx.Response, seen: Followed, last: int | None, *, resumed: bool
    ) -> int | None:
        """Read items until the end or a cut; the last index read (None: start over)."""
        first = True
        async for frame in frames(response):
            if frame.event == "end":
                seen.end, seen.ended_away = frame.data, resumed and first
                return last
            first = False
            index, run = int(frame.id), str(frame.data["run"])
            self.items += 1
            if frame.event == "run":  # a run's header, index 0: the list starts over
                seen.run, seen.items, seen.decisions = run, [], 0
                seen.runs += 1
            elif run != seen.run:  # a new run began while away: take it from its start
                seen.restarted += 1
                seen.run, seen.items, seen.decisions = None, [], 0
                return None
            seen.items.append(index)
            seen.decisions += sum(
                1 for event in frame.data.get("events", ()) if event.get("type") == "decision"
            )
            last = index
        return last

    async def _tournament_watcher(self, client: httpx.AsyncClient) -> None:
        seen = Watched()
        self.watched.append(seen)
        path = f"/v1/tournaments/{self.tournament}/stream"
        while seen.end is None:
            response = await self._open(client, path, {})
            if response is not None:
                try:
                    async for frame in frames(response):
                        seen.messages += 1
                        self.items += 1
                        if frame.event == "match":
                            seen.matches[int(frame.data["id"])] = frame.data
                        elif frame.event == "tournament":
                            seen.head = frame.data
                        elif frame.event == "end":
                            seen.end = frame.data
                            break
                except httpx.TransportError:
                    self.answers.broken()
                finally:
                    await response.aclose()
            if seen.end is None:
                seen.reconnects += 1
                await asyncio.sleep(0.2)
