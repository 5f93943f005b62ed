"""The committed OpenAPI document is clean for the tools a stranger brings: Redocly's and
Spectral's recommended rules (every operation says who may call it, has a tag declared with a
description and a description of its own; every array says its items) and openapi-generator's
own validator, which it runs before generating anything. The same rules are checked here in
Python too, so a machine without Node.js or Java still catches a break; the tools' runs skip,
saying why, where the tool is missing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from services.api.spec_rules import INT64_MAX, TAGS, operations
from tests.services.helpers.node_tools import binary, node_tools

ROOT = Path(__file__).resolve().parents[3]
SPEC = ROOT / "api-spec" / "openapi.json"
PUBLIC = {  # read by anyone, or (play, webhooks) guarded by something other than an API key
    "createAccount", "listBots", "getBot", "listBotMatches", "listTournaments",
    "listTournamentEntries", "getTournament", "exportTournament", "getTournamentTrf",
    "getMatch", "getMatchReplay", "getLeaderboard", "getLadder", "getLadderDay",
    "exportLadderDay", "getTest", "streamMatch", "streamTournament", "getPlayReplay",
    "getHealth", "getLiveness", "botInfo", "botStart", "botAct", "botEnd",
    "createReport", "getBotModeration",
}  # fmt: skip


def _document() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SPEC.read_text())
    return loaded


def _schemas(node: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found += _schemas(value)
    elif isinstance(node, list):
        for item in node:
            found += _schemas(item)
    return found


def test_every_operation_says_who_may_call_it_and_what_it_does() -> None:
    document = _document()
    declared = {tag["name"]: tag.get("description") for tag in document["tags"]}
    assert declared == TAGS
    schemes = set(document["components"]["securitySchemes"])
    for where, method, op in operations(document):
        name = op["operationId"]
        assert "security" in op, f"{method} {where} ({name}) says nothing of who may call it"
        required = {scheme for choice in op["security"] for scheme in choice}
        assert required <= schemes, name
        if name in PUBLIC:
            assert op["security"] == [], name
        else:
            assert op["security"], f"{name} needs a key or a token and says so"
        assert op.get("tags") and set(op["tags"]) <= set(declared), name
        assert op.get("description", "").strip(), f"{name} has no description"
    assert document["info"]["license"]["identifier"] == "MIT"


def test_integers_are_bounded_by_integers_and_every_array_has_items() -> None:
    for schema in _schemas(_document()):
        if schema.get("type") == "integer":
            for bound in ("maximum", "minimum"):
                if bound in schema:
                    value = schema[bound]
                    assert isinstance(value, int) and value <= INT64_MAX, schema
        if schema.get("type") == "array":
            assert "items" in schema, schema
    text = SPEC.read_text()
    assert "e+18" not in text and "e18" not in text
    assert "9223372036854775807" in text


def test_the_play_replay_is_the_replay_document() -> None:
    operation = _document()["paths"]["/v1/play/{play_id}/replay"]["get"]
    content = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert content == {"$ref": "#/components/schemas/Replay"}


def test_redocly_lints_clean() -> None:
    tools = node_tools("@redocly/cli")
    done = subprocess.run(
        [str(binary("redocly")), "lint", "--format=json", str(SPEC)],
        capture_output=True, text=True, timeout=600, cwd=tools,
    )  # fmt: skip
    report = json.loads(done.stdout)
    problems = [
        (p["ruleId"], p["severity"], p["location"][0]["pointer"]) for p in report["problems"]
    ]
    assert problems == [], problems
    assert done.returncode == 0, done.stderr


def test_spectral_lints_clean(tmp_path: Path) -> None:
    node_tools("@stoplight/spectral-cli")
    ruleset = tmp_path / ".spectral.yaml"
    ruleset.write_text('extends: ["spectral:oas"]\n')
    done = subprocess.run(
        [str(binary("spectral")), "lint", "--ruleset", str(ruleset), "--format", "json",
         "--fail-severity", "hint", str(SPEC)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    found, _ = json.JSONDecoder().raw_decode(done.stdout)  # then a line of text when clean
    problems = [(p["code"], p["severity"], ".".join(map(str, p["path"]))) for p in found]
    assert problems == [], problems
    assert done.returncode == 0, done.stderr


def openapi_generator() -> list[str]:
    """The command of openapi-generator (the PyPI package bundles its jar), or a skip."""
    tool = Path(sys.executable).with_name("openapi-generator-cli")
    if not tool.exists():
        pytest.skip("openapi-generator-cli is not installed (.venv/bin/pip install "
                    "openapi-generator-cli): its validator is not run")  # fmt: skip
    if shutil.which("java") is None:
        pytest.skip("no Java on this machine: openapi-generator is not run")
    return [str(tool)]


def test_openapi_generator_validates_the_document() -> None:
    done = subprocess.run(
        [*openapi_generator(), "validate", "-i", str(SPEC)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "[error]" not in done.stdout, done.stdout
