"""docs/quickstart.md, run as written against a real platform, so the guide cannot rot.

Every ```sh block runs in the terminal its marker names (tests/cli/shells.py), in document
order. What differs from a reader's machine is only what the guide itself lets vary: ``PORT``
and ``BOT_PORT`` (free ports), ``XDG_CONFIG_HOME`` (a folder of the test's own), the platform's
``DATABASE_URL``/``REDIS_URL`` (an empty database of the test run and its Redis key prefix),
and `make run`, which becomes the command its Makefile recipe runs after installing
(``python -m services.launch.local``): the test checks the recipe is still that. The working folder
is a new one holding links to this checkout's `.venv` and `examples`, so `my-bot.secret` is
not written into the checkout.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.cli.conftest import ROOT_ENV
from tests.cli.shells import Block, sh_blocks, start_background, stop_group, terminals
from tests.conftest import ROOT
from tests.servers import RedisTarget
from tests.services.launch.test_local import launcher_env
from tests.services.worker.processes import free_port

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fixed_ports")]

GUIDE = ROOT / "docs" / "quickstart.md"
MAKE_RUN = "make run"
RUN_RECIPE = "$(BIN)/python -m services.launch.local"


def _run_recipe() -> list[str]:
    recipe = re.search(r"^run:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.MULTILINE)
    assert recipe is not None, "the Makefile has no run target"
    return [line.strip() for line in recipe[1].splitlines()]


def test_the_guide_has_a_command_for_every_step() -> None:
    blocks = sh_blocks(GUIDE.read_text())
    text = "\n".join(block.code for block in blocks)
    for step in (
        MAKE_RUN,
        "truco account create",
        "truco bot secret",
        "TRUCO_BOT_SECRET=",
        "examples/example_bot.py",
        "truco check",
        "truco bot register",
        "truco tournament create",
        "truco tournament enter $T my-bot house-heuristic house-random",
        "truco tournament start",
        "truco tournament watch",
        "truco tournament show",
    ):
        assert step in text, step
    assert [b.code.strip() for b in blocks if b.terminal == 1] == [MAKE_RUN]
    assert _run_recipe() == [RUN_RECIPE]
    assert "docs/quickstart.md" in (ROOT / "README.md").read_text()[:1500]  # linked at the top


@pytest.mark.skipif(
    not (ROOT / ".venv" / "bin" / "activate").exists(), reason="the guide uses make's .venv"
)
def test_quickstart_runs_as_written(
    empty_database: str, redis_target: RedisTarget, tmp_path: Path
) -> None:
    work = tmp_path / "checkout"
    work.mkdir()
    for name in (".venv", "examples"):
        (work / name).symlink_to(ROOT / name)
    port, bot_port = free_port(), free_port()
    launcher = launcher_env(empty_database, redis_target, tmp_path / "data", port)
    platform = {k: launcher[k] for k in ("DATABASE_URL", "REDIS_URL", "TRUCO_REDIS_PREFIX")}
    env = {
        **{k: v for k, v in ROOT_ENV.items() if not k.startswith(("TRUCO_", "VIRTUAL_ENV"))},
        **platform,
        "PATH": "/usr/local/bin:/usr/bin:/bin",  # what a new terminal has: the guide activates
        "PORT": str(port),
        "BOT_PORT": str(bot_port),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "TRUCO_DATA_DIR": launcher["TRUCO_DATA_DIR"],
        "PYTHONUNBUFFERED": "1",
    }
    outputs: list[tuple[Block, str]] = []
    background = []
    try:
        with terminals(env, work) as shells:
            for number, block in enumerate(sh_blocks(GUIDE.read_text())):
                code = block.code
                if code.strip() == MAKE_RUN:
                    code = f"{sys.executable} -m services.launch.local\n"
                if block.ready is not None:
                    log = tmp_path / f"terminal-{block.terminal}-{number}.log"
                    process = start_background(code, env, work, log)
                    background.append(process)
                    _wait_for(log, block.ready, process)
                    outputs.append((block, log.read_text()))
                else:
                    outputs.append((block, shells[block.terminal].run(code, timeout=600)))
        _check(outputs, port, tmp_path / "config" / "truco" / "config.toml")
    finally:
        for process in reversed(background):
            stop_group(process)
    assert all(process.returncode is not None for process in background)


def _wait_for(log: Path, text: str, process: subprocess.Popen[bytes], timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while text not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            raise AssertionError(f"no {text!r} in {log}:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)


def _check(outputs: list[tuple[Block, str]], port: int, config_file: Path) -> None:
    everything = "\n".join(out for _, out in outputs)
    api = f"http://127.0.0.1:{port}"
    assert "account 'alice'" in everything and f"created on {api}" in everything
    assert stat.S_IMODE(config_file.stat().st_mode) == 0o600
    assert "(checking signatures)" in everything  # the bot started with the secret
    assert re.search(r"^PASS: \d+ passed, 0 failed", everything, re.MULTILINE)
    assert "bot 'my-bot' registered: id " in everything
    for name in ("my-bot", "house-heuristic", "house-random"):
        assert f"entered {name!r}" in everything
    watched = next(out for block, out in outputs if "tournament watch" in block.code)
    assert ": finished" in watched
    # each round's matches numbered as the guide's sample shows them: "(1/2)", then "(2/2)"
    counted = re.compile(r"^round (\d+) \((\d+/\d+)\)", re.MULTILINE)
    assert counted.findall(watched) == counted.findall(GUIDE.read_text()), watched
    standings = watched[watched.index("rank ") :]
    assert {"my-bot", "house-heuristic", "house-random"} <= set(standings.split())
    shown = next(out for block, out in outputs if "tournament show" in block.code)
    pages = re.findall(rf"^  match (\d+): (.*)  {re.escape(api)}/matches/(\d+)$", shown, re.M)
    mine = [match_id for match_id, line, _ in pages if "my-bot" in line]
    assert len(mine) >= 2, shown
    for match_id in mine:
        match = httpx.get(f"{api}/v1/matches/{match_id}", timeout=10, trust_env=False).json()
        assert match["status"] == "done" and match["reason"] != "walkover", match
        page = httpx.get(f"{api}/matches/{match_id}", timeout=10, trust_env=False)
        assert page.status_code == 200 and "my-bot" in page.text
        replay = httpx.get(f"{api}/v1/matches/{match_id}/replay", timeout=10, trust_env=False)
        assert replay.status_code == 200 and replay.json()["games"]
    assert os.environ.get("TRUCO_API_KEY") is None  # nothing leaked into this process
