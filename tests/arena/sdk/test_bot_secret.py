"""Where a bot reads its secret: --secret, --secret-file (0600 only), $TRUCO_BOT_SECRET."""

from __future__ import annotations

import argparse
from pathlib import Path

import httpx
import pytest

from arena.client import signing
from arena.sdk.secret import ENV_VAR, SecretSourceError, load_secret, read_secret_file
from truco_cli import bot as bot_cli

SECRET = signing.new_secret()
OTHER = signing.new_secret()


def secret_file(tmp_path: Path, text: str = SECRET + "\n", mode: int = 0o600) -> Path:
    path = tmp_path / "bot.secret"
    path.write_text(text)
    path.chmod(mode)
    return path


def test_the_flag_wins_then_the_file_then_the_environment(tmp_path: Path) -> None:
    path = secret_file(tmp_path)
    env = {ENV_VAR: OTHER}
    assert load_secret(OTHER, None, env) == OTHER
    assert load_secret(None, path, env) == SECRET  # stripped of its newline
    assert load_secret(None, None, env) == OTHER
    assert load_secret(None, None, {}) is None
    assert load_secret("", None, {ENV_VAR: "  "}) is None


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o660])
def test_a_secret_file_others_can_read_is_refused(tmp_path: Path, mode: int) -> None:
    path = secret_file(tmp_path, mode=mode)
    with pytest.raises(SecretSourceError, match=f"mode {mode:04o}.*chmod 600"):
        read_secret_file(path)
    assert read_secret_file(secret_file(tmp_path, mode=0o400)) == SECRET


def test_missing_empty_and_malformed_sources_say_which(tmp_path: Path) -> None:
    with pytest.raises(SecretSourceError, match="cannot read secret file"):
        read_secret_file(tmp_path / "nope")
    with pytest.raises(SecretSourceError, match="is empty"):
        read_secret_file(secret_file(tmp_path, text="\n"))
    with pytest.raises(SecretSourceError, match=r"^\$TRUCO_BOT_SECRET: .*base64"):
        load_secret(None, None, {ENV_VAR: "whsec_???"})
    with pytest.raises(SecretSourceError, match="not both"):
        load_secret(SECRET, secret_file(tmp_path), {})


def test_truco_bot_serve_reads_a_secret_file(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    bot_cli.add_arguments(parser)
    path = secret_file(tmp_path)
    args = parser.parse_args(["serve", "--port", "0", "--secret-file", str(path)])
    with bot_cli.make_server(args) as server:
        assert server.secret == SECRET
        unsigned = httpx.post(server.url + "/end", content=b"{}", trust_env=False)
        assert unsigned.status_code == 401


def test_truco_bot_serve_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_VAR, SECRET)
    parser = argparse.ArgumentParser()
    bot_cli.add_arguments(parser)
    with bot_cli.make_server(parser.parse_args(["serve", "--port", "0"])) as server:
        assert server.secret == SECRET


def test_truco_bot_serve_refuses_a_readable_secret_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    bot_cli.add_arguments(parser)
    path = secret_file(tmp_path, mode=0o644)
    assert bot_cli.run(parser.parse_args(["serve", "--port", "0", "--secret-file", str(path)])) == 2
    assert "chmod 600" in capsys.readouterr().err
