"""The /play table in a browser (issue 35): what the page weighs, and how long a person waits
from their key to the bot's answer on the table.

The platform is served by uvicorn on 127.0.0.1 (one API process, its own database, the house
heuristic as a built-in bot in the same process, as ``make run`` in production plays it);
Chromium at 390 px plays a whole 1v1 to 15 by keyboard (a card's number key, or the first
call's button). In the page, a key press and each line the table adds (its seat) are stamped
with ``performance.now()``:

* ``own_ms``: the key to the person's own move shown on the table (the answer of
  ``POST /v1/play/{id}/act``, or the stream, whichever comes first, folded and drawn);
* ``bot_ms``: the key to the bot's next move shown. The table shows one event at a time,
  ``STEP_MS`` (450 ms, ``static/play.js``) after the one before, so that the person sees their
  own card land before the bot's: that pause is part of this figure by design;
* ``act_ms``: the ``/act`` request's own round trip (Resource Timing).

The weight is every byte the table's page loads (HTML, stylesheet, scripts, icon; not the
stream), as sent (the server compresses nothing) and gzipped (what a proxy would send), for
``/play/{id}`` in play and ``/play/{id}/replay`` at the end. Skips with the reason without
PostgreSQL, Playwright or Chromium.
"""

from __future__ import annotations

import asyncio
import gzip
import os
import secrets
import statistics
import time
from typing import Any

import msgspec

from bench.browser import CHROMIUM
from bench.database import NoServer, scratch_database
from bench.serve import api_app, in_thread
from bench.smoke import smoke
from services.base.config import DatabaseSettings, RateLimits, Secret, SecretSettings, Settings
from services.base.secretbox import SecretBox
from services.db import accounts as db_accounts
from services.db import bots as db_bots

KEY = "b" * 48
CLOCK_STEP_MS = 500
"""The smoke run: the page's clock (Playwright's, installed before it loads) moved on this much
between two looks, so that play.js's pacing (``STEP_MS``) is not waited for in real time; every
event is still shown, in order (the figures then mean nothing, as a smoke run's never do)."""
RECORD = """
(() => {
  window.__keys = [];
  window.__lines = [];
  document.addEventListener('keydown', () => window.__keys.push(performance.now()), true);
  const seen = new Set();
  const look = () => {
    for (const li of document.querySelectorAll('#timeline li[data-step]')) {
      const key = (document.querySelector('#board') || {dataset: {}}).dataset.game + ':' + li.dataset.step;
      if (seen.has(key)) continue;
      seen.add(key);
      window.__lines.push({at: performance.now(), seat: li.dataset.seat === undefined ? null : +li.dataset.seat});
    }
  };
  document.addEventListener('DOMContentLoaded', () =>
    new MutationObserver(look).observe(document.body, {subtree: true, childList: true}));
})();
"""


def _settings(url: str) -> Settings:
    return Settings(
        database=DatabaseSettings(url=url),
        secrets=SecretSettings(key=Secret(KEY)),
        rate_limits=RateLimits(enabled=False),
    )


async def _house(pool: Any) -> None:
    box = SecretBox(Secret(KEY))
    owner = await db_accounts.create_account(
        pool, f"house-{secrets.token_hex(3)}", secrets.token_bytes(32)
    )
    async with pool.acquire() as conn:
        await db_bots.create_bot(
            conn,
            owner_id=owner.id,
            name="house-heuristic",
            url="builtin:heuristic",
            encrypt_secret=lambda bot_id: box.encrypt("whsec_bench", bot_id),
            key_id=box.key_id,
        )


def _stats(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 1),
        "max_ms": round(ordered[-1], 1),
    }


def _weigh(page: Any, url: str, ready: str) -> dict[str, int]:
    bodies: dict[str, bytes] = {}

    def keep(response: Any) -> None:
        kind = response.request.resource_type
        if kind in {"document", "script", "stylesheet", "image"} and "/v1/" not in response.url:
            bodies[response.url] = response.body()

    page.on("response", keep)
    page.goto(url, wait_until="load")
    _wait(page, ready)
    page.remove_listener("response", keep)
    return {
        "bytes": sum(len(b) for b in bodies.values()),
        "gzip_bytes": sum(len(gzip.compress(b, 6)) for b in bodies.values()),
        "html_bytes": sum(len(b) for u, b in bodies.items() if "/static/" not in u),
    }


def _wait(page: Any, expression: str, timeout_s: float = 600) -> None:
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise TimeoutError(expression)
        if smoke():
            page.clock.run_for(CLOCK_STEP_MS)
            page.wait_for_timeout(10)  # the network (the stream's next message) in real time
        else:
            page.wait_for_timeout(20)


