"""Values made once and kept a while: a least-recently-used cache bounded by a budget of weight
(bytes of HTML, or entries), each value kept for the time its maker's result says, with one
making per key at a time (the callers that come meanwhile wait for it). What the page cache
(:mod:`services.web.pages.page_cache`) and the tournament's view models are kept in.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

V = TypeVar("V")


@dataclass(frozen=True, slots=True)
class Kept(Generic[V]):
    value: V
    weight: int
    expires: float  # on the memo's clock


class Memo(Generic[V]):
    """Up to ``budget`` of weight (0: keep nothing and make every value, one call each).
    ``weigh(value)`` is a value's weight, ``keep_s(value)`` how long it is kept."""

    def __init__(
        self,
        budget: int,
        weigh: Callable[[V], int],
        keep_s: Callable[[V], float],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.budget = budget
        self.weigh = weigh
        self.keep_s = keep_s
        self.clock = clock
        self._entries: OrderedDict[Hashable, Kept[V]] = OrderedDict()
        self._weight = 0
        self._making: dict[Hashable, asyncio.Future[V]] = {}
        self.made = 0
        """Values made (the misses)."""

    @property
    def weight(self) -> int:
        return self._weight

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: Hashable) -> V | None:
        entry = self._entries.get(key)
        if entry is None:
            return None
        if entry.expires <= self.clock():
            self._drop(key)
            return None
        self._entries.move_to_end(key)
        return entry.value

    async def value(self, key: Hashable, make: Callable[[], Awaitable[V]]) -> V:
        """The value under ``key``: kept, being made for another caller, or made now."""
        if self.budget == 0:
            self.made += 1
            return await make()
        kept = self.get(key)
        if kept is not None:
            return kept
        pending = self._making.get(key)
        if pending is not None:
            try:
                return await asyncio.shield(pending)
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if not pending.cancelled() or (task is not None and task.cancelling()):
                    raise
                return await self.value(key, make)  # its maker went away: make it here
        future: asyncio.Future[V] = asyncio.get_running_loop().create_future()
        self._making[key] = future
        try:
            self.made += 1
            value = await make()
            self._put(key, value)
            future.set_result(value)
            return value
        except asyncio.CancelledError:
            future.cancel()
            raise
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning if nobody waits
            raise
        finally:
            del self._making[key]

    def _put(self, key: Hashable, value: V) -> None:
        entry = Kept(value, self.weigh(value), self.clock() + self.keep_s(value))
        if entry.weight > self.budget or entry.expires <= self.clock():
            return
        if key in self._entries:
            self._drop(key)
        self._entries[key] = entry
        self._weight += entry.weight
        while self._weight > self.budget:
            self._drop(next(iter(self._entries)))

    def _drop(self, key: Hashable) -> None:
        self._weight -= self._entries.pop(key).weight
