"""``/schema/openapi.json`` encoded once (issue 33, 8): Litestar's JSON render plugin encoded the
136 KB document again for every request (2,694 answers in 15 s from one address, counted in no
budget). The app's document never changes once built, so its bytes are kept; every ``/schema``
request also counts against its address's API budget (:mod:`services.api.guard.ratelimit`)."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.openapi.plugins import JsonRenderPlugin
from litestar.serialization import encode_json


class KeptJsonDocument(JsonRenderPlugin):
    """``/schema/openapi.json``, encoded on the first request and kept."""

    def __init__(self, path: str | list[str] = "/openapi.json") -> None:
        super().__init__(path=path)
        self._encoded: bytes | None = None
        self.encodings = 0
        """How often the document was encoded (tests count it)."""

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        if self._encoded is None:
            self._encoded = self.encode(openapi_schema)
            self.encodings += 1
        return self._encoded

    def encode(self, openapi_schema: dict[str, Any]) -> bytes:
        """The document's bytes, made once: the app's own document, encoded."""
        return encode_json(openapi_schema)
