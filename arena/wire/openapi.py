"""The bot callback protocol as OpenAPI 3.1 ``webhooks``, generated from the msgspec types.

``python -m arena.wire.openapi`` prints the document; ``make spec`` writes it to
``api-spec/openapi.json`` and a test fails when the committed file drifts from the code.
"""

from __future__ import annotations

import sys
from typing import Any

import msgspec

from arena.wire.protocol import (
    API_VERSION,
    ActRequest,
    ActResponse,
    BotInfo,
    EndRequest,
    StartRequest,
)

REF = "#/components/schemas/{name}"
SIGNATURE_HEADERS = [
    {
        "name": "webhook-id",
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
        "description": "Unique message id (Standard Webhooks).",
    },
    {
        "name": "webhook-timestamp",
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
        "description": "Unix seconds; reject messages older than 5 minutes.",
    },
    {
        "name": "webhook-signature",
        "in": "header",
        "required": True,
        "schema": {"type": "string"},
        "description": "`v1,` + base64(HMAC-SHA256(secret, `{id}.{timestamp}.{body}`)).",
    },
]


def _json(schema_name: str) -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": REF.format(name=schema_name)}}}


def _hook(
    method: str, summary: str, request: str | None, response: str | None, description: str
) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "operationId": f"bot{summary.replace(' ', '')}",
        "summary": summary,
        "description": description,
        "tags": ["bot protocol"],
        "parameters": SIGNATURE_HEADERS,
        "responses": {
            "200": {"description": "OK", **({"content": _json(response)} if response else {})}
        },
    }
    if request:
        operation["requestBody"] = {"required": True, "content": _json(request)}
    return {method: operation}


def bot_protocol_openapi() -> dict[str, Any]:
    """The OpenAPI 3.1 document of the bot protocol (REST paths are added by the platform)."""
    _, components = msgspec.json.schema_components(
        [BotInfo, StartRequest, ActRequest, ActResponse, EndRequest], ref_template=REF
    )
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Truco Arena",
            "version": API_VERSION,
            "description": (
                "Bot callback protocol, version 1. A bot is an HTTP server that the platform "
                "calls; it never calls the platform. Paths below are relative to the bot's base "
                "URL. Any non-200 answer, a body that is not a valid ActResponse, an action not "
                "in legal_actions, a timeout or a response over 64 KiB is a fault."
            ),
        },
        "paths": {},
        "webhooks": {
            "botInfo": _hook(
                "get", "Info", None, "BotInfo", "`GET {base}/`: at registration, health checks."
            ),
            "botStart": _hook(
                "post", "Start", "StartRequest", None, "`POST {base}/start` before each game."
            ),
            "botAct": _hook(
                "post",
                "Act",
                "ActRequest",
                "ActResponse",
                "`POST {base}/act` each time the bot's seat must decide.",
            ),
            "botEnd": _hook(
                "post", "End", "EndRequest", None, "`POST {base}/end` after each game."
            ),
        },
        "components": {"schemas": components},
    }


def render(document: dict[str, Any]) -> bytes:
    return msgspec.json.format(msgspec.json.encode(document), indent=2) + b"\n"


if __name__ == "__main__":
    sys.stdout.buffer.write(render(bot_protocol_openapi()))
