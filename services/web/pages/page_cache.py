"""Rendered pages kept in one API process: a least-recently-used cache bounded by bytes
(:class:`services.web.pages.memo.Memo`).

A key names a page and everything its HTML depends on (the page, its query, the language). An
entry keeps the HTML, its ``ETag`` and whether it can still change: a finished event's page is
kept ``TRUCO_PAGE_MAX_AGE_S``, a live one's :data:`LIVE_S`. Views that come while their page
is being rendered wait for that one rendering (so a burst of views of a live page costs one
rendering a second). ``renders`` counts renderings (tests count cache misses with it).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass

from services.web.pages.memo import Memo

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


def etag_of(html: bytes) -> str:
    """A strong validator: a hash of the exact bytes served."""
    return '"' + hashlib.blake2b(html, digest_size=12).hexdigest() + '"'


class PageCache:
    """Up to ``max_bytes`` of rendered pages (0: keep none, and every view renders its own page,
    as when there was no cache)."""

    def __init__(
        self, max_bytes: int, max_age_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.max_age_s = max_age_s
        self._memo: Memo[CachedPage] = Memo(
            max_bytes,
            weigh=lambda page: len(page.html),
            keep_s=lambda page: LIVE_S if page.live else max_age_s,
            clock=clock,
        )

    @property
    def clock(self) -> Callable[[], float]:
        return self._memo.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self._memo.clock = clock

    @property
    def renders(self) -> int:
        return self._memo.made

    @property
    def size(self) -> int:
        """Bytes of HTML held."""
        return self._memo.weight

    def __len__(self) -> int:
        return len(self._memo)

    def get(self, key: Hashable) -> CachedPage | None:
        return self._memo.get(key)

    async def page(self, key: Hashable, render: Callable[[], Awaitable[Rendered]]) -> CachedPage:
        """The page under ``key``: kept, being rendered for another view, or rendered now."""

        async def make() -> CachedPage:
            rendered = await render()
            return CachedPage(rendered.html, etag_of(rendered.html), rendered.live)

        return await self._memo.value(key, make)
