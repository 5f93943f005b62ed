"""Every error is an RFC 9457 problem; /health; the OpenAPI document."""

from __future__ import annotations

import pytest

from arena.client.bot_client import BotClient
from arena.client.egress import EgressPolicy
from services.api.app import MAX_BODY_BYTES
from services.db.pool import create_pool
from services.launch.app import create_app
from tests.services.helpers.api_helpers import Api, client_for, module_api, settings

pytestmark = pytest.mark.anyio
PROBLEM = "application/problem+json"

# one app for the tests that take ``api`` (the others make the app they need themselves)
anyio_backend, shared_api, api = module_api()


def assert_problem(response: object, status: int) -> dict[str, object]:
    from httpx import Response

    assert isinstance(response, Response)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    body: dict[str, object] = response.json()
    assert body["status"] == status
    assert isinstance(body["type"], str) and body["type"].startswith("/problems/")
    assert isinstance(body["title"], str) and body["title"]
    assert isinstance(body["detail"], str) and body["detail"]
    return body


async def test_unknown_route_is_a_404_problem(api: Api) -> None:
    assert_problem(await api.client.get("/v1/nothing-here"), 404)
    assert_problem(await api.client.get("/v1/bots/not-a-number"), 404)


async def test_wrong_method_is_a_405_problem(api: Api) -> None:
    assert_problem(await api.client.put("/health"), 405)
    assert_problem(await api.client.delete("/v1/accounts"), 405)


async def test_bad_body_is_a_422_with_field_errors(api: Api) -> None:
    body = assert_problem(await api.client.post("/v1/accounts", json={"name": ""}), 422)
    assert body["errors"] == [{"field": "body.name", "message": "Expected `str` of length >= 1"}]
    body = assert_problem(await api.client.post("/v1/accounts", json={"name": 5}), 422)
    errors = body["errors"]
    assert isinstance(errors, list) and errors[0]["field"] == "body.name"
    body = assert_problem(await api.client.post("/v1/accounts", json={"nom": "x"}), 422)
    assert isinstance(body["errors"], list) and "nom" in body["errors"][0]["message"]
    too_long = "x" * 65
    body = assert_problem(await api.client.post("/v1/accounts", json={"name": too_long}), 422)
    assert isinstance(body["errors"], list) and body["errors"][0]["field"] == "body.name"


async def test_malformed_json_is_a_400_problem(api: Api) -> None:
    response = await api.client.post(
        "/v1/accounts", content=b'{"name": ', headers={"content-type": "application/json"}
    )
    body = assert_problem(response, 400)
    assert "could not be decoded" in str(body["detail"])
    assert "errors" not in body


async def test_bad_query_parameter_is_a_400_problem(api: Api) -> None:
    for query in ("limit=0", "limit=101", "limit=abc", "cursor=-1"):
        body = assert_problem(await api.client.get(f"/v1/bots?{query}"), 400)
        errors = body["errors"]
        assert isinstance(errors, list) and errors[0]["field"].startswith("query.")


async def test_oversized_body_is_a_413_problem(api: Api) -> None:
    payload = b'{"name": "' + b"x" * MAX_BODY_BYTES + b'"}'
    response = await api.client.post(
        "/v1/accounts", content=payload, headers={"content-type": "application/json"}
    )
    assert_problem(response, 413)
    count = await api.pool.fetchval("SELECT count(*) FROM accounts WHERE length(name) > 64")
    assert count == 0


async def test_unexpected_error_is_a_500_problem_without_details(api_database_url: str) -> None:
    def exploding_factory(url: str, secret: str, policy: EgressPolicy) -> BotClient:
        raise RuntimeError("internal secret detail")

    pool = await create_pool(api_database_url, min_size=1, max_size=2)
    try:
        app = create_app(
            settings(api_database_url), pool=pool, bot_client_factory=exploding_factory
        )
        async with client_for(app) as client:
            created = await client.post("/v1/accounts", json={"name": "boom-" + str(id(app))})
            key = created.json()["api_key"]
            response = await client.post(
                "/v1/bots",
                json={"name": "boom", "url": "http://127.0.0.1:9/"},
                headers={"Authorization": f"Bearer {key}"},
            )
    finally:
        await pool.close()
    body = assert_problem(response, 500)
    assert "internal secret detail" not in response.text
    assert "Traceback" not in response.text
    assert body["type"] == "/problems/internal"


async def _answers(svc: object) -> None:
    return None


@pytest.fixture
def broker_and_workers_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    """Stand-ins for the broker and worker checks (tests/services/worker/matches/test_live.py uses real
    ones): these tests are about the database part."""
    from services.api.routes import health

    monkeypatch.setitem(health.CHECKS, "broker", _answers)
    monkeypatch.setitem(health.CHECKS, "workers", _answers)


async def test_health_ok(api: Api, broker_and_workers_answer: None) -> None:
    response = await api.client.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok", "workers": "ok"}


async def test_health_503_when_the_database_does_not_answer(
    api_database_url: str, broker_and_workers_answer: None
) -> None:
    pool = await create_pool(api_database_url, min_size=1, max_size=1)
    await pool.close()  # a pool that cannot answer
    app = create_app(settings(api_database_url), pool=pool)
    async with client_for(app) as client:
        body = assert_problem(await client.get("/health"), 503)
    assert body["checks"] == {"database": "error", "broker": "ok", "workers": "ok"}
    assert "database" in str(body["detail"])


async def test_openapi_document_is_served_with_operation_ids(api: Api) -> None:
    response = await api.client.get("/schema/openapi.json")
    assert response.status_code == 200
    spec = response.json()
    operations = {
        op["operationId"]: (path, method, op.get("tags"))
        for path, item in spec["paths"].items()
        for method, op in item.items()
    }
    assert set(operations) >= {
        "createAccount",
        "createBot",
        "listBots",
        "getBot",
        "updateBot",
        "deleteBot",
        "getHealth",
    }
    assert operations["createBot"][0] == "/v1/bots"
    assert operations["getBot"][2] == ["bots"]
    assert "BearerAuth" in spec["components"]["securitySchemes"]


async def test_app_opens_and_closes_its_own_pool(
    api_database_url: str, broker_and_workers_answer: None
) -> None:
    app = create_app(settings(api_database_url))
    async with app.lifespan(), client_for(app) as client:
        response = await client.get("/health")
        assert response.json()["database"] == "ok"