def _play(base: str) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        try:
            context = browser.new_context(viewport={"width": 390, "height": 844}, base_url=base)
            context.add_init_script(RECORD)
            page = context.new_page()
            if smoke():
                page.clock.install()
            page.goto("/play?lang=es")
            page.locator("#play-start").click()
            page.wait_for_url("**/play/*")
            play_id = page.url.rsplit("/", 1)[1]
            _wait(page, "(document.querySelector('#board').dataset.turn || '') !== ''")
            table = _weigh(
                page, page.url, "(document.querySelector('#board').dataset.turn || '') !== ''"
            )
            decisions = 0
            last = ""
            while True:
                _wait(
                    page,
                    f"!document.querySelector('#continue-box').hidden || "
                    f"document.querySelector('#end').textContent.trim() !== '' || "
                    f"((document.querySelector('#board').dataset.turn || '') !== '' && "
                    f"document.querySelector('#board').dataset.turn !== '{last}')",
                )
                if page.locator("#end").inner_text().strip():
                    break
                if page.locator("#continue-box").is_visible():
                    page.keyboard.press("Enter")
                    continue
                last = page.locator("#board").get_attribute("data-turn") or ""
                if page.locator("#hand button:not([disabled])").count():
                    first = page.locator("#hand button:not([disabled])").first
                    page.keyboard.press(first.get_attribute("aria-keyshortcuts") or "1")
                else:
                    page.locator("#calls button").first.focus()
                    page.keyboard.press("Enter")
                decisions += 1
            you = int(
                page.evaluate("document.querySelector('#hand').closest('.seat').dataset.seat")
            )
            keys = [k for k in page.evaluate("window.__keys") if k]
            lines = page.evaluate("window.__lines")
            acts = page.evaluate(
                "performance.getEntriesByType('resource')"
                ".filter(e => e.name.includes('/act')).map(e => e.duration)"
            )
            own, bot = [], []
            for i, key in enumerate(keys):
                until = keys[i + 1] if i + 1 < len(keys) else float("inf")
                after = [line for line in lines if key <= line["at"] < until]
                mine = next((line for line in after if line["seat"] == you), None)
                if mine is None:
                    continue  # a key that was no move (Enter after a hand)
                own.append(mine["at"] - key)
                theirs = next(
                    (x for x in after if x["seat"] is not None and x["seat"] != you), None
                )
                if theirs is not None:
                    bot.append(theirs["at"] - key)
            replay = _weigh(
                page,
                f"/play/{play_id}/replay",
                "document.querySelector('#viewer') && document.querySelector('#viewer').dataset.ready === '1'",
            )
            return {
                "decisions": decisions,
                "own_ms": _stats(own),
                "bot_ms": _stats(bot),
                "act_ms": _stats(acts),
                "table_page": table,
                "replay_page": replay,
            }
        finally:
            browser.close()


async def _run() -> dict[str, Any]:
    from services.db.pool import create_pool

    async with scratch_database("play_table") as url:
        pool = await create_pool(url, min_size=1, max_size=1)
        try:
            await _house(pool)
        finally:
            await pool.close()
        with in_thread(api_app(_settings(url))) as base:
            return await asyncio.to_thread(_play, base)


def measure() -> dict[str, Any]:
    return asyncio.run(_run())


def main() -> None:
    try:
        import playwright  # noqa: F401
    except ImportError:
        print("  skipped: Playwright is not installed")
        return
    if not os.access(CHROMIUM, os.X_OK):
        print(f"  skipped: no Chromium at {CHROMIUM}")
        return
    try:
        s = measure()
    except NoServer as exc:
        print(f"  skipped: {exc}")
        return
    t, r = s["table_page"], s["replay_page"]
    print(f"play_table: a 1v1 to 15 by keyboard, {s['decisions']} decisions")
    for name, label in (
        ("own_ms", "key -> own move shown"),
        ("bot_ms", "key -> bot's answer shown"),
        ("act_ms", "POST /act round trip"),
    ):
        f = s[name]
        print(
            f"  {label}: p50 {f.get('p50_ms')} ms, p95 {f.get('p95_ms')} ms, max {f.get('max_ms')} ms ({f['n']})"
        )
    for name, w in (("table page /play/{id}", t), ("replay page /play/{id}/replay", r)):
        print(
            f"  {name}: {w['bytes'] / 1024:.1f} KiB as sent ({w['html_bytes'] / 1024:.1f} KiB HTML), "
            f"{w['gzip_bytes'] / 1024:.1f} KiB gzipped"
        )
    print(msgspec.json.encode({"play_table": s}).decode(), flush=True)
