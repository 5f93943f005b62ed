"""openapi-typescript's types of the committed ``api-spec/openapi.json`` and openapi-fetch
drive the platform on 127.0.0.1 from Node.js: ``tests/cli/typescript/drive.ts`` (the quickstart,
the ladder, /play to the end of a match) must compile under ``tsc --strict`` against the
generated types, then run with 0 failures. Skipped, saying why, without the npm tools
(``make node-tools`` installs them into .venv/node-tools)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from arena.sdk import BotServer
from tests.services.api.test_spec_lint import SPEC
from tests.services.helpers.node_tools import binary, node_tools

HERE = Path(__file__).resolve().parent / "typescript"


def test_openapi_fetch_typed_by_openapi_typescript_drives_the_platform(
    tmp_path: Path, platform_url: str, bots: list[BotServer]
) -> None:
    tools = node_tools("openapi-typescript", "openapi-fetch", "typescript", "tsx")
    (tmp_path / "node_modules").symlink_to(tools / "node_modules")
    shutil.copy(HERE / "drive.ts", tmp_path / "drive.ts")
    made = subprocess.run(
        # --default-non-nullable false: by default openapi-typescript 7 makes every property
        # with a default required, in request bodies too, so a client would have to send
        # every default (`open`, `challenges`, ...) that the API fills in itself
        [str(binary("openapi-typescript")), str(SPEC), "--output", str(tmp_path / "api.d.ts"),
         "--default-non-nullable", "false"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert made.returncode == 0, made.stdout + made.stderr
    checked = subprocess.run(
        [str(binary("tsc")), "--noEmit", "--strict", "--target", "es2022", "--module", "esnext",
         "--moduleResolution", "bundler", "--types", "node", "--skipLibCheck", "drive.ts"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    env = {
        **os.environ,
        "TRUCO_URL": platform_url,
        "TRUCO_BOTS": json.dumps([server.url for server in bots]),
    }
    ran = subprocess.run(
        [str(binary("tsx")), "drive.ts"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    report = json.loads(ran.stdout.strip().splitlines()[-1])
    assert report["failures"] == [], report
    assert report["calls"] > 20, report
    print(f"\nopenapi-typescript + openapi-fetch: {report['calls']} calls, 0 failures")
