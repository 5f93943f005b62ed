"""The npm tools some tests run on the committed OpenAPI document (Redocly, Spectral,
openapi-typescript, openapi-fetch, TypeScript), installed before the tests by ``make node-tools``
(``make test`` runs it) from ``tools/node-tools/package.json`` into ``.venv/node-tools``: no
test reaches the npm registry. Without them the caller skips, saying why."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
TOOLS = ROOT / ".venv" / "node-tools"


def node_tools(*packages: str) -> Path:
    """``.venv/node-tools`` holding ``packages`` (their binaries in ``node_modules/.bin``);
    skips the test when node or one of them is missing."""
    if shutil.which("node") is None:
        pytest.skip("no Node.js on this machine: the npm tools are not run")
    missing = [p for p in packages if not (TOOLS / "node_modules" / p / "package.json").is_file()]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed: run `make node-tools` (needs npm)")
    return TOOLS


def binary(name: str) -> Path:
    return TOOLS / "node_modules" / ".bin" / name
