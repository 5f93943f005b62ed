"""`truco check`: passes a good bot, fails broken ones with a clear line; the example bot runs."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.client import signing
from arena.conformance.check import Report, check_bot, probes
from arena.sdk import BotServer, strategy_decider
from arena.wire.protocol import ActRequest
from engine import Action
from engine.actions import WORDS
from truco_cli import check as check_cli

ROOT = Path(__file__).resolve().parents[3]
SECRET = signing.generate_secret()


def fails(report: Report) -> list[str]:
    return [check.line() for check in report.checks if check.status == "fail"]


def run_cli(
    url: str, capsys: pytest.CaptureFixture[str], secret: str | None = None
) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    check_cli.add_arguments(parser)
    # a deadline no loaded machine reaches: these bots are judged on their answers (the slow
    # bot's timeout is test_a_slow_bot_fails_on_timeout's, with a bot that sleeps past it)
    argv = [url, "--timeout-ms", "30000"] + (["--secret", secret] if secret else ["--secret", ""])
    code = check_cli.run(parser.parse_args(argv))
    return code, capsys.readouterr().out


def test_probes_cover_every_kind_of_decision() -> None:
    all_probes = probes()
    assert len({p.name for p in all_probes}) == len(all_probes)
    offered = {option.action for p in all_probes for option in p.legal}
    assert offered == set(WORDS)  # every word of R-10 is asked for at least once
    assert {p.state.round for p in all_probes} == {0, 1, 2}
    assert any(p.state.players == 4 for p in all_probes)
    assert any([str(a) for a in p.legal] == ["flor"] for p in all_probes)


@pytest.fixture
def heuristic_bot() -> Iterator[BotServer]:
    with BotServer(strategy_decider("heuristic", seed=1), name="h", secret=SECRET) as server:
        yield server


def test_check_passes_the_heuristic_bot(
    heuristic_bot: BotServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run_cli(heuristic_bot.url, capsys, secret=SECRET)
    assert code == 0, out
    lines = out.strip().splitlines()
    assert lines[-1].startswith("PASS: ") and "0 failed" in lines[-1]
    assert sum(line.startswith("PASS  act: ") for line in lines) == len(probes())
    assert "PASS  signature: a request signed with a wrong key: rejected" in out


def test_check_without_the_secret_says_so(heuristic_bot: BotServer) -> None:
    report = check_bot(heuristic_bot.url, None, 500)
    assert not report.ok
    assert any("pass its secret with --secret" in line for line in fails(report))


def test_a_bot_answering_illegal_actions_fails(capsys: pytest.CaptureFixture[str]) -> None:
    def stubborn(req: ActRequest) -> Action:
        return Action("quiero")

    with BotServer(stubborn, name="stubborn") as server:
        code, out = run_cli(server.url, capsys)
    assert code == 1
    assert (
        "FAIL  act: lead round 1 (mano): illegal_action: 'quiero' is not legal now; "
        "legal: play 1E, play 4C, play 5O, truco, envido, real_envido, falta_envido, mazo\n" in out
    )
    assert "PASS  act: answer a truco: quiero" in out
    assert "FAIL  random games: decision 1 of " in out  # the random games stop at once
    assert out.strip().splitlines()[-1].startswith("FAIL: ")


def test_a_slow_bot_fails_on_timeout() -> None:
    def slow_on_flor(req: ActRequest) -> Action:
        if [a.action for a in req.legal_actions] == ["flor"]:
            time.sleep(0.4)
        return req.legal_actions[0]

    with BotServer(slow_on_flor, name="slow") as server:
        report = check_bot(server.url, None, 150)
    failed = fails(report)
    assert failed and all("timeout" in line for line in failed)
    assert any("sing a forced flor" in line for line in failed)


def test_a_bot_ignoring_signatures_fails_when_a_secret_is_given() -> None:
    with BotServer(strategy_decider("random", seed=2), name="lax") as server:
        strict = check_bot(server.url, SECRET, 500)
        lax = check_bot(server.url, None, 500)
    assert fails(strict) == [
        "FAIL  signature: a request signed with a wrong key: accepted (HTTP 200): "
        "the bot must answer 401"
    ]
    assert lax.ok and lax.count("warn") == 1


def test_an_unreachable_bot_fails() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    report = check_bot(f"http://127.0.0.1:{port}", None, 300)
    assert not report.ok
    assert report.checks[-1].detail.startswith("the bot cannot be reached")


def test_the_example_bot_runs_and_passes(capsys: pytest.CaptureFixture[str]) -> None:
    example = ROOT / "examples" / "example_bot.py"
    assert len(example.read_text().splitlines()) < 30
    env = {**os.environ, "PORT": "0", "TRUCO_BOT_SECRET": SECRET, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, str(example)], env=env, stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "listening on http://127.0.0.1:" in line, line
        url = line.split("listening on ")[1].split()[0]
        code, out = run_cli(url, capsys, secret=SECRET)
        assert code == 0, out
    finally:
        proc.terminate()
        proc.wait(timeout=60)  # a hang guard


def test_the_docs_show_the_example_bot_verbatim() -> None:
    example = (ROOT / "examples" / "example_bot.py").read_text()
    assert example in (ROOT / "docs" / "bots.md").read_text()


def test_fewer_than_200_random_decisions_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser()
    check_cli.add_arguments(parser)
    assert check_cli.run(parser.parse_args(["http://127.0.0.1:9", "--decisions", "199"])) == 2
    assert "--decisions must be at least 200" in capsys.readouterr().err
