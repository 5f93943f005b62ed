"""Hostile input never gets a 500 and always gets a problem document: oversized bodies (413),
deeply nested JSON (400, fast), unicode names (stored and returned exactly), SQL-looking strings
(stored literally, harmless), very long strings (422), wrong content types, invalid UTF-8; and
rate limits hold exactly under a concurrent burst.

Every operation with a request body is taken from the OpenAPI document, so a new one is covered.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from arena.sdk import BotServer
from services.api.app import MAX_BODY_BYTES
from services.base.config import RateLimits
from tests.security.helpers import PROBLEM, Operation, assert_problem, operations
from tests.services.helpers.api_helpers import (
    Api,
    FrozenCounter,
    NetworkGuard,
    app_client,
    module_api,
    unique,
)

pytestmark = pytest.mark.anyio
BODY_OPERATIONS = [op for op in operations() if op.has_body]
ROOT = Path(__file__).resolve().parents[2]

# control and format characters (a tab, an RTL override, zero-width joiners) are refused:
# tests/security/test_abuse_input.py
UNICODE_NAMES = [
    "🤖 bot 🂡",  # emoji (astral plane)
    "בוט ערבי مرحبا",  # right-to-left scripts
    "Zalgo Z\u0351\u0300\u0300\u036ba\u0308\u0301",  # combining marks
    "e\u0301 vs \u00e9",  # NFD vs NFC: stored as sent (compared after NFKC)
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ℌ𝔞𝔫𝔡",
]
SQL_NAMES = [
    "'; DROP TABLE bots; --",
    "' OR 1=1 --",
    "Robert'); DROP TABLE accounts;--",
    '" OR ""="',
    "1; SELECT pg_sleep(5)",
    "$1 $$ \\x00 E'\\\\'",
]


def path_of(op: Operation) -> str:
    return re.sub(r"\{[^}]+\}", "1", op.path)


def ids(ops: list[Operation]) -> list[str]:
    return [op.operation_id for op in ops]


# one app for the module's tests, budgets lifted (every test makes accounts from one address;
# the limits themselves are tested below, each on an app of its own: ``limited``)
anyio_backend, shared_api, api = module_api()


async def _key(api: Api) -> dict[str, str]:
    return (await api.account("hostile"))[1]


@pytest.mark.parametrize("op", BODY_OPERATIONS, ids=ids(BODY_OPERATIONS))
async def test_oversized_body_is_413(api: Api, op: Operation) -> None:
    headers = {**(await _key(api)), "content-type": "application/json"}
    payload = b'{"name": "' + b"x" * (MAX_BODY_BYTES + 1) + b'"}'
    response = await api.client.request(
        op.method.upper(), path_of(op), content=payload, headers=headers
    )
    assert_problem(response, 413)
    # a body that only claims to be huge, and a streamed one without a length
    response = await api.client.request(
        op.method.upper(),
        path_of(op),
        content=_chunks(MAX_BODY_BYTES * 4),
        headers=headers,
    )
    assert_problem(response, 413)


async def _chunks(total: int) -> AsyncIterator[bytes]:
    yield b'{"name": "'
    for _ in range(total // 8192):
        yield b"y" * 8192
    yield b'"}'


DEEP = {
    "array": b"[" * 10_000 + b"]" * 10_000,
    "object": b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    "inside a field": b'{"name": ' + b"[" * 10_000 + b"]" * 10_000 + b"}",
}


@pytest.mark.parametrize("op", BODY_OPERATIONS, ids=ids(BODY_OPERATIONS))
async def test_deep_json_is_refused_and_leaves_the_server_serving(api: Api, op: Operation) -> None:
    headers = {**(await _key(api)), "content-type": "application/json"}
    for payload in DEEP.values():  # refused as a problem, not a recursion error's 500
        response = await api.client.request(
            op.method.upper(), path_of(op), content=payload, headers=headers
        )
        assert_problem(response, 400)
    assert (await api.client.get("/v1/bots")).status_code == 200


async def test_deep_json_is_a_400_problem(api: Api) -> None:
    headers = {**(await _key(api)), "content-type": "application/json"}
    for payload in DEEP.values():
        response = await api.client.post("/v1/accounts", content=payload, headers=headers)
        assert_problem(response, 400)


async def test_moderately_nested_json_is_a_clean_4xx(api: Api) -> None:
    for depth in (50, 200, 500):
        payload = b'{"name": ' + b"[" * depth + b"]" * depth + b"}"
        response = await api.client.post(
            "/v1/accounts", content=payload, headers={"content-type": "application/json"}
        )
        assert_problem(response, 400, 422)


async def test_unicode_names_round_trip_exactly(api: Api, bot_server: BotServer) -> None:
    for name in UNICODE_NAMES:
        sent = name + unique("")
        account = await api.client.post("/v1/accounts", json={"name": sent})
        assert account.status_code == 201, account.text
        assert account.json()["name"] == sent
        assert (
            await api.pool.fetchval("SELECT name FROM accounts WHERE id = $1", account.json()["id"])
            == sent
        )
        headers = {"Authorization": f"Bearer {account.json()['api_key']}"}
        bot = await api.client.post(
            "/v1/bots", json={"name": name, "url": bot_server.url}, headers=headers
        )
        assert bot.status_code == 201, bot.text
        assert bot.json()["name"] == name
        profile = await api.client.get(f"/v1/bots/{bot.json()['id']}")
        assert profile.json()["name"] == name
        stored = await api.pool.fetchval("SELECT name FROM bots WHERE id = $1", bot.json()["id"])
        assert stored == name
        cup = await api.client.post(
            "/v1/tournaments",
            json={"name": name, "format": "swiss", "mode": "1v1"},
            headers=headers,
        )
        assert cup.status_code == 201, cup.text
        read = await api.client.get(f"/v1/tournaments/{cup.json()['id']}")
        assert read.json()["name"] == name


async def test_nul_byte_in_a_name_is_a_clean_422(api: Api) -> None:
    for body in (b'{"name": "nul\\u0000name"}', b'{"name": "\\u0000"}'):
        response = await api.client.post(
            "/v1/accounts", content=body, headers={"content-type": "application/json"}
        )
        assert_problem(response, 422)


async def test_nul_byte_never_stores_a_truncated_name(api: Api) -> None:
    body = b'{"name": "nul-trunc\\u0000rest"}'
    response = await api.client.post(
        "/v1/accounts", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code != 201 and response.headers["content-type"] == PROBLEM
    assert (
        await api.pool.fetchval("SELECT count(*) FROM accounts WHERE name LIKE 'nul-trunc%'") == 0
    )


async def test_sql_looking_strings_are_stored_literally(api: Api, bot_server: BotServer) -> None:
    before = await _tables(api)
    for text in SQL_NAMES:
        suffix = unique("")
        account = await api.client.post("/v1/accounts", json={"name": text + suffix})
        assert account.status_code == 201, account.text
        assert account.json()["name"] == text + suffix
        headers = {"Authorization": f"Bearer {account.json()['api_key']}"}
        bot = await api.client.post(
            "/v1/bots", json={"name": text + suffix, "url": bot_server.url}, headers=headers
        )
        assert bot.status_code == 201, bot.text
        assert (await api.client.get(f"/v1/bots/{bot.json()['id']}")).json()[
            "name"
        ] == text + suffix
        cup = await api.client.post(
            "/v1/tournaments",
            json={"name": text, "format": "swiss", "mode": "1v1"},
            headers=headers,
        )
        assert cup.status_code == 201, cup.text
        assert (await api.client.get(f"/v1/tournaments/{cup.json()['id']}")).json()["name"] == text
        stored = await api.pool.fetchval(
            "SELECT name FROM accounts WHERE id = $1", account.json()["id"]
        )
        assert stored == text + suffix
    # in parameters too: never a 500, never an effect
    for query in ("status=' OR 1=1 --", "cursor=1 OR 1=1", "limit=1;DROP TABLE bots"):
        assert_problem(await api.client.get(f"/v1/tournaments?{query}"), 400)
    assert_problem(await api.client.get("/v1/bots/1;DROP TABLE bots"), 404)
    assert_problem(await api.client.get("/v1/leaderboards/1v1' OR '1'='1"), 400, 404)
    after = await _tables(api)
    assert set(after) == set(before)
    assert after["bots"] >= before["bots"] + len(SQL_NAMES)
    assert after["accounts"] >= before["accounts"] + len(SQL_NAMES)


async def _tables(api: Api) -> dict[str, int]:
    names = await api.pool.fetch(
        "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1"
    )
    counts = {}
    for (name,) in names:
        counts[name] = await api.pool.fetchval(f'SELECT count(*) FROM "{name}"')
    assert {"accounts", "bots", "tournaments", "matches"} <= set(counts)
    return counts


async def test_very_long_strings_are_422(api: Api) -> None:
    headers = await _key(api)
    for length in (65, 1000, 30_000):
        body = assert_problem(
            await api.client.post("/v1/accounts", json={"name": "x" * length}), 422
        )
        assert body["errors"][0]["field"] == "body.name"
        assert_problem(
            await api.client.post(
                "/v1/bots",
                json={"name": "n" * length, "url": "http://127.0.0.1:1/"},
                headers=headers,
            ),
            422,
        )
    url = "http://127.0.0.1/" + "a" * 3000
    body = assert_problem(
        await api.client.post("/v1/bots", json={"name": "longurl", "url": url}, headers=headers),
        422,
    )
    assert body["errors"][0]["field"] == "body.url"
    # a huge header is a 401, not a crash
    huge = {"Authorization": "Bearer ta_" + "k" * 8000}
    assert_problem(await api.client.post("/v1/bots", json={}, headers=huge), 401)
    assert await api.pool.fetchval("SELECT count(*) FROM accounts WHERE length(name) > 64") == 0


CONTENT_TYPES = [
    "text/plain",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/xml",
    "application/json; charset=latin-1",
    "application/jsonx",
    "",
]


async def test_a_body_that_is_not_json_is_a_415_and_changes_nothing(api: Api) -> None:
    """Only JSON bodies are decoded: a form or text/plain body (what a page on another site can
    POST from a browser without a CORS preflight) is refused before the handler runs."""
    before = await api.pool.fetchval("SELECT count(*) FROM accounts")
    for content_type in CONTENT_TYPES:
        for payload in (b'{"name": "' + unique("ct").encode() + b'"}', b"name=x&y=z", b"<a/>"):
            headers = {"content-type": content_type} if content_type else {}
            response = await api.client.post("/v1/accounts", content=payload, headers=headers)
            assert_problem(response, 415)
            assert response.headers["accept"] == "application/json"
            assert "application/json" in response.json()["detail"]
    assert await api.pool.fetchval("SELECT count(*) FROM accounts") == before


@pytest.mark.parametrize("op", BODY_OPERATIONS, ids=ids(BODY_OPERATIONS))
async def test_every_body_operation_refuses_a_form(api: Api, op: Operation) -> None:
    headers = {**(await _key(api)), "content-type": "application/x-www-form-urlencoded"}
    response = await api.client.request(
        op.method.upper(), path_of(op), content=b"name=x", headers=headers
    )
    assert_problem(response, 415)
    assert "415" in op.statuses, f"{op.operation_id} does not document its 415"


async def test_json_with_a_utf8_charset_or_a_json_suffix_is_accepted(api: Api) -> None:
    for content_type in (
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/x+json",
    ):
        name = unique("ok")
        response = await api.client.post(
            "/v1/accounts",
            content=b'{"name": "' + name.encode() + b'"}',
            headers={"content-type": content_type},
        )
        assert response.status_code == 201, (content_type, response.text)


async def test_operations_without_a_body_need_no_content_type(api: Api) -> None:
    """``POST .../start`` takes no body: no Content-Type is needed (nor checked)."""
    headers = await _key(api)
    created = await api.client.post(
        "/v1/tournaments",
        json={"name": unique("ct"), "format": "swiss", "mode": "1v1"},
        headers=headers,
    )
    assert created.status_code == 201, created.text
    response = await api.client.post(
        f"/v1/tournaments/{created.json()['id']}/start", headers=headers
    )
    assert response.status_code == 409, response.text  # too few entrants: the handler ran


INVALID_UTF8 = [
    b'{"name": "\xff\xfe"}',
    b'{"name": "\xc3\x28"}',
    b'{"name": "\xed\xa0\x80"}',
    b"\x80",
]


@pytest.mark.parametrize("op", BODY_OPERATIONS, ids=ids(BODY_OPERATIONS))
async def test_invalid_utf8_is_a_400_problem(api: Api, op: Operation) -> None:
    headers = {**(await _key(api)), "content-type": "application/json"}
    for payload in INVALID_UTF8:
        response = await api.client.request(
            op.method.upper(), path_of(op), content=payload, headers=headers
        )
        assert_problem(response, 400)


async def test_overlong_tournament_settings_are_a_422(api: Api) -> None:
    headers = await _key(api)
    response = await api.client.post(
        "/v1/tournaments",
        json={
            "name": unique("long"),
            "format": "round_robin",
            "mode": "1v1",
            "games_per_match": 40,
            "timeout_ms": 30000,
        },
        headers=headers,
    )
    assert_problem(response, 422)
    assert response.json()["type"] == "/problems/match-too-long"
    assert response.json()["errors"][0]["field"] == "body.games_per_match"


async def test_an_overlong_challenge_is_a_422(api: Api, bot_server: BotServer) -> None:
    """A challenge plays under the default timeout (1 s) and time bank (30 s): 60 games of
    1v1 could take 60 x (2 x 30 + 4 x 1) s, over the workers' cap; nothing is created."""
    _, headers = await api.account("challenger")
    bots = [await api.bot(headers, bot_server.url) for _ in range(2)]
    body = {"bot_a": bots[0]["id"], "bot_b": bots[1]["id"], "games_per_match": 60}
    response = await api.client.post("/v1/challenges", json=body, headers=headers)
    assert_problem(response, 422)
    assert response.json()["type"] == "/problems/match-too-long"
    assert response.json()["errors"][0]["field"] == "body.games_per_match"
    count = "SELECT count(*) FROM match_entrants WHERE bot_id = ANY($1::bigint[])"
    assert await api.pool.fetchval(count, [b["id"] for b in bots]) == 0
    body["games_per_match"] = 2
    response = await api.client.post("/v1/challenges", json=body, headers=headers)
    assert response.status_code == 202, response.text
    assert await api.pool.fetchval(count, [b["id"] for b in bots]) == 2


