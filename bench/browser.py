"""Which Chromium the page benches and the browser tests drive: one choice for both.

Debian's ``chromium-headless-shell`` (the old headless shell, the build Playwright itself runs
for headless Chromium) where it is installed, else Debian's full ``chromium`` in its headless
mode; ``TRUCO_CHROMIUM`` names another. ``make browser`` installs both. The shell renders the
same pages with the same Blink and V8 for a third of the processor: the page tests
(``tests/services/web``, 206 tests, four xdist workers on 2 cores) took 244 s of CPU and 130 s
with it, 400 s and 229 s with the full browser, which was a quarter of a whole test run's CPU.
"""

from __future__ import annotations

import os

HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
FULL_BROWSER = "/usr/bin/chromium"


def chromium_path() -> str:
    """``TRUCO_CHROMIUM`` if set, else the headless shell if installed, else the full browser."""
    given = os.environ.get("TRUCO_CHROMIUM", "").strip()
    if given:
        return given
    return HEADLESS_SHELL if os.access(HEADLESS_SHELL, os.X_OK) else FULL_BROWSER


CHROMIUM = chromium_path()
