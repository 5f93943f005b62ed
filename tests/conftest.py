"""Shared test helpers: where shared/ lives."""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("TRUCO_SHARED_DIR", ROOT.parent / "shared"))
