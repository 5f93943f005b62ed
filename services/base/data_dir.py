"""Where the platform keeps local data (the embedded servers' folders, make run's logs)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


def default_data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``TRUCO_DATA_DIR`` if set, else ``.data`` in the checkout (or the working folder)."""
    env = os.environ if environ is None else environ
    configured = env.get("TRUCO_DATA_DIR", "").strip()
    if configured:
        return Path(configured).expanduser().resolve()
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file():
        return checkout / ".data"
    return Path.cwd() / ".data"
