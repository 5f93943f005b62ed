"""Fixtures for the page tests: a real database with real data, the app over ASGI and over
real HTTP (uvicorn on 127.0.0.1, an ephemeral port), and Debian's headless Chromium through
Playwright (which one: ``bench/browser.py``).

Browser tests skip, with the reason, when Playwright or Chromium is missing or the browser
cannot start; the ASGI tests always run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
from litestar import Litestar

from bench.browser import CHROMIUM
from services.base.config import DatabaseSettings, RateLimits, Secret, SecretSettings, Settings
from services.db.pool import create_pool
from services.launch.app import create_app
from tests.servers import PostgresServer, migrated_database
from tests.services.helpers.uvicorn_thread import serving
from tests.services.web.seed import Seeded, seed

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[3]
SCREENSHOTS = ROOT / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def settings(url: str) -> Settings:
    """The pages' tests read many pages from one address in a minute: the page budget is
    lifted (tests/services/web/pages/test_event_pages.py tests it with a budget of its own)."""
    return Settings(
        database=DatabaseSettings(url=url),
        secrets=SecretSettings(key=Secret("w" * 48)),
        rate_limits=RateLimits(pages_per_minute=1_000_000),
    )


def web_app(url: str, pool: Any = None) -> Litestar:
    """The platform app: create_app mounts the pages itself."""
    return create_app(settings(url), pool=pool)


@dataclass(frozen=True)
class WebData:
    url: str
    seeded: Seeded


@pytest.fixture(scope="session")
def web_data(postgres_server: PostgresServer) -> Iterator[WebData]:
    """A migrated database of the page tests' own, filled with real matches and events."""
    with migrated_database(postgres_server) as url:
        yield WebData(url, asyncio.run(seed(url)))


@pytest.fixture
async def client(web_data: WebData) -> AsyncIterator[httpx.AsyncClient]:
    """The app over ASGI (no browser needed)."""
    pool = await create_pool(web_data.url, min_size=1, max_size=4)
    try:
        app = web_app(web_data.url, pool)
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as c:
            yield c
    finally:
        await pool.close()


@pytest.fixture(scope="session")
def live_server(web_data: WebData) -> Iterator[str]:
    """The app served by uvicorn on 127.0.0.1 in a thread; yields its base URL."""
    with serving(web_app(web_data.url)) as base:
        yield base


def _browser_missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (.venv/bin/pip install playwright)"
    if not os.access(CHROMIUM, os.X_OK):
        return f"no Chromium at {CHROMIUM} (make browser installs it with apt-get)"
    return None


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion in a thread of its own (Playwright's sync API keeps an
    event loop running in the test's thread, so ``asyncio.run`` cannot be used there)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


@contextlib.contextmanager
def error_free_page(
    browser: Any, base_url: str, *, init_script: str | None = None, **context: Any
) -> Iterator[Any]:
    """A page of a fresh browser context (``context``: viewport, locale, ...); a JavaScript
    error on it fails the test once the block is over."""
    ctx = browser.new_context(base_url=base_url, **context)
    if init_script is not None:
        ctx.add_init_script(init_script)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
    finally:
        ctx.close()
    assert errors == [], errors


@pytest.fixture(scope="module")
def browser(live_server: str) -> Iterator[Any]:
    """Chromium, started after the server and its data (their set-up uses asyncio.run).

    Module scope: Playwright's sync API keeps an event loop running in this thread while it
    is open, which the async (anyio) tests of other modules cannot share."""
    missing = _browser_missing()
    if missing:
        pytest.skip(f"browser tests skipped: {missing}")
    from playwright.sync_api import Error, sync_playwright

    with sync_playwright() as pw:
        try:
            chromium = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        except Error as exc:
            pytest.skip(f"browser tests skipped: Chromium did not start: {exc}")
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser: Any, live_server: str) -> Iterator[Any]:
    """A fresh page; any JavaScript dialog or page error fails the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live_server)
    pg = context.new_page()
    dialogs: list[str] = []
    errors: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    pg.on("dialog", on_dialog)
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on(
        "console",
        lambda msg: errors.append(msg.text) if msg.type == "error" else None,
    )
    pg.dialogs = dialogs
    pg.errors = errors
    pg.expect_csp_block = False
    try:
        yield pg
    finally:
        context.close()
    assert dialogs == [], f"a JavaScript dialog fired: {dialogs}"
    if pg.expect_csp_block:  # a test that deliberately tries an inline script
        errors = [e for e in errors if "Content Security Policy" not in e]
    assert errors == [], f"errors in the page: {errors}"


def shot(page: Any, name: str, full: bool = True) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=full)
