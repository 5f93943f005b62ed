"""What the committed OpenAPI document promises beyond what Litestar writes: the rules that
Redocly's and Spectral's recommended sets check and the generators need (issue 32 item 10).

- every operation says who may call it: ``security: []`` on a public one (an operation that
  declares nothing is public), the bot webhooks included (their signature headers are
  parameters, not an OpenAPI security scheme);
- every operation has a tag and a description, and every tag used is declared with a
  description (:data:`TAGS`); a missing one is an error here, so ``make spec`` fails on it;
- integer bounds are JSON integers (Litestar writes ``le=2**63 - 1`` as the float
  9.223372036854776e+18, which is 2^63, one above int64's largest);
- a fixed tuple (``prefixItems``) has an ``items`` schema too (the union of its positions:
  with ``maxItems`` it never applies, but generators and linters read arrays by ``items``);
- the ``info`` names the licence and where to read more.

Pure functions over the plain document (``services.api.spec`` applies them).
"""

from __future__ import annotations

from typing import Any

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
INT64_MAX = 2**63 - 1

TAGS = {
    "accounts": "Your account and its API keys.",
    "bots": "Bots: register yours, read anyone's profile and matches.",
    "tournaments": "Swiss, round robin and elimination events: create, enter, start, follow.",
    "matches": "One match, its replay, and casual challenges between bots.",
    "leaderboards": "Ratings by pool, with their intervals.",
    "ladders": "The continuous rated ladders: join, leave, read a table or a day.",
    "tests": "SPRT tests between two of your bots.",
    "live": "Server-Sent Events streams of a match or a tournament being played.",
    "play": "A person plays a bot (never rated).",
    "moderation": "Report a bot or a name; read what moderators did to a bot.",
    "admin": "Moderators' operations (admins only: granted by `truco admin grant` on the server).",
    "operations": "Health checks for load balancers and monitors.",
    "bot protocol": "Calls the platform makes to your bot.",
}
"""Every tag an operation may carry, in the order a reader meets them."""

LICENSE = {"name": "MIT", "identifier": "MIT"}
CONTACT = {"name": "Truco Arena"}  # docs/ in the repository say the rest


class SpecRuleError(ValueError):
    """An operation breaks a rule of the document (no tag, no description, an unknown tag)."""


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(section/path, method, operation) for every operation of ``paths`` and ``webhooks``."""
    found = []
    for section in ("paths", "webhooks"):
        for path, item in document.get(section, {}).items():
            for method in METHODS:
                operation = item.get(method)
                if isinstance(operation, dict):
                    found.append((f"{section} {path}", method, operation))
    return found


def with_rules(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` (a plain JSON value, changed in place and returned) made to follow every
    rule of this module; :class:`SpecRuleError` names the operation that cannot."""
    for where, method, operation in operations(document):
        name = f"{method.upper()} {where} ({operation.get('operationId')})"
        operation.setdefault("security", [])
        tags = operation.get("tags") or []
        if not tags:
            raise SpecRuleError(f"{name} has no tag")
        unknown = [tag for tag in tags if tag not in TAGS]
        if unknown:
            raise SpecRuleError(f"{name}: tag {unknown[0]!r} is not in spec_rules.TAGS")
        if not str(operation.get("description") or "").strip():
            raise SpecRuleError(f"{name} has no description")
    document["tags"] = [{"name": name, "description": text} for name, text in TAGS.items()]
    info = document.setdefault("info", {})
    info.setdefault("license", LICENSE)
    info.setdefault("contact", CONTACT)
    _walk(document)
    return document


def _walk(node: Any) -> None:
    if isinstance(node, list):
        for item in node:
            _walk(item)
        return
    if not isinstance(node, dict):
        return
    for value in node.values():
        _walk(value)
    if _is_integer(node):
        for bound in ("maximum", "minimum", "exclusiveMaximum", "exclusiveMinimum"):
            value = node.get(bound)
            if isinstance(value, float) and value.is_integer():
                node[bound] = min(int(value), INT64_MAX)
    prefix = node.get("prefixItems")
    if isinstance(prefix, list) and prefix and "items" not in node:
        node["items"] = _union(prefix)


def _is_integer(schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return kind == "integer" or (isinstance(kind, list) and "integer" in kind)


def _union(schemas: list[Any]) -> Any:
    """One schema that every one of ``schemas`` satisfies: itself when they are all equal."""
    distinct: list[Any] = []
    for schema in schemas:
        if schema not in distinct:
            distinct.append(schema)
    return distinct[0] if len(distinct) == 1 else {"anyOf": distinct}
