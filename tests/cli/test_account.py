"""`truco account create`, `truco login` and `truco account show` against the real API; the
config file and its overrides; how errors read."""

from __future__ import annotations

import io
import json
import stat
import subprocess
import sys
import tomllib

import pytest

from tests.cli.conftest import ROOT_ENV, Truco, module_platform, unique
from tests.services.worker.processes import free_port

# one served API for the module's tests (each makes its own account and config folder)
shared_platform, platform_url = module_platform()


def test_account_create_stores_url_and_key_with_mode_0600(platform_url: str, truco: Truco) -> None:
    name = unique("alice")
    created = truco.ok("account", "create", name, "--url", platform_url + "/")
    assert f"account {name!r}" in created.out and str(truco.config_file) in created.out
    assert "ta_" not in created.out  # the key goes to the file, not the screen
    stored = tomllib.loads(truco.config_file.read_text())
    assert stored["url"] == platform_url and stored["key"].startswith("ta_")
    assert stored["account"] == name
    assert stat.S_IMODE(truco.config_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(truco.config_file.parent.stat().st_mode) == 0o700
    shown = truco.ok("account", "show", "--json").json()
    assert shown["name"] == name
    # a second account would lose the stored key: refused before anything is created
    again = truco("account", "create", unique("bob"), "--url", platform_url)
    assert again.code == 2 and "error: A key is already stored" in again.err
    assert tomllib.loads(truco.config_file.read_text())["key"] == stored["key"]
    truco.config_file.chmod(0o644)  # someone loosened it: every command says so
    assert "warning: " in truco.ok("account", "show").err
    forced = truco.ok("account", "create", unique("bob"), "--url", platform_url, "--force")
    assert stat.S_IMODE(truco.config_file.stat().st_mode) == 0o600  # written anew: 0600 again
    assert "created" in forced.out
    assert tomllib.loads(truco.config_file.read_text())["key"] != stored["key"]


def test_login_checks_the_key_and_the_environment_overrides_the_file(
    platform_url: str, truco: Truco, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = unique("carol")
    truco.ok("account", "create", name, "--url", platform_url)
    key = tomllib.loads(truco.config_file.read_text())["key"]
    truco.config_file.unlink()
    wrong = truco("login", "--url", platform_url, "--key", "ta_wrong")
    assert wrong.code == 1
    assert wrong.err.startswith("error: Unauthorized (401): invalid API key")
    assert not truco.config_file.exists()
    monkeypatch.setattr("sys.stdin", io.StringIO(key + "\n"))  # --key -: kept out of argv
    logged = truco.ok("login", "--url", platform_url, "--key", "-")
    assert f"as {name!r}" in logged.out
    assert tomllib.loads(truco.config_file.read_text())["key"] == key
    other = unique("dave")
    truco.ok("account", "create", other, "--url", platform_url, "--force")
    monkeypatch.setenv("TRUCO_API_KEY", key)
    assert truco.ok("account", "show", "--json").json()["name"] == name
    monkeypatch.setenv("TRUCO_API_URL", f"http://127.0.0.1:{free_port()}")
    down = truco("account", "show")
    assert down.code == 1 and down.err.startswith("error: Platform unreachable: GET http://")
    monkeypatch.delenv("TRUCO_API_KEY")
    monkeypatch.delenv("TRUCO_API_URL")
    assert truco.ok("account", "show", "--json").json()["name"] == other


def test_errors_are_the_problem_title_and_detail_never_a_traceback(
    platform_url: str, truco: Truco
) -> None:
    unconfigured = truco("bot", "list")
    assert unconfigured.code == 2
    assert unconfigured.err.startswith("error: No platform configured: run `truco account")
    name = unique("erin")
    truco.ok("account", "create", name, "--url", platform_url, "--force")
    taken = truco("account", "create", name, "--url", platform_url, "--force", "--json")
    assert taken.code == 1
    problem = json.loads(taken.err)
    assert problem["status"] == 409 and problem["title"] == "Conflict"
    assert name in problem["detail"]
    bad = truco("account", "create", " spaces ", "--url", platform_url, "--force")
    assert bad.code == 1 and "(422)" in bad.err and "body.name:" in bad.err
    url = truco("login", "--url", "ftp://example", "--key", "ta_x")
    assert url.code == 2 and url.err.startswith("error: Bad platform URL:")
    # the real command, as a user runs it: an unknown bot is the 404 problem, exit 1
    env = {**ROOT_ENV, "XDG_CONFIG_HOME": str(truco.config_home)}
    done = subprocess.run(
        [sys.executable, "-m", "truco_cli.main", "bot", "show", "987654321"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.startswith("error: Not Found (404): ")
    assert "Traceback" not in done.stderr


def test_rotate_key_stores_the_new_key_and_the_old_one_is_refused(
    platform_url: str, truco: Truco
) -> None:
    name = unique("rotor")
    truco.ok("account", "create", name, "--url", platform_url)
    old = tomllib.loads(truco.config_file.read_text())["key"]
    rotated = truco.ok("account", "rotate-key")
    assert "rotated" in rotated.out and "ta_" not in rotated.out  # the key goes to the file
    stored = tomllib.loads(truco.config_file.read_text())
    assert stored["key"] != old and stored["key"].startswith("ta_")
    assert stored["url"] == platform_url and stored["account"] == name
    assert stat.S_IMODE(truco.config_file.stat().st_mode) == 0o600
    assert truco.ok("account", "show", "--json").json()["name"] == name  # the new key works
    listed = truco.ok("account", "keys", "--json").json()
    assert [k["current"] for k in listed] == [True] and listed[0]["hint"] == stored["key"][-4:]
    assert "(in use)" in truco.ok("account", "keys").out
    # the old key is refused
    stored_new = stored["key"]
    truco.config_file.write_text(truco.config_file.read_text().replace(stored_new, old))
    refused = truco("account", "show")
    assert refused.code == 1 and refused.err.startswith("error: Unauthorized (401)")
    truco.config_file.write_text(truco.config_file.read_text().replace(old, stored_new))
    # the last key cannot be revoked: the platform says to rotate it
    last = truco("account", "revoke-key", str(listed[0]["id"]))
    assert last.code == 1 and "rotate" in last.err
