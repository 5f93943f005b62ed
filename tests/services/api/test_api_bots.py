"""Bots: registration through a real handshake, refusals, profiles, pagination, owner-only."""

from __future__ import annotations

import socket

import pytest

from arena.sdk import BotServer, strategy_decider
from services.base.config import Secret
from services.base.secretbox import KEY_ID, SecretBox
from tests.services.helpers.api_helpers import Api, module_api, unique

pytestmark = pytest.mark.anyio

# one app for the module's tests (each makes its own accounts and bots from one address: budgets
# lifted); the network guard starts each test empty
anyio_backend, shared_api, api = module_api()
PROBLEM = "application/problem+json"


def free_port() -> int:
    """A loopback port with nothing listening (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_register_a_real_bot(api: Api, bot_server: BotServer) -> None:
    owner_id, headers = await api.account()
    name = unique("truquero")
    response = await api.client.post(
        "/v1/bots", json={"name": name, "url": bot_server.url}, headers=headers
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert set(body) == {
        "id",
        "name",
        "url",
        "status",
        "signing_secret",
        "open",
        "challenges",
        "min_timeout_ms",
    }
    assert body["min_timeout_ms"] is None  # states none unless its owner says
    assert body["open"] is False and body["challenges"] == "open"  # the defaults
    assert body["name"] == name and body["url"] == bot_server.url and body["status"] == "active"
    secret = body["signing_secret"]
    assert secret.startswith("whsec_")
    # the handshake really went to the bot on loopback
    assert api.guard.connected == [("127.0.0.1", bot_server.port)]

    row = await api.pool.fetchrow("SELECT * FROM bots WHERE id = $1", body["id"])
    assert row is not None and row["owner_id"] == owner_id
    stored = bytes(row["signing_secret_enc"])
    assert row["signing_key_id"] == KEY_ID
    assert secret.encode() not in stored  # not in the clear...
    box = SecretBox(Secret("s" * 48))
    assert box.decrypt(stored, body["id"]) == secret  # ...but recoverable for signing
    with pytest.raises(ValueError, match="authenticate"):
        box.decrypt(stored, body["id"] + 1)  # bound to this bot

    # the secret is shown once: reads never carry it
    profile = await api.client.get(f"/v1/bots/{body['id']}")
    assert "signing_secret" not in profile.json() and secret not in profile.text


async def test_register_through_a_host_name(api: Api, bot_server: BotServer) -> None:
    _, headers = await api.account()
    url = f"http://localhost:{bot_server.port}"
    bot = await api.bot(headers, url)
    assert bot["url"] == url
    assert api.guard.resolved == ["localhost"]
    assert api.guard.connected == [("127.0.0.1", bot_server.port)]


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://10.0.0.1/", "private"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("http://192.168.1.10:8080/", "private"),
        ("http://[::ffff:10.0.0.1]/", "10.0.0.1"),
        ("http://rebind.example:8080/", "resolves to a non-public address (private)"),
        ("http://metadata.google.internal/", "metadata"),
    ],
)
async def test_refused_address_is_422_without_any_connection(
    api: Api,
    url: str,
    reason: str,
) -> None:
    _, headers = await api.account()
    response = await api.client.post(
        "/v1/bots", json={"name": unique("sneaky"), "url": url}, headers=headers
    )
    assert response.status_code == 422, response.text
    assert response.headers["content-type"] == PROBLEM
    problem = response.json()
    assert problem["type"] == "/problems/bot-url-refused"
    assert reason in problem["detail"]
    assert "10.0.0.5" not in response.text  # a name's DNS answer is never echoed (finding 8)
    assert problem["errors"][0]["field"] == "body.url"
    assert api.guard.connected == []  # judged before any packet is sent
    assert api.guard.resolved in ([], ["rebind.example"])  # literals are never resolved
    count = await api.pool.fetchval("SELECT count(*) FROM bots WHERE url = $1", url)
    assert count == 0


async def test_failed_handshake_is_422_saying_why(api: Api) -> None:
    _, headers = await api.account()
    port = free_port()
    response = await api.client.post(
        "/v1/bots",
        json={"name": unique("ghost"), "url": f"http://127.0.0.1:{port}"},
        headers=headers,
    )
    assert response.status_code == 422
    problem = response.json()
    assert problem["type"] == "/problems/bot-handshake-failed"
    assert "connect" in problem["detail"]
    assert api.guard.connected == [("127.0.0.1", port)]


async def test_bad_url_is_422(api: Api) -> None:
    _, headers = await api.account()
    for url in ("ftp://127.0.0.1/", "not a url", ""):
        response = await api.client.post(
            "/v1/bots", json={"name": unique("b"), "url": url}, headers=headers
        )
        assert response.status_code == 422, (url, response.text)
        assert response.json()["errors"][0]["field"] == "body.url"
    response = await api.client.post(
        "/v1/bots", json={"name": unique("b"), "url": "http://127.0.0.1:99999/"}, headers=headers
    )
    assert response.status_code == 422
    assert response.json()["type"] == "/problems/bad-bot-url"
    assert api.guard.connected == []


async def test_duplicate_live_bot_name_is_409(api: Api, bot_server: BotServer) -> None:
    _, headers = await api.account()
    bot = await api.bot(headers, bot_server.url)
    response = await api.client.post(
        "/v1/bots", json={"name": str(bot["name"]).upper(), "url": bot_server.url}, headers=headers
    )
    assert response.status_code == 409
    assert response.json()["type"] == "/problems/name-taken"


async def test_profile_has_ratings_per_mode(api: Api, bot_server: BotServer) -> None:
    owner_id, headers = await api.account()
    bot = await api.bot(headers, bot_server.url)
    response = await api.client.get(f"/v1/bots/{bot['id']}")
    assert response.status_code == 200
    profile = response.json()
    assert profile["rating"] == {"1v1": 1500.0, "2v2": 1500.0, "2v2-individual": 1500.0}
    assert profile["owner_id"] == owner_id and profile["status"] == "active"
    await api.pool.execute(
        "INSERT INTO ratings (bot_id, mode, rating, matches, wins) VALUES ($1, '1v1', 1612.5, 3, 3)",
        bot["id"],
    )
    profile = (await api.client.get(f"/v1/bots/{bot['id']}")).json()
    assert profile["rating"] == {"1v1": 1612.5, "2v2": 1500.0, "2v2-individual": 1500.0}


async def test_unknown_bot_is_a_404_problem(api: Api) -> None:
    _, headers = await api.account()
    missing = 2**62
    for response in (
        await api.client.get(f"/v1/bots/{missing}"),
        await api.client.patch(f"/v1/bots/{missing}", json={"name": "x"}, headers=headers),
        await api.client.delete(f"/v1/bots/{missing}", headers=headers),
    ):
        assert response.status_code == 404
        assert response.headers["content-type"] == PROBLEM
        assert response.json()["type"] == "/problems/bot-not-found"


async def test_only_the_owner_may_change_or_delete(api: Api, bot_server: BotServer) -> None:
    _, owner = await api.account("owner")
    _, other = await api.account("other")
    bot = await api.bot(owner, bot_server.url)
    path = f"/v1/bots/{bot['id']}"
    for response in (
        await api.client.patch(path, json={"name": unique("stolen")}, headers=other),
        await api.client.delete(path, headers=other),
    ):
        assert response.status_code == 403
        assert response.headers["content-type"] == PROBLEM
        assert response.json()["status"] == 403
    row = await api.pool.fetchrow("SELECT name, status FROM bots WHERE id = $1", bot["id"])
    assert row is not None and row["name"] == bot["name"] and row["status"] == "active"


async def test_patch_name_and_url(api: Api, bot_server: BotServer) -> None:
    _, headers = await api.account()
    bot = await api.bot(headers, bot_server.url)
    path = f"/v1/bots/{bot['id']}"
    new_name = unique("renamed")
    response = await api.client.patch(path, json={"name": new_name}, headers=headers)
    assert response.status_code == 200, response.text
    assert response.json()["name"] == new_name and response.json()["url"] == bot_server.url

    # a refused URL is rejected and nothing changes
    response = await api.client.patch(path, json={"url": "http://10.1.2.3/"}, headers=headers)
    assert response.status_code == 422
    assert (await api.pool.fetchval("SELECT url FROM bots WHERE id = $1", bot["id"])) == (
        bot_server.url
    )

    # a new URL re-runs the handshake against the new server
    with BotServer(strategy_decider("random", seed=2), name="second", port=0) as second:
        second.start()
        connected_before = len(api.guard.connected)
        response = await api.client.patch(path, json={"url": second.url}, headers=headers)
        assert response.status_code == 200, response.text
        assert response.json()["url"] == second.url
        assert api.guard.connected[connected_before:] == [("127.0.0.1", second.port)]


async def test_delete_is_soft(api: Api, bot_server: BotServer) -> None:
    _, headers = await api.account()
    bot = await api.bot(headers, bot_server.url)
    path = f"/v1/bots/{bot['id']}"
    response = await api.client.delete(path, headers=headers)
    assert response.status_code == 204 and response.content == b""
    row = await api.pool.fetchrow("SELECT status, deleted_at FROM bots WHERE id = $1", bot["id"])
    assert row is not None and row["status"] == "deleted" and row["deleted_at"] is not None
    # the profile still resolves (history), the list no longer shows it, a second delete is 404
    profile = (await api.client.get(path)).json()
    assert profile["status"] == "deleted" and profile["deleted_at"] is not None
    assert (await api.client.delete(path, headers=headers)).status_code == 404
    assert (await api.client.patch(path, json={"name": "x"}, headers=headers)).status_code == 404
    ids = await _all_ids(api, 100)
    assert bot["id"] not in ids
    # its name is free again
    again = await api.client.post(
        "/v1/bots", json={"name": bot["name"], "url": bot_server.url}, headers=headers
    )
    assert again.status_code == 201


async def _all_ids(client_api: Api, limit: int) -> list[int]:
    ids: list[int] = []
    cursor: int | None = None
    while True:
        params = {"limit": limit} | ({"cursor": cursor} if cursor is not None else {})
        response = await client_api.client.get("/v1/bots", params=params)
        assert response.status_code == 200
        page = response.json()
        assert len(page["items"]) <= limit
        ids.extend(item["id"] for item in page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            return ids
        assert cursor == page["items"][-1]["id"]


async def test_pagination_follows_next_cursor(api: Api, bot_server: BotServer) -> None:
    _, headers = await api.account()
    created: list[int] = []
    for _ in range(5):
        bot_id = (await api.bot(headers, bot_server.url, "page"))["id"]
        assert isinstance(bot_id, int)
        created.append(bot_id)
    ids = await _all_ids(api, 2)
    assert ids == sorted(ids, reverse=True)  # newest first, no repeats
    assert len(ids) == len(set(ids))
    assert [i for i in ids if i in created] == sorted(created, reverse=True)
    # the first page of two holds the two newest bots
    first = (await api.client.get("/v1/bots", params={"limit": 2})).json()
    assert [item["id"] for item in first["items"]] == ids[:2]
    assert first["next_cursor"] == ids[1]
    assert all(
        item["rating"] == {"1v1": 1500.0, "2v2": 1500.0, "2v2-individual": 1500.0}
        for item in first["items"]
    )
    # default page size is 20
    default = (await api.client.get("/v1/bots")).json()
    assert len(default["items"]) == min(20, len(ids))


async def test_patch_to_a_taken_name_is_409_and_empty_patch_changes_nothing(
    api: Api, bot_server: BotServer
) -> None:
    _, headers = await api.account()
    first = await api.bot(headers, bot_server.url)
    second = await api.bot(headers, bot_server.url)
    path = f"/v1/bots/{second['id']}"
    response = await api.client.patch(path, json={"name": first["name"]}, headers=headers)
    assert response.status_code == 409
    assert response.json()["type"] == "/problems/name-taken"
    response = await api.client.patch(path, json={}, headers=headers)
    assert response.status_code == 200
    assert response.json()["name"] == second["name"]
    assert (await api.client.patch(path, json={"name": "  x"}, headers=headers)).status_code == 422


async def test_a_server_that_is_not_a_bot_fails_the_handshake(api: Api) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class NotABot(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b'{"hello": "world"}'
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), NotABot)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        _, headers = await api.account()
        url = f"http://127.0.0.1:{server.server_address[1]}"
        response = await api.client.post(
            "/v1/bots", json={"name": unique("impostor"), "url": url}, headers=headers
        )
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert response.status_code == 422
    problem = response.json()
    assert problem["type"] == "/problems/bot-handshake-failed"
    assert "did not answer with bot info" in problem["detail"]
    assert "apiversion" in problem["detail"]


async def test_list_filters_by_owner_and_by_name_ignoring_case(
    api: Api, bot_server: BotServer
) -> None:
    owner, headers = await api.account()
    other_owner, other_headers = await api.account()
    mine = [await api.bot(headers, bot_server.url, "own") for _ in range(2)]
    theirs = await api.bot(other_headers, bot_server.url, "their")
    page = (await api.client.get("/v1/bots", params={"owner": owner})).json()
    assert [item["id"] for item in page["items"]] == [mine[1]["id"], mine[0]["id"]]
    assert page["next_cursor"] is None
    first = (await api.client.get("/v1/bots", params={"owner": owner, "limit": 1})).json()
    assert first["next_cursor"] == mine[1]["id"]
    named = await api.client.get("/v1/bots", params={"name": str(theirs["name"]).upper()})
    assert [item["id"] for item in named.json()["items"]] == [theirs["id"]]
    assert named.json()["items"][0]["owner_id"] == other_owner
    both = {"owner": owner, "name": theirs["name"]}
    assert (await api.client.get("/v1/bots", params=both)).json()["items"] == []
    await api.client.delete(f"/v1/bots/{theirs['id']}", headers=other_headers)
    gone = await api.client.get("/v1/bots", params={"name": theirs["name"]})
    assert gone.json()["items"] == []
    # a NUL once reached PostgreSQL (a 500); no bot's name holds control characters
    for odd in ("a\x00b", "\x00", "x\u202ey", "line\nbreak"):
        none = await api.client.get("/v1/bots", params={"name": odd})
        assert none.status_code == 200 and none.json()["items"] == [], odd
    too_long = await api.client.get("/v1/bots", params={"name": "x" * 65})
    assert too_long.status_code == 400 and too_long.json()["errors"][0]["field"] == "query.name"
