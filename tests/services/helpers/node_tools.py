"""The npm tools some tests run on the committed OpenAPI document (Redocly, Spectral,
openapi-typescript, openapi-fetch), installed once with npm into ``.venv/node-tools`` (ignored by
git) and reused. Without npm the caller skips, saying so; an install that fails is a failure."""

from __future__ import annotations

import fcntl
import json
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TOOLS = ROOT / ".venv" / "node-tools"

PACKAGES = {
    "@redocly/cli": "2",
    "@stoplight/spectral-cli": "6",
    "openapi-typescript": "7",
    "openapi-fetch": "0.17",
    "typescript": "5",
    "tsx": "4",
}
"""Each package and its major version (npm's ``@^N`` range)."""


def node_tools(*packages: str) -> Path:
    """``.venv/node-tools`` with ``packages`` installed (their binaries in ``node_modules/.bin``);
    skips the test when npm or node is missing."""
    npm, node = shutil.which("npm"), shutil.which("node")
    if npm is None or node is None:
        pytest.skip("no Node.js/npm on this machine: the npm tools are not run")
    TOOLS.mkdir(parents=True, exist_ok=True)
    with (TOOLS / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two test processes install one at a time
        missing = [p for p in packages if not _installed(p)]
        if missing:
            install = subprocess.run(
                [npm, "install", "--prefix", str(TOOLS), "--no-audit", "--no-fund", "--silent",
                 *(f"{p}@^{PACKAGES[p]}" for p in missing)],
                capture_output=True, text=True, timeout=900,
            )  # fmt: skip
            assert install.returncode == 0, f"npm could not install {missing}: {install.stderr}"
    return TOOLS


def _installed(package: str) -> bool:
    manifest = TOOLS / "node_modules" / package / "package.json"
    try:
        version = json.loads(manifest.read_text())["version"]
    except (OSError, ValueError, KeyError):
        return False
    return str(version).split(".")[0] == PACKAGES[package].split(".")[0] and (
        PACKAGES[package].count(".") == 0 or str(version).startswith(PACKAGES[package])
    )


def binary(name: str) -> Path:
    return TOOLS / "node_modules" / ".bin" / name
