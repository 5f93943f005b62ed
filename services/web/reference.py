"""The API reference people read and try: Swagger UI over the whole OpenAPI document.

Two Litestar OpenAPI render plugins, mounted under ``/schema`` by :func:`reference_plugins`:

- :class:`ApiReference` at ``/schema/reference``: Swagger UI (the ``swagger-ui-dist`` npm
  package, vendored into ``static/swagger_ui/`` by ``tools/vendor_swagger_ui.py``), inside the
  site's layout, with no CDN and under the pages' strict Content-Security-Policy: the page is
  our template, its one script (``static/reference.js``) starts Swagger UI, and nothing inline.
- :class:`FullDocument` at ``/schema/openapi.json`` (and, as before, at
  ``/schema/openapi-full.json``): the committed ``api-spec/openapi.json`` itself, byte for byte:
  the REST API (``paths``) plus the calls the platform makes to a bot (``webhooks``), the links
  between operations, the tags. One document, so what a client generator downloads from a
  running platform is what the repository holds (a test checks that file against the code).
  Where the file is not shipped, the same document made from the app
  (:func:`services.api.spec.full_document`).

Why Swagger UI: under this CSP (no inline style, no ``eval``, images from 'self' only) Scalar
needs ``'unsafe-eval'`` and inline styles and Redoc injects ``<style>`` elements and renders
nothing; Swagger UI needs only its CSS's embedded ``data:`` images, which the vendoring script
moves to files. It renders OpenAPI 3.1 webhooks and has "Try it out".
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Request, Router
from litestar.datastructures import MutableScopeHeaders, ResponseHeader
from litestar.enums import ScopeType
from litestar.openapi.plugins import OpenAPIRenderPlugin, SwaggerRenderPlugin
from litestar.serialization import encode_json
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from services.api.routes.schema_document import KeptJsonDocument
from services.api.spec import OpenApiDocument, full_document
from services.web.pages.render import SECURITY_HEADERS, language_of_response, render_html

SCHEMA_PATH = "/schema"  # services.api.app mounts the OpenAPI router there
REFERENCE_URL = f"{SCHEMA_PATH}/reference"
SERVED_URL = f"{SCHEMA_PATH}/openapi.json"  # where clients and the reference read it
LEGACY_URL = f"{SCHEMA_PATH}/openapi-full.json"  # its address before it was served there
DOCUMENT_URL = SERVED_URL
ASSETS = "/static/swagger_ui"


COMMITTED = Path(__file__).resolve().parents[2] / "api-spec" / "openapi.json"


class FullDocument(KeptJsonDocument):
    """``/schema/openapi.json``, ``/schema/openapi-full.json``: the committed document, read
    once (the document never changes once the process runs)."""

    def __init__(self) -> None:
        super().__init__(
            path=[SERVED_URL.removeprefix(SCHEMA_PATH), LEGACY_URL.removeprefix(SCHEMA_PATH)]
        )

    def encode(self, openapi_schema: dict[str, Any]) -> bytes:
        try:
            return COMMITTED.read_bytes()
        except OSError:  # an install without the repository's api-spec/
            return encode_json(full_document(openapi_schema))


class ApiReference(SwaggerRenderPlugin):
    """``/schema/reference``: Swagger UI from ``/static/swagger_ui/`` in the site's layout."""

    def __init__(self) -> None:
        super().__init__(
            path=REFERENCE_URL.removeprefix(SCHEMA_PATH),
            js_url=f"{ASSETS}/swagger-ui-bundle.js",
            css_url=f"{ASSETS}/swagger-ui.css",
            standalone_preset_js_url=f"{ASSETS}/swagger-ui-bundle.js",  # not loaded
            favicon='<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">',
            style="",
        )

    def render(self, request: Request[Any, Any, Any], openapi_schema: OpenApiDocument) -> bytes:
        return render_html(
            request,
            "reference.html",
            title=openapi_schema["info"]["title"],
            js_url=self.js_url,
            css_url=self.css_url,
            document_url=DOCUMENT_URL,
        ).encode()

    def receive_router(self, router: Router) -> None:
        """The pages' security headers on the ``/schema`` router (the reference is a page; the
        JSON documents lose nothing by them). Unlike Swagger UI's own plugin, no OAuth2
        redirect page: it is an inline script, and the API's keys are bearer tokens."""
        headers = {h.name: h for h in router.response_headers or ()}
        headers.update({k: ResponseHeader(name=k, value=v) for k, v in SECURITY_HEADERS.items()})
        router.response_headers = list(headers.values())
        router.middleware = [*router.middleware, _page_language]


def _page_language(app: ASGIApp) -> ASGIApp:
    """The reference page's response says its language as every other page's does
    (``Content-Language``, ``Vary``, the cookie a ``?lang=`` choice sets): the render plugin
    returns bytes, and Litestar's handler around it sets only the media type."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP or scope["path"] != REFERENCE_URL:
            await app(scope, receive, send)
            return
        headers, cookies = language_of_response(Request(scope))

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start":
                mutable = MutableScopeHeaders.from_message(message)
                for name, value in headers.items():
                    mutable[name] = value
                for cookie in cookies:
                    mutable.add("set-cookie", cookie.to_header(header=""))
            await send(message)

        await app(scope, receive, send_with_language)

    return middleware


def reference_plugins() -> list[OpenAPIRenderPlugin]:
    """The render plugins to add after the API's JSON one (``create_api(render_plugins=...)``)."""
    return [FullDocument(), ApiReference()]  # the first answers /schema itself: the JSON
