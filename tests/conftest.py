"""Shared test helpers: where the repository is, and the optional scenarios kept beside it.

The suite is self-contained. The one exception is optional: a folder ``shared/`` next to the
checkout (or ``$TRUCO_SHARED_DIR``) may hold extra golden scenario files in ``scenarios/``;
when it is there they run too, and when it is not those tests are skipped with
:data:`SHARED_MISSING` as the reason.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TRUCO_SHARED_DIR") or ROOT.parent / "shared")
SHARED_SCENARIOS = SHARED / "scenarios"
OWN_SCENARIOS = ROOT / "tests" / "scenarios"
SHARED_MISSING = (
    f"no extra scenario folder at {SHARED_SCENARIOS} (optional: set TRUCO_SHARED_DIR to a "
    "folder holding scenarios/*.json to run them too); the repository's own scenarios in "
    "tests/scenarios/ still run"
)


def shared_scenario_files() -> list[Path]:
    """The scenario files beside the checkout; empty when that folder does not exist."""
    return sorted(SHARED_SCENARIOS.glob("*.json")) if SHARED_SCENARIOS.is_dir() else []
