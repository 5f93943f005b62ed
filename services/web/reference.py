"""The API reference people read and try: Swagger UI over the whole OpenAPI document.

Two Litestar OpenAPI render plugins, mounted under ``/schema`` by :func:`reference_plugins`:

- :class:`ApiReference` at ``/schema/reference``: Swagger UI (the ``swagger-ui-dist`` npm
  package, vendored into ``static/swagger_ui/`` by ``tools/vendor_swagger_ui.py``), inside the
  site's layout, with no CDN and under the pages' strict Content-Security-Policy: the page is
  our template, its one script (``static/reference.js``) starts Swagger UI, and nothing inline.
- :class:`FullDocument` at ``/schema/openapi-full.json``: the document the reference shows,
  the REST API (``paths``) plus the calls the platform makes to a bot (``webhooks``) and the
  links between operations; the same document as the committed ``api-spec/openapi.json``
  (:func:`services.api.spec.full_openapi`). ``/schema/openapi.json`` stays Litestar's REST-only
  document.

Why Swagger UI: under this CSP (no inline style, no ``eval``, images from 'self' only) Scalar
needs ``'unsafe-eval'`` and inline styles and Redoc injects ``<style>`` elements and renders
nothing; Swagger UI needs only its CSS's embedded ``data:`` images, which the vendoring script
moves to files. It renders OpenAPI 3.1 webhooks and has "Try it out".
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Router
from litestar.datastructures import MutableScopeHeaders, ResponseHeader
from litestar.enums import ScopeType
from litestar.openapi.plugins import JsonRenderPlugin, OpenAPIRenderPlugin, SwaggerRenderPlugin
from litestar.serialization import encode_json
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from arena.wire.openapi import bot_protocol_openapi
from services.api.spec import OpenApiDocument, add_links, merge, open_tuples
from services.web.pages.render import SECURITY_HEADERS, language_of_response, render_html

SCHEMA_PATH = "/schema"  # services.api.app mounts the OpenAPI router there
REFERENCE_URL = f"{SCHEMA_PATH}/reference"
DOCUMENT_URL = f"{SCHEMA_PATH}/openapi-full.json"
ASSETS = "/static/swagger_ui"


def full_document(rest: OpenApiDocument) -> OpenApiDocument:
    """The app's REST document ``rest`` with the bot protocol's webhooks and the links."""
    return add_links(open_tuples(merge(rest, bot_protocol_openapi())))


class FullDocument(JsonRenderPlugin):
    """``/schema/openapi-full.json``: :func:`full_document` of the app's own document."""

    def __init__(self) -> None:
        super().__init__(path=DOCUMENT_URL.removeprefix(SCHEMA_PATH))
        self._encoded: bytes | None = None

    def render(self, request: Request[Any, Any, Any], openapi_schema: OpenApiDocument) -> bytes:
        if self._encoded is None:  # the app's document never changes once it is built
            self._encoded = encode_json(full_document(openapi_schema))
        return self._encoded


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
    return [ApiReference(), FullDocument()]
