"""`truco account add-key`, `keys` and `revoke-key` against the real API: a second key is
added without curl and works at once, the list says each key's age, and the refusals name the
command to run, never an HTTP path."""

from __future__ import annotations

import json
import re
import tomllib

import httpx

from tests.cli.conftest import Truco, module_platform, unique

# one served API for the module's tests (each makes its own account and config folder)
shared_platform, platform_url = module_platform()


def test_a_second_key_is_added_listed_with_its_age_and_revoked(
    platform_url: str, truco: Truco
) -> None:
    truco.ok("account", "create", unique("keys"), "--url", platform_url)
    stored = tomllib.loads(truco.config_file.read_text())["key"]
    added = truco.ok("account", "add-key")
    second = re.search(r"^\s+(ta_\S+)$", added.out, re.MULTILINE)
    assert second is not None, added.out
    assert "never shows it again" in added.out
    assert tomllib.loads(truco.config_file.read_text())["key"] == stored  # the stored key stays
    me = httpx.get(
        f"{platform_url}/v1/accounts/me", headers={"authorization": f"Bearer {second[1]}"}
    )
    assert me.status_code == 200  # the new key works at once
    as_json = truco.ok("account", "add-key", "--json").json()
    assert as_json["api_key"].startswith("ta_") and as_json["hint"] == as_json["api_key"][-4:]
    listed = truco.ok("account", "keys")
    lines = listed.out.splitlines()
    assert lines[0].split() == ["id", "key", "age"]
    assert len(lines) == 4  # three keys
    for line in lines[1:]:
        assert re.search(r"\.\.\.\S{4}\s+\d+ (s|min|h|days?)\b", line), line
    assert sum("(in use)" in line for line in lines) == 1
    keys = truco.ok("account", "keys", "--json").json()
    new_id = next(k["id"] for k in keys if k["hint"] == as_json["hint"])
    revoked = truco.ok("account", "revoke-key", new_id)
    assert f"API key {new_id} is revoked" in revoked.out
    assert len(truco.ok("account", "keys", "--json").json()) == 2


def test_the_refusals_name_the_command_not_the_http_path(platform_url: str, truco: Truco) -> None:
    truco.ok("account", "create", unique("last"), "--url", platform_url)
    (only,) = truco.ok("account", "keys", "--json").json()
    last = truco("account", "revoke-key", only["id"])
    assert last.code == 1
    assert "rotate it instead (`truco account rotate-key`)" in last.err, last.err
    assert "/v1/" not in last.err and "POST" not in last.err
    as_json = truco("account", "revoke-key", only["id"], "--json")
    assert as_json.code == 1
    assert "`truco account rotate-key`" in json.loads(as_json.err)["detail"]  # the document too
    for _ in range(4):  # the most an account may hold is 5 (TRUCO_API_KEYS_PER_ACCOUNT)
        truco.ok("account", "add-key", "--json")
    full = truco("account", "add-key")
    assert full.code == 1
    assert "`truco account revoke-key ID`" in full.err and "DELETE" not in full.err, full.err
