"""examples/train: a short training run saves a policy that a real HTTP bot serves and that passes
`truco check` (the full run's figures are in examples/train/README.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.client.signing import generate_secret
from arena.conformance.check import check_bot
from arena.sdk import BotServer

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "train"


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, object]]:
    out = tmp_path_factory.mktemp("train") / "policy.npz"
    done = subprocess.run(
        [
            sys.executable,
            str(EXAMPLE / "train.py"),
            "--minutes",
            "0.1",
            "--out",
            str(out),
            "--eval-random",
            "20",
            "--eval-heuristic",
            "6",
        ],
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    return out, json.loads(done.stdout.strip().splitlines()[-1])


def test_training_saves_a_policy_and_reports_its_scores(
    trained: tuple[Path, dict[str, object]],
) -> None:
    path, report = trained
    assert path.is_file()
    assert int(report["games"]) > 0  # type: ignore[call-overload]
    assert 0.0 <= float(report["vs_random"]) <= 1.0  # type: ignore[arg-type]
    assert report["eval_games"] == {"random": 20, "heuristic": 6}


def test_the_trained_policy_served_with_the_sdk_passes_truco_check(
    trained: tuple[Path, dict[str, object]],
) -> None:
    sys.path.insert(0, str(EXAMPLE))
    try:
        from bot import decider  # type: ignore[import-not-found]
        from policy import LinearPolicy  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(EXAMPLE))
    secret = generate_secret()
    with BotServer(decider(LinearPolicy.load(trained[0])), name="trained", secret=secret) as bot:
        report = check_bot(bot.url, secret, 2000)
    assert report.ok, "\n".join(report.lines())
