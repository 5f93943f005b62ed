"""Request bodies are JSON: a body sent as anything else is a 415 problem, never decoded.

Litestar decodes a handler's ``data`` as JSON whatever the ``Content-Type`` says. Taking
``text/plain`` or a form as JSON lets a web page on another site POST to the API from a
browser without a CORS preflight (a "simple" request); accepting only JSON closes that door
and tells a client with the wrong header exactly what to send.
"""

from __future__ import annotations

from litestar import Request
from litestar.datastructures import State
from litestar.response import Response

from services.api.problems import problem_response

JSON = "application/json"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH"})


def is_json(content_type: str) -> bool:
    """``application/json`` or a ``+json`` type, with no charset but UTF-8 (RFC 8259 §8.1)."""
    media_type, _, parameters = content_type.partition(";")
    media_type = media_type.strip().lower()
    if media_type != JSON and not (
        media_type.startswith("application/") and media_type.endswith("+json")
    ):
        return False
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip().strip('"').lower() not in (
            "utf-8",
            "utf8",
        ):
            return False
    return True


def takes_body(request: Request[object, object, State]) -> bool:
    """Whether the operation reads a request body (its handler has a ``data`` parameter)."""
    handler = request.scope.get("route_handler")
    signature = getattr(handler, "parsed_fn_signature", None)
    return signature is not None and "data" in signature.parameters


async def json_body_hook(request: Request[object, object, State]) -> Response[bytes] | None:
    """A Litestar ``before_request`` hook: 415 for a body-taking ``/v1`` write whose
    ``Content-Type`` is not JSON (a missing header included)."""
    if request.method not in WRITE_METHODS or not request.url.path.startswith("/v1/"):
        return None
    content_type = request.headers.get("content-type", "")
    if is_json(content_type) or not takes_body(request):
        return None
    sent = f"Content-Type {content_type!r}" if content_type else "no Content-Type"
    return problem_response(
        415,
        f"the request body must be JSON: send Content-Type: {JSON} (this request had {sent})",
        headers={"Accept": JSON},
    )
