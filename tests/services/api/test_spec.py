"""The committed OpenAPI document matches the code (run `make spec` after changing types):
the REST API from the Litestar app plus the bot protocol's webhooks."""

from __future__ import annotations

import json

import pytest
from openapi_spec_validator import validate

from arena.wire.openapi import bot_protocol_openapi, render
from services.api.spec import SpecConflict, full_openapi, merge, rest_openapi
from tests.conftest import ROOT

SPEC = ROOT / "api-spec" / "openapi.json"


def test_committed_spec_has_not_drifted() -> None:
    committed = SPEC.read_bytes()
    assert committed == render(full_openapi()), (
        "api-spec/openapi.json differs from the code: run `make spec` and commit the result"
    )


def test_the_document_is_valid_openapi_3_1() -> None:
    document = json.loads(SPEC.read_text())
    assert document["openapi"] == "3.1.0"
    validate(document)  # raises on any error, naming where


def _closed_tuples(node: object) -> list[dict[str, object]]:
    if isinstance(node, list):
        return [t for item in node for t in _closed_tuples(item)]
    if not isinstance(node, dict):
        return []
    found = [node] if "prefixItems" in node else []
    return found + [t for value in node.values() for t in _closed_tuples(value)]


def test_every_tuple_still_promises_its_exact_length_without_a_boolean_schema() -> None:
    """A msgspec tuple is closed with minItems/maxItems, not ``items: false`` (which
    openapi-python-client refuses): the wire still promises exactly that many items."""
    tuples = _closed_tuples(json.loads(SPEC.read_text()))
    assert tuples
    for schema in tuples:
        length = len(schema["prefixItems"])  # type: ignore[arg-type]
        # no boolean schema: ``items`` is a schema every position satisfies (the linters and
        # generators read arrays by it; with maxItems it never admits a further item)
        assert schema.get("items") is not False and isinstance(schema.get("items"), dict), schema
        assert schema.get("minItems") == length and schema.get("maxItems") == length, schema


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


def test_every_rest_operation_has_an_id_tags_and_problem_errors() -> None:
    document = json.loads(SPEC.read_text())
    paths = document["paths"]
    for path in (
        "/v1/tournaments",
        "/v1/tournaments/{tournament_id}",
        "/v1/tournaments/{tournament_id}/entries",
        "/v1/tournaments/{tournament_id}/start",
        "/v1/challenges",
        "/v1/matches/{match_id}",
        "/v1/matches/{match_id}/replay",
        "/v1/bots/{bot_id}/matches",
        "/v1/leaderboards/{mode}",
    ):
        assert path in paths, path
    ids = []
    for path, operations in paths.items():
        for method, operation in operations.items():
            ids.append(operation["operationId"])
            assert operation["tags"], (method, path)
            if path.startswith("/v1/"):
                too_many = operation["responses"]["429"]["content"]
                assert "application/problem+json" in too_many, (method, path)
    assert len(ids) == len(set(ids))
    replay = paths["/v1/matches/{match_id}/replay"]["get"]["responses"]["200"]
    # the whole replay once finished, the live spectator document while the match is played
    refs = [r["$ref"] for r in replay["content"]["application/json"]["schema"]["oneOf"]]
    assert [ref.rsplit("/", 1)[1] for ref in refs] == ["Replay", "LiveReplay"]
    # the replay's types are msgspec's, the same as the bot protocol's
    assert (
        document["components"]["schemas"]["Rules"]
        == (bot_protocol_openapi()["components"]["schemas"]["Rules"])
    )


def test_merge_refuses_a_component_defined_twice_differently() -> None:
    protocol = bot_protocol_openapi()
    rest = rest_openapi()
    rest.setdefault("components", {}).setdefault("schemas", {})["BotInfo"] = {"type": "string"}
    with pytest.raises(SpecConflict, match="BotInfo"):
        merge(rest, protocol)