@pytest.fixture
async def limited(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[httpx.AsyncClient]:
    limits = RateLimits(per_key_per_minute=7, accounts_per_minute=3)
    options = {"rate_limits": limits, "rate_counter": FrozenCounter()}
    async with app_client(api_database_url, guard, pool_size=8, **options) as (_, client):
        yield client


async def test_rate_limit_holds_exactly_under_a_concurrent_burst(
    limited: httpx.AsyncClient,
) -> None:
    created = await limited.post("/v1/accounts", json={"name": unique("burst")})
    assert created.status_code == 201  # one request of the address's budget
    key = {"Authorization": f"Bearer {created.json()['api_key']}"}
    paths = ["/v1/bots", "/v1/tournaments", "/v1/leaderboards/1v1"] * 10
    answers = await asyncio.gather(*(limited.get(p, headers=key) for p in paths))
    allowed = [r for r in answers if r.status_code != 429]
    refused = [r for r in answers if r.status_code == 429]
    assert len(allowed) == 7, [r.status_code for r in answers]
    assert all(r.status_code == 200 for r in allowed)
    assert len(refused) == len(paths) - 7
    for response in refused:
        assert_problem(response, 429)
        assert response.headers["retry-after"] == "30"
    # an unknown key counts against the address (6 requests left), not a budget of its own:
    # a burst of bad-key writes is limited too (no free 401 probing)
    probe = {"Authorization": "Bearer ta_probing-key"}
    writes = await asyncio.gather(
        *(limited.post("/v1/bots", json={}, headers=probe) for _ in range(12))
    )
    assert sorted(r.status_code for r in writes) == [401] * 6 + [429] * 6


async def test_account_creation_burst_is_limited_per_address(limited: httpx.AsyncClient) -> None:
    answers = await asyncio.gather(
        *(limited.post("/v1/accounts", json={"name": unique("burst")}) for _ in range(10))
    )
    statuses = sorted(r.status_code for r in answers)
    assert statuses == [201] * 3 + [429] * 7, statuses
    for response in answers:
        if response.status_code == 429:
            assert_problem(response, 429)
            assert int(response.headers["retry-after"]) >= 1
