"""The JavaScript starter (examples/javascript/bot.js) passes `truco check`, checks signatures
as docs/protocol.md says (any of several, fresh, over the raw body), and plays a clean match.
Skipped, saying so, when `node` is not installed."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from arena.client import signing
from arena.match.entrants import connect
from arena.match.replay import Decision
from arena.match.runner import MatchSettings, run_match
from engine import Rules
from tests.conftest import ROOT

NODE = shutil.which("node")
BOT = ROOT / "examples" / "javascript" / "bot.js"
SECRET = signing.generate_secret()

pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not installed: the JavaScript starter cannot run here"
)


@dataclass
class NodeBot:
    url: str
    stderr: Path

    def log(self) -> str:
        return self.stderr.read_text()


@pytest.fixture
def js_bot(tmp_path: Path) -> Iterator[NodeBot]:
    assert NODE is not None
    stderr = tmp_path / "stderr.log"
    env = {**os.environ, "PORT": "0", "TRUCO_BOT_SECRET": SECRET, "BOT_NAME": "js-test"}
    with stderr.open("w") as err:
        proc = subprocess.Popen(
            [NODE, str(BOT)], env=env, stdout=subprocess.PIPE, stderr=err, text=True
        )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on http://127.0.0.1:" in line and "(checking signatures)" in line, line
        yield NodeBot(line.split("listening on ")[1].split()[0], stderr)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_the_javascript_starter_passes_truco_check(js_bot: NodeBot) -> None:
    """The command its README gives, as a user runs it: the secret from the environment
    (``TRUCO_BOT_SECRET``), never on the command line."""
    command = [sys.executable, "-m", "truco_cli.main", "check", js_bot.url]
    done = subprocess.run(
        [*command, "--timeout-ms", "30000"],  # judged on its answers, not a loaded machine
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TRUCO_BOT_SECRET": SECRET},
    )
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stdout + done.stderr
    assert lines[-1].startswith("PASS: ") and " 0 failed, 0 warnings" in lines[-1]
    assert any(
        line.startswith("PASS  signature: ") and "rejected (HTTP 401" in line for line in lines
    )
    assert any(line.startswith("PASS  random games: ") for line in lines)
    assert any(line.startswith("PASS  random games: coverage: all ") for line in lines)


def _post(url: str, body: bytes, headers: dict[str, str]) -> httpx.Response:
    return httpx.post(
        url + "/end", content=body, headers={"content-type": "application/json", **headers}
    )


def test_the_javascript_starter_checks_signatures_as_documented(js_bot: NodeBot) -> None:
    body = json.dumps({"apiversion": "1", "match_id": "m", "game_id": "g", "seat": 0}).encode()
    now = int(time.time())
    right = signing.sign(SECRET, "msg_1", now, body)
    wrong = signing.sign(signing.generate_secret(), "msg_1", now, body)["webhook-signature"]
    # key rotation: two signatures, the right one anywhere among them, is genuine
    for both in (f"{wrong} {right['webhook-signature']}", f"{right['webhook-signature']} {wrong}"):
        answer = _post(js_bot.url, body, {**right, "webhook-signature": both})
        assert answer.status_code == 200, answer.text
    refused = {
        "wrong key": {**right, "webhook-signature": wrong},
        "altered body": right,
        "stale": signing.sign(SECRET, "msg_2", now - 330, body),
        "from the future": signing.sign(SECRET, "msg_3", now + 330, body),
        "unsigned": {},
        "v2 only": {**right, "webhook-signature": right["webhook-signature"].replace("v1,", "v2,")},
    }
    for case, headers in refused.items():
        sent = body + b" " if case == "altered body" else body
        answer = _post(js_bot.url, sent, headers)
        assert answer.status_code == 401, case
    info = httpx.get(js_bot.url + "/")  # GET / is answered unchecked, as the SDK does
    assert info.status_code == 200 and info.json()["apiversion"] == "1"
    log = js_bot.log()
    assert "refused POST /end: 401 stale timestamp" in log
    assert "no signature matches" in log and "unsigned" in log
    assert SECRET not in log and SECRET.removeprefix("whsec_") not in log


def test_the_javascript_starter_plays_a_match_without_a_fault(js_bot: NodeBot) -> None:
    entrants = [
        connect(js_bot.url, seed=1, secret=SECRET, timeout_ms=2000, allow_loopback=True),
        connect("builtin:heuristic", seed=2, secret=SECRET, timeout_ms=2000, allow_loopback=True),
    ]
    settings = MatchSettings(rules=Rules(players=4, points_to_win=15), games_per_match=2)
    replay = asyncio.run(run_match("js-1", 3, settings, entrants))
    faults = [e for g in replay.games for e in g.events if isinstance(e, Decision) and e.fault]
    assert faults == [] and replay.result.reason != "walkover"
    assert len(replay.games) == 2
