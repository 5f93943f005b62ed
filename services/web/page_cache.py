"""Rendered pages kept in one API process: a least-recently-used cache bounded by bytes.

A key names a page and everything its HTML depends on (the page, the parameters it read, the
language). An entry keeps the HTML, its ``ETag`` and until when it holds: a finished event's
page for ``TRUCO_PAGE_MAX_AGE_S``, a live one's for :data:`LIVE_S`. Pages that are asked for
while their key is being rendered wait for that one rendering instead of starting their own
(one rendering per key at a time, so a burst of views of a live page costs one rendering a
second). ``renders`` counts renderings (tests count cache misses with it).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass

LIVE_S = 1.0
"""How long a live event's rendered page is served again."""


@dataclass(frozen=True, slots=True)
class Rendered:
    """What a page handler produced: the HTML, and whether it can still change (live)."""

    html: bytes
    live: bool


@dataclass(frozen=True, slots=True)
class CachedPage:
    html: bytes
    etag: str
    live: bool
    expires: float  # on the cache's clock

    @property
    def size(self) -> int:
        return len(self.html)


def etag_of(html: bytes) -> str:
    """A strong validator: a hash of the exact bytes served."""
    return '"' + hashlib.blake2b(html, digest_size=12).hexdigest() + '"'


class PageCache:
    """Up to ``max_bytes`` of rendered pages (0: keep none, and every view renders its own page,
    as when there was no cache)."""

    def __init__(
        self, max_bytes: int, max_age_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_bytes = max_bytes
        self.max_age_s = max_age_s
        self.clock = clock
        self._entries: OrderedDict[Hashable, CachedPage] = OrderedDict()
        self._bytes = 0
        self._rendering: dict[Hashable, asyncio.Future[CachedPage]] = {}
        self.renders = 0

    @property
    def size(self) -> int:
        """Bytes of HTML held."""
        return self._bytes

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> CachedPage | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry.expires <= self.clock():
            self._drop(key)
            return None
        self._entries.move_to_end(key)
        return entry

    async def page(self, key: Hashable, render: Callable[[], Awaitable[Rendered]]) -> CachedPage:
        """The page under ``key``: kept, being rendered for another view, or rendered now."""
        if self.max_bytes == 0:  # no cache: every view renders its own page
            self.renders += 1
            rendered = await render()
            return CachedPage(rendered.html, etag_of(rendered.html), rendered.live, 0.0)
        kept = self.get(key)
        if kept is not None:
            return kept
        pending = self._rendering.get(key)
        if pending is not None:
            try:
                return await asyncio.shield(pending)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if not pending.cancelled() or (task is not None and task.cancelling()):
                    raise
                return await self.page(key, render)  # its renderer went away: render here
        future: asyncio.Future[CachedPage] = asyncio.get_running_loop().create_future()
        self._rendering[key] = future
        try:
            self.renders += 1
            rendered = await render()
            ttl = LIVE_S if rendered.live else self.max_age_s
            entry = CachedPage(
                rendered.html, etag_of(rendered.html), rendered.live, self.clock() + ttl
            )
            self._put(key, entry)
            future.set_result(entry)
            return entry
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning if nobody waits
            raise
        finally:
            del self._rendering[key]

    def _put(self, key: Hashable, entry: CachedPage) -> None:
        if entry.size > self.max_bytes or entry.expires <= self.clock():
            return
        if key in self._entries:
            self._drop(key)
        self._entries[key] = entry
        self._bytes += entry.size
        while self._bytes > self.max_bytes:
            oldest = next(iter(self._entries))
            self._drop(oldest)

    def _drop(self, key: Hashable) -> None:
        entry = self._entries.pop(key)
        self._bytes -= entry.size
