"""The API reference (``/schema/reference``): Swagger UI served by the platform itself, under
the pages' strict CSP, showing the whole document (REST operations and the bot webhooks),
and able to send a real request ("Try it out")."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from services.api.spec import full_openapi
from services.web import CSP
from services.web.reference import DOCUMENT_URL, REFERENCE_URL
from tests.services.web.conftest import ROOT, shot
from tests.services.web.waits import eventually

METHODS = {"get", "put", "post", "delete", "patch", "head", "options", "trace"}


def operations(document: dict[str, Any]) -> set[str]:
    """Every operationId of the document's ``paths`` and ``webhooks``."""
    return {
        op["operationId"]
        for section in ("paths", "webhooks")
        for item in document[section].values()
        for method, op in item.items()
        if method in METHODS
    }


@pytest.mark.anyio
async def test_the_reference_document_is_the_committed_one(client: httpx.AsyncClient) -> None:
    served = (await client.get(DOCUMENT_URL)).json()
    assert served == json.loads(json.dumps(full_openapi()))  # api-spec/openapi.json's content
    # what /schema/openapi.json serves (what generators download) is the committed file itself,
    # byte for byte, at its old address too: webhooks, tags, links and all
    committed = (ROOT / "api-spec" / "openapi.json").read_bytes()
    for url in ("/schema/openapi.json", "/schema/openapi-full.json"):
        answer = await client.get(url)
        assert answer.status_code == 200 and answer.content == committed, url
    assert served["tags"] and served["webhooks"]
    assert {"botAct", "botStart", "botEnd", "botInfo"} <= set(served["webhooks"])
    page = await client.get(REFERENCE_URL)
    assert page.status_code == 200 and page.headers["content-security-policy"] == CSP
    assert 'src="/static/swagger_ui/swagger-ui-bundle.js"' in page.text
    assert "<style" not in page.text and "<script>" not in page.text
    assert "cdn" not in page.text.lower() and "https://" not in page.text
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        response = await client.get(f"/static/swagger_ui/{asset}")
        assert response.status_code == 200 and response.headers["content-security-policy"] == CSP
        assert b"data:image" not in response.content  # the CSP's img-src 'self' refuses them


def test_reference_renders_every_operation_under_the_csp(page: Any, live_server: str) -> None:
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.add_init_script(
        "window.__csp = []; document.addEventListener('securitypolicyviolation',"
        " e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    page.goto(REFERENCE_URL)
    document = full_openapi()
    expected = operations(document)
    blocks = page.locator("#swagger-ui .opblock")
    blocks.first.wait_for(timeout=20000)
    eventually(page, f"document.querySelectorAll('#swagger-ui .opblock').length >= {len(expected)}")
    shown = {(block.get_attribute("id") or "").rsplit("-", 1)[-1] for block in blocks.all()}
    assert expected <= shown, expected - shown  # REST operations and the four webhooks
    assert page.get_by_text("Webhooks", exact=True).count() >= 1
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.__csp") == []
    assert requests and all(url.startswith(live_server + "/") for url in requests), requests
    assert page.locator(f"footer a[href='{REFERENCE_URL}']").count() == 1  # as on every page
    # try it: list the bots for real from the browser
    listing = page.locator("#operations-bots-listBots")
    listing.locator(".opblock-summary-control").click()
    listing.get_by_role("button", name="Try it out").click()
    listing.get_by_role("button", name="Execute").click()
    status = listing.locator(".live-responses-table tbody .response-col_status").first
    status.wait_for(timeout=15000)
    assert status.inner_text().strip() == "200"
    shot(page, "api-reference")
    assert all(url.startswith(live_server + "/") for url in requests), requests
    assert page.evaluate("window.__csp") == []
