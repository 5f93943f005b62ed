"""Which Chromium the page benches and the browser tests drive: one choice for both.

Debian's ``chromium-headless-shell`` (the old headless shell, the build Playwright itself runs
for headless Chromium) where it is installed, else Debian's full ``chromium`` in its headless
mode; ``TRUCO_CHROMIUM`` names another. ``make browser`` installs the shell. It runs the same
Blink and V8 with less around them: twenty fresh contexts loading a page took 2.4 s of CPU in
the shell and 8 s in the full browser; the page tests (``tests/services/web``, four xdist
workers on 2 cores) took 244 s of CPU and 130 s of wall time with the shell, 400 s and 229 s
with the full browser; a whole idle test run, 8 min 2 s against 9 min 15 s (docs/storage.md).
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
