"""axe-core (the npm package, bundled by the ``axe-playwright-python`` dev dependency) run inside
a Playwright page: the serious and critical violations it finds, as readable lines."""

from __future__ import annotations

from typing import Any

BLOCKING = ("serious", "critical")
WIDTHS = (1280, 390)  # desktop and phone


def blocking_violations(page: Any) -> list[str]:
    """axe-core's serious and critical violations on ``page`` as it is now, one line per rule
    with its first offending elements (empty when there are none)."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    lines = []
    for rule in results.response["violations"]:
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
