"""``GET /metrics``: it counts the requests that were really made (by route TEMPLATE and status,
with latencies), the refusals of the rate limits, and it is refused to whom the settings do not
name (``TRUCO_METRICS_ALLOW``, ``TRUCO_METRICS_TOKEN``). Every answer carries a request id,
which is on the log lines the request caused."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from litestar import get
from prometheus_client.parser import text_string_to_metric_families

from services.api.app import create_api
from services.api.ops.metrics_route import address_allowed, networks
from services.base.config import MetricsSettings, RateLimits, Secret
from services.base.log_format import REQUEST_ID, JsonLines, configure_logging
from services.db.pool import create_pool
from tests.services.helpers.api_helpers import (
    FrozenCounter,
    NetworkGuard,
    app_client,
    client_for,
    settings,
    unique,
)

pytestmark = pytest.mark.anyio
TOKEN = "t" * 40

log = logging.getLogger("tests.metrics")


@get("/test-logs-a-line", include_in_schema=False)
async def logs_a_line() -> str:
    """A handler that logs one line and answers the request id it runs under."""
    log.warning("a line from inside a request")
    return REQUEST_ID.get() or ""


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def samples(text: str) -> Samples:
    found: Samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(found: Samples, name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


@pytest.fixture
async def client(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[httpx.AsyncClient]:
    fields = {
        "metrics": MetricsSettings(token=Secret(TOKEN)),
        "rate_limits": RateLimits(health_per_minute=2, accounts_per_hour=1_000_000),
    }
    pool = await create_pool(api_database_url, min_size=1, max_size=2)
    try:
        app = create_api(
            settings(api_database_url, **fields),
            pool=pool,
            bot_client_factory=guard.factory,
            rate_counter=FrozenCounter(),
            pages=[logs_a_line],  # the API alone, with one more handler
        )
        async with client_for(app) as http:
            yield http
    finally:
        await pool.close()


async def scrape(client: httpx.AsyncClient) -> Samples:
    response = await client.get("/metrics")  # the test client's address is 127.0.0.1
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=")
    assert response.headers["content-type"].count("charset") == 1
    return samples(response.text)


async def test_metrics_count_the_requests_made_by_route_template_and_status(
    client: httpx.AsyncClient,
) -> None:
    before = await scrape(client)
    name = unique("metrics")
    created = await client.post("/v1/accounts", json={"name": name})
    assert created.status_code == 201
    for _ in range(3):
        assert (await client.get("/v1/bots")).status_code == 200
    assert (await client.get("/v1/bots/987654321")).status_code == 404
    assert (await client.get("/v1/bots/555555555")).status_code == 404
    for path in ("/no/such/page-1", "/no/such/page-2", "/wp-admin.php"):
        assert (await client.get(path)).status_code == 404
    after = await scrape(client)

    def grew(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    requests = "truco_http_requests_total"
    assert grew(requests, method="POST", route="/v1/accounts", status="201") == 1
    assert grew(requests, method="GET", route="/v1/bots", status="200") == 3
    # one series for every bot id: the template, never the raw path
    assert grew(requests, method="GET", route="/v1/bots/{bot_id}", status="404") == 2
    assert grew(requests, method="GET", route="unmatched", status="404") == 3
    # the first scrape itself is counted by the second
    assert grew(requests, method="GET", route="/metrics", status="200") == 1
    assert not any("987654321" in str(key) or "wp-admin" in str(key) for key in after)
    latency = "truco_http_request_duration_seconds_count"
    assert grew(latency, method="GET", route="/v1/bots") == 3
    assert grew(latency, method="GET", route="/v1/bots/{bot_id}") == 2
    # a latency is a real duration: the sum grew, and no more than the buckets allow
    total = grew("truco_http_request_duration_seconds_sum", method="GET", route="/v1/bots")
    assert 0 < total < 3 * 10


async def test_rate_limit_refusals_are_counted_by_budget(client: httpx.AsyncClient) -> None:
    before = await scrape(client)
    answers = [(await client.get("/health")).status_code for _ in range(4)]
    assert answers.count(429) == 2, answers  # a budget of 2 a minute
    after = await scrape(client)
    refusals = "truco_rate_limit_refusals_total"
    assert value(after, refusals, budget="health") - value(before, refusals, budget="health") == 2


def test_a_quota_refusal_is_counted_by_its_problem_slug() -> None:
    from services.api.problems import ProblemError
    from services.metrics.catalog import RATE_LIMIT_REFUSALS

    counted = RATE_LIMIT_REFUSALS.labels("too-many-widgets")
    before = counted._value.get()
    ProblemError(429, "too many widgets", slug="too-many-widgets")
    ProblemError(409, "a conflict is no refusal", slug="too-many-widgets")
    assert counted._value.get() == before + 1


async def test_metrics_are_refused_off_the_allowed_addresses_without_the_token(
    api_database_url: str, guard: NetworkGuard
) -> None:
    fields = {"metrics": MetricsSettings(token=Secret(TOKEN), allow=("10.0.0.0/8",))}
    async with app_client(api_database_url, guard, pool_size=1, settings_fields=fields) as (
        _,
        client,
    ):
        refused = await client.get("/metrics")
        assert refused.status_code == 403
        assert refused.headers["content-type"] == "application/problem+json"
        assert "TRUCO_METRICS_ALLOW" in refused.json()["detail"]
        assert "truco_" not in refused.text
        wrong = await client.get("/metrics", headers={"Authorization": "Bearer " + "x" * 40})
        assert wrong.status_code == 403
        almost = await client.get("/metrics", headers={"Authorization": "Bearer " + TOKEN[:-1]})
        assert almost.status_code == 403
        allowed = await client.get("/metrics", headers={"Authorization": "Bearer " + TOKEN})
        assert allowed.status_code == 200
        assert "truco_http_requests_total" in allowed.text
        # not part of the public API's description
        spec = (await client.get("/schema/openapi.json")).json()
        assert "/metrics" not in spec["paths"]


async def test_without_a_token_only_the_allowed_addresses_read(
    api_database_url: str, guard: NetworkGuard
) -> None:
    fields = {"metrics": MetricsSettings(allow=("192.168.0.0/16",))}
    async with app_client(api_database_url, guard, pool_size=1, settings_fields=fields) as (
        _,
        client,
    ):
        # no token is configured: no bearer string opens it
        for header in ("Bearer ", "Bearer None", "Bearer " + TOKEN):
            answer = await client.get("/metrics", headers={"Authorization": header})
            assert answer.status_code == 403


def test_allowed_addresses_hold_ipv6_and_networks() -> None:
    allowed = networks(("127.0.0.0/8", "::1/128", "2001:db8::/32"))
    assert address_allowed("127.0.0.1", allowed)
    assert address_allowed("::1", allowed)
    assert address_allowed("2001:db8:1:2::7", allowed)
    assert address_allowed("2001:db8:1:2::/64", allowed)  # an address counted as its /64
    assert not address_allowed("2001:db9::1", allowed)
    assert not address_allowed("10.1.2.3", allowed)
    assert not address_allowed("unknown", allowed)
    assert not address_allowed("::ffff:10.0.0.1", networks(("127.0.0.0/8",)))


@pytest.fixture
def json_log() -> Iterator[io.StringIO]:
    stream = io.StringIO()
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    configure_logging("json", logging.INFO, stream)
    try:
        yield stream
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])


async def test_every_answer_has_a_request_id_and_its_log_lines_carry_it(
    client: httpx.AsyncClient, json_log: io.StringIO
) -> None:
    answer = await client.get("/test-logs-a-line")
    assert answer.status_code == 200
    request_id = answer.headers["x-request-id"]
    assert len(request_id) == 16 and answer.text == request_id
    lines = [json.loads(line) for line in json_log.getvalue().splitlines()]
    ours = [line for line in lines if line["message"] == "a line from inside a request"]
    assert len(ours) == 1
    assert ours[0]["request_id"] == request_id and ours[0]["level"] == "WARNING"
    assert "match_id" not in ours[0]
    # a proxy's well-formed id is kept; a malformed one (a newline, too long) is replaced
    kept = await client.get("/v1/bots", headers={"X-Request-ID": "nginx-4f2a.9_b"})
    assert kept.headers["x-request-id"] == "nginx-4f2a.9_b"
    for bad in (b"a b", b"x" * 65, "évil".encode(), b"", b"a\x00b"):
        replaced = await client.get("/v1/bots", headers={b"X-Request-ID": bad})
        assert replaced.headers["x-request-id"].encode() != bad
        assert len(replaced.headers["x-request-id"]) == 16
    # two requests never share an id
    again = await client.get("/test-logs-a-line")
    assert again.headers["x-request-id"] != request_id
    assert REQUEST_ID.get() is None  # nothing leaks out of a request


def test_a_json_line_is_one_line_whatever_the_message_holds() -> None:
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "two\nlines\x1b[31m", None, None)
    try:
        raise ValueError("boom")
    except ValueError:
        import sys

        record.exc_info = sys.exc_info()
    line = JsonLines().format(record)
    assert "\n" not in line
    parsed = json.loads(line)
    assert parsed["message"] == "two\nlines\x1b[31m"
    assert "ValueError: boom" in parsed["exc"]
    assert parsed["ts"].endswith("Z")
