"""Shared pieces of the security tests: the operations of the committed OpenAPI document and
the problem-document assertion."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from services.api.spec import full_openapi

PROBLEM = "application/problem+json"
WRITE_METHODS = ("post", "put", "patch", "delete")


@dataclass(frozen=True)
class Operation:
    operation_id: str
    method: str
    path: str
    secured: bool
    has_body: bool
    statuses: frozenset[str]


def _needs_a_key(security: list[dict[str, Any]]) -> bool:
    """Whether every way to call the operation takes an API key (``[{}, {"BearerAuth": []}]``:
    a key is optional; ``PlayToken``: /play's own token, not an API key)."""
    return bool(security) and all("BearerAuth" in choice for choice in security)


def operations(document: dict[str, Any] | None = None) -> list[Operation]:
    """Every REST operation of the document (webhooks, the calls to bots, are not ours)."""
    document = document if document is not None else full_openapi()
    found = []
    for path, item in document["paths"].items():
        for method, op in item.items():
            if not isinstance(op, dict) or "operationId" not in op:
                continue
            found.append(
                Operation(
                    operation_id=op["operationId"],
                    method=method,
                    path=path,
                    secured=_needs_a_key(op.get("security") or []),
                    has_body="requestBody" in op,
                    statuses=frozenset(op.get("responses", {})),
                )
            )
    return found


def write_operations() -> list[Operation]:
    return [op for op in operations() if op.method in WRITE_METHODS]


def assert_problem(response: httpx.Response, *statuses: int) -> dict[str, Any]:
    """An RFC 9457 document with one of ``statuses``."""
    assert response.status_code in statuses, (response.status_code, response.text[:500])
    assert response.headers["content-type"] == PROBLEM, response.headers
    body: dict[str, Any] = response.json()
    assert body["status"] == response.status_code
    assert isinstance(body["type"], str) and body["type"].startswith("/problems/")
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    return body
