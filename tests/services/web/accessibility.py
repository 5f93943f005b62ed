"""axe-core (the npm package, bundled by the ``axe-playwright-python`` dev dependency) run inside
a Playwright page: the serious and critical violations it finds, as readable lines.

axe is put into a page once per load (half a megabyte of script: evaluating it for each width
cost 3 s over the 23 page types) and runs with ``resultTypes: ["violations"]``, as
``axe-playwright-python``'s own ``Axe.run`` does; every rule runs, as there."""

from __future__ import annotations

import functools
import json
from typing import Any

BLOCKING = ("serious", "critical")
WIDTHS = (1280, 390)  # desktop and phone
OPTIONS = {"resultTypes": ["violations"]}
FETCHING = (
    "main[data-poll], main[data-stream], script[src$='/play.js'], script[src$='/reference.js']"
)
"""What marks a page that fetches after its load (a live page's stream or polling, the play
board's state, the API reference's document); every other page is whole at its load event."""


@functools.cache
def _axe_script() -> str:
    from axe_playwright_python.sync_playwright import Axe

    return str(Axe().axe_script)


def settle(page: Any) -> None:
    """Wait until ``page`` has what it fetches after loading: the network's idle for a page
    that fetches (:data:`FETCHING`), nothing more for the others (Playwright's ``goto`` has
    waited for the load event; the idle wait cost half a second a page)."""
    if page.locator(FETCHING).count():
        page.wait_for_load_state("networkidle")


def blocking_violations(page: Any) -> list[str]:
    """axe-core's serious and critical violations on ``page`` as it is now, one line per rule
    with its first offending elements (empty when there are none)."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.evaluate(_axe_script())
    results = page.evaluate(f"axe.run({json.dumps(OPTIONS)})")
    lines = []
    for rule in results["violations"]:
        if rule["impact"] not in BLOCKING:
            continue
        targets = [" ".join(map(str, node["target"])) for node in rule["nodes"][:3]]
        summary = rule["nodes"][0].get("failureSummary", "").replace("\n", " ")[:240]
        lines.append(f"{rule['impact']} {rule['id']} ×{len(rule['nodes'])} {targets}: {summary}")
    return lines


def violations_by_width(page: Any) -> dict[int, list[str]]:
    """:func:`blocking_violations` of ``page`` at each of :data:`WIDTHS` (width -> lines, only
    the widths that have any); the page is left at the first width."""
    found: dict[int, list[str]] = {}
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        if lines := blocking_violations(page):
            found[width] = lines
    page.set_viewport_size({"width": WIDTHS[0], "height": 900})
    return found
