"""Shared test helpers: where the repository is, the optional scenarios kept beside it, and the
fixtures every test folder may ask for.

The fixtures live in plain modules, registered here once as pytest plugins, so a test names a
fixture as a parameter and imports nothing: real PostgreSQL and Redis (``tests/servers.py``),
the API over its own database with a loopback-only network guard
(``tests/services/helpers/api_helpers.py``), tournaments played in process
(``tests/services/helpers/flow_helpers.py``, ``tests/services/helpers/api_play_helpers.py``), and worker
processes with SDK bots on 127.0.0.1 (``tests/services/worker/fixtures.py``). Helpers that are not
fixtures (``Api``, ``make_bot``, ...) are imported from those modules as usual.

The suite is self-contained. The one exception is optional: a folder ``shared/`` next to the
checkout (or ``$TRUCO_SHARED_DIR``) may hold extra golden scenario files in ``scenarios/``;
when it is there they run too, and when it is not those tests are skipped with
:data:`SHARED_MISSING` as the reason.
"""

from __future__ import annotations

import os
from pathlib import Path

pytest_plugins = (
    "tests.servers",
    "tests.slow_first",
    "tests.xdist_workers",
    "tests.fixed_ports",
    "tests.cpu_report",
    "tests.services.helpers.api_helpers",
    "tests.services.helpers.flow_helpers",
    "tests.services.helpers.api_play_helpers",
    "tests.services.worker.fixtures",
)

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
