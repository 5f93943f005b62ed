"""The committed OpenAPI document matches the code (run `make spec` after changing types)."""

from __future__ import annotations

import json

from arena.openapi import bot_protocol_openapi, render
from tests.conftest import ROOT

SPEC = ROOT / "api-spec" / "openapi.json"


def test_committed_spec_has_not_drifted() -> None:
    committed = SPEC.read_bytes()
    assert committed == render(bot_protocol_openapi()), (
        "api-spec/openapi.json differs from the code: run `make spec` and commit the result"
    )


def test_webhooks_describe_the_four_bot_endpoints() -> None:
    document = json.loads(SPEC.read_text())
    assert document["openapi"].startswith("3.1")
    hooks = document["webhooks"]
    assert set(hooks) == {"botInfo", "botStart", "botAct", "botEnd"}
    act = hooks["botAct"]["post"]
    assert act["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/ActRequest"
    )
    schemas = document["components"]["schemas"]
    required = set(schemas["ActRequest"]["required"])
    assert {"observation", "legal_actions", "timeout_ms", "time_bank_ms"} <= required
    assert "Observation" in schemas and "Action" in schemas
    headers = {p["name"] for p in act["parameters"]}
    assert headers == {"webhook-id", "webhook-timestamp", "webhook-signature"}
