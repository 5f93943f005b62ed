"""The rendered-page cache: bounded by bytes (least recently used out first), a live page kept
one second, one rendering per key at a time, errors not kept."""

from __future__ import annotations

import asyncio

import pytest

from services.web.pages.page_cache import LIVE_S, PageCache, Rendered

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def page(text: str, live: bool = False) -> Rendered:
    return Rendered(text.encode(), live)


async def test_the_least_recently_used_pages_leave_first_and_the_bytes_stay_bounded() -> None:
    cache = PageCache(max_bytes=300, max_age_s=300)

    async def render(name: str) -> Rendered:
        return page(name[0] * 100)

    for name in ("a", "b", "c"):
        await cache.page(name, lambda n=name: render(n))  # type: ignore[misc]
    assert cache.size == 300 and len(cache) == 3
    assert cache.get("a") is not None  # "a" used: "b" is now the oldest
    await cache.page("d", lambda: render("d"))
    assert cache.size <= 300
    assert cache.get("b") is None and cache.get("a") is not None and cache.get("d") is not None
    for k in range(50):  # many pages: never more than the budget
        await cache.page(k, lambda: render("e"))
        assert cache.size <= 300
    huge = await cache.page("huge", lambda: render("x" * 4))  # one page over the whole budget
    assert huge.html == b"x" * 100 and cache.size <= 300


async def test_a_live_page_is_kept_a_second_a_finished_one_its_max_age() -> None:
    clock = Clock()
    cache = PageCache(max_bytes=10_000, max_age_s=300, clock=clock)

    async def live() -> Rendered:
        return page(f"live {clock.now}", live=True)

    async def done() -> Rendered:
        return page("done")

    first = await cache.page("live", live)
    await cache.page("done", done)
    clock.now += LIVE_S / 2
    assert (await cache.page("live", live)).html == first.html
    clock.now += LIVE_S
    assert (await cache.page("live", live)).html != first.html
    assert cache.get("done") is not None
    clock.now += 300
    assert cache.get("done") is None
    assert cache.renders == 3


async def test_views_that_arrive_while_a_page_renders_wait_for_that_rendering() -> None:
    cache = PageCache(max_bytes=10_000, max_age_s=300)
    gate = asyncio.Event()

    async def slow() -> Rendered:
        await gate.wait()
        return page("slow")

    views = [asyncio.create_task(cache.page("k", slow)) for _ in range(20)]
    await asyncio.sleep(0)
    gate.set()
    pages = await asyncio.gather(*views)
    assert {p.html for p in pages} == {b"slow"}
    assert cache.renders == 1


async def test_an_error_is_raised_to_every_waiting_view_and_not_kept() -> None:
    cache = PageCache(max_bytes=10_000, max_age_s=300)
    gate = asyncio.Event()

    async def failing() -> Rendered:
        await gate.wait()
        raise LookupError("no such page")

    views = [asyncio.create_task(cache.page("k", failing)) for _ in range(3)]
    await asyncio.sleep(0)
    gate.set()
    results = await asyncio.gather(*views, return_exceptions=True)
    assert all(isinstance(r, LookupError) for r in results)
    assert cache.get("k") is None and len(cache) == 0


async def test_a_view_whose_renderer_went_away_renders_the_page_itself() -> None:
    cache = PageCache(max_bytes=10_000, max_age_s=300)
    gate = asyncio.Event()

    async def slow() -> Rendered:
        await gate.wait()
        return page("slow")

    first = asyncio.create_task(cache.page("k", slow))
    await asyncio.sleep(0)
    second = asyncio.create_task(cache.page("k", slow))
    await asyncio.sleep(0)
    first.cancel()
    await asyncio.sleep(0)
    gate.set()
    assert (await second).html == b"slow"
    assert first.cancelled()


async def test_without_a_budget_every_view_renders_its_own_page() -> None:
    cache = PageCache(max_bytes=0, max_age_s=300)
    gate = asyncio.Event()

    async def slow() -> Rendered:
        await gate.wait()
        return page("slow")

    views = [asyncio.create_task(cache.page("k", slow)) for _ in range(3)]
    await asyncio.sleep(0)
    gate.set()
    await asyncio.gather(*views)
    assert cache.renders == 3 and len(cache) == 0
