"""The authorization matrix: EVERY write operation of the OpenAPI document (discovered from it,
so a new endpoint must be added here or the matrix test fails) is called with no key, a
malformed key and a well-formed unknown key (401 problem with ``WWW-Authenticate``), and, where
the resource has an owner, with another account's key (403 problem). After the refused calls
the owner's bot and tournament are unchanged."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from arena.sdk import BotServer
from services.api.auth import new_api_key
from services.db import moderation as db_moderation
from tests.security.helpers import assert_problem, write_operations
from tests.services.helpers.api_helpers import Api, module_api, unique

pytestmark = pytest.mark.anyio

# one app for the module's tests (each still makes its own accounts, bots and tournament); the
# budgets are lifted, as the 401 tests fail authentication over and over from one address
anyio_backend, shared_api, api = module_api()


@dataclass
class World:
    """Resources of the owner, and an intruder with a key of its own."""

    owner: dict[str, str]  # an admin too (the admin operations' "owner")
    intruder: dict[str, str]
    intruder_id: int
    bot_id: int
    other_bot_id: int  # the intruder's own bot (a valid bot_b / bot_id for the intruder)
    tournament_id: int
    test_id: int  # an SPRT test of the owner's between two other bots of theirs
    bot_url: str


# operationId -> (path, json body) built from the world. ``owned``: the intruder gets a 403.
Request = Callable[[World], tuple[str, dict[str, Any] | None]]
KNOWN: dict[str, tuple[Request, bool]] = {
    "createBot": (lambda w: ("/v1/bots", {"name": unique("authz"), "url": w.bot_url}), False),
    "updateBot": (lambda w: (f"/v1/bots/{w.bot_id}", {"name": unique("renamed")}), True),
    "deleteBot": (lambda w: (f"/v1/bots/{w.bot_id}", None), True),
    "rotateBotSecret": (lambda w: (f"/v1/bots/{w.bot_id}/secret", {}), True),
    "createTournament": (
        lambda w: ("/v1/tournaments", {"name": unique("cup"), "format": "swiss", "mode": "1v1"}),
        False,
    ),
    "enterTournament": (
        lambda w: (f"/v1/tournaments/{w.tournament_id}/entries", {"bot_id": w.bot_id}),
        True,
    ),
    "withdrawTournamentEntry": (
        lambda w: (f"/v1/tournaments/{w.tournament_id}/entries/{w.bot_id}", None),
        True,
    ),
    "startTournament": (lambda w: (f"/v1/tournaments/{w.tournament_id}/start", None), True),
    "cancelTournament": (lambda w: (f"/v1/tournaments/{w.tournament_id}/cancel", None), True),
    "createChallenge": (
        lambda w: ("/v1/challenges", {"bot_a": w.bot_id, "bot_b": w.other_bot_id}),
        True,
    ),
    "createTest": (
        lambda w: ("/v1/tests", {"bot_a": w.bot_id, "bot_b": w.other_bot_id}),
        True,
    ),
    "cancelTest": (lambda w: (f"/v1/tests/{w.test_id}/cancel", None), True),
    "joinLadder": (lambda w: ("/v1/ladders/1v1/entries", {"bot_id": w.bot_id}), True),
    "updateLadderEntry": (
        lambda w: (f"/v1/ladders/1v1/entries/{w.bot_id}", {"resume": True}),
        True,
    ),
    "leaveLadder": (lambda w: (f"/v1/ladders/1v1/entries/{w.bot_id}", None), True),
    # an account's own keys (``me``): no owner to tell apart; another's key id is a 404
    # (test_another_accounts_key_cannot_be_revoked)
    "createMyKey": (lambda w: ("/v1/accounts/me/keys", None), False),
    "rotateMyKey": (lambda w: ("/v1/accounts/me/keys/rotate", None), False),
    "revokeMyKey": (lambda w: ("/v1/accounts/me/keys/1", None), False),
    # the admins' operations (docs/moderation.md): the world's owner is an admin, the intruder
    # is not (403); they act on the intruder's bot and account
    "disqualifyBot": (
        lambda w: (f"/v1/admin/bots/{w.other_bot_id}/disqualify", {"reason": "authz"}),
        True,
    ),
    "setBotName": (
        lambda w: (f"/v1/admin/bots/{w.other_bot_id}/name", {"hide": True, "reason": "authz"}),
        True,
    ),
    "suspendAccount": (
        lambda w: (f"/v1/admin/accounts/{w.intruder_id}/suspend", {"reason": "authz"}),
        True,
    ),
    "reinstateAccount": (
        lambda w: (f"/v1/admin/accounts/{w.intruder_id}/reinstate", {"reason": "authz"}),
        True,
    ),
    "setAccountName": (
        lambda w: (f"/v1/admin/accounts/{w.intruder_id}/name", {"hide": True, "reason": "a"}),
        True,
    ),
    "resolveReport": (
        lambda w: (
            "/v1/admin/reports/987654321/resolve",
            {"outcome": "dismissed", "reason": "authz"},
        ),
        True,
    ),
    "annulLadderFlag": (
        lambda w: ("/v1/admin/ladder-flags/987654321/annul", {"reason": "authz"}),
        True,
    ),
    "dismissLadderFlag": (
        lambda w: ("/v1/admin/ladder-flags/987654321/dismiss", {"reason": "authz"}),
        True,
    ),
}
# what the owner gets for the same call in a fresh world (start: a swiss with no entrants)
OWNER_STATUS = {
    "updateBot": 200,
    "deleteBot": 204,
    "rotateBotSecret": 200,
    "enterTournament": 201,
    "withdrawTournamentEntry": 404,  # the owner's bot is not entered in the fresh world
    "startTournament": 409,
    "cancelTournament": 200,
    "createChallenge": 202,
    "createTest": 202,
    "cancelTest": 200,
    "joinLadder": 201,  # already on it: the same entry again
    "updateLadderEntry": 200,
    "leaveLadder": 204,
    "disqualifyBot": 200,
    "setBotName": 200,
    "suspendAccount": 200,
    "reinstateAccount": 409,  # not suspended: past the authorization, refused on the state
    "setAccountName": 200,
    "resolveReport": 404,  # no such report: past the authorization
    "annulLadderFlag": 404,  # no such flag: past the authorization
    "dismissLadderFlag": 404,
}
# writes that need no key, on purpose: making an account; playing a house bot at /play needs
# no account (rate-limited per address), and a play session's act and leave are guarded by the
# session's own token (X-Play-Token), not an API key: tests/services/api/test_api_play.py asserts
# that another session's token is a 403 and none a 401
# a report needs no key either (anyone may report a bot; rate-limited per address, and a key
# sent that does not validate is a 401: tests/services/api/test_admin_api.py)
PUBLIC_WRITES = {"createAccount", "createPlay", "actInPlay", "leavePlay", "createReport"}
OPERATIONS = {op.operation_id: op for op in write_operations()}
# the matrix is what the document has now (an entry for an operation not (yet) in it is idle)
MATRIX = {name: entry for name, entry in KNOWN.items() if name in OPERATIONS}

BAD_KEYS = {
    "no key": {},
    "not bearer": {"Authorization": "Basic dXNlcjpwYXNz"},
    "empty bearer": {"Authorization": "Bearer "},
    "no prefix": {"Authorization": "Bearer abcdef"},
    "too long": {"Authorization": "Bearer ta_" + "A" * 400},
    "control chars": {"Authorization": "Bearer ta_\tx"},
    "sql in key": {"Authorization": "Bearer ta_' OR 1=1 --"},
    "well-formed unknown": {"Authorization": f"Bearer {new_api_key()}"},
}


def test_every_write_operation_is_in_the_matrix() -> None:
    secured = {op for op, spec in OPERATIONS.items() if spec.secured}
    public = {op for op, spec in OPERATIONS.items() if not spec.secured}
    missing = secured - set(MATRIX)
    assert not missing, f"write operations missing from the authorization matrix: {missing}"
    assert not set(MATRIX) - secured, f"now public: {set(MATRIX) - secured}"
    assert public == PUBLIC_WRITES, f"unexpected writes without security: {public - PUBLIC_WRITES}"
    for name in secured:
        assert "401" in OPERATIONS[name].statuses, f"{name} does not document its 401"
        if MATRIX[name][1]:
            assert "403" in OPERATIONS[name].statuses, f"{name} does not document its 403"


async def _world(api: Api, server: BotServer) -> World:
    owner_id, owner = await api.account("owner")
    intruder_id, intruder = await api.account("intruder")
    await db_moderation.grant_admin(api.pool, owner_id)  # as `truco admin grant` does
    bot = await api.bot(owner, server.url, "victim")
    other = await api.bot(intruder, server.url, "intruder-bot")
    created = await api.client.post(
        "/v1/tournaments",
        json={"name": unique("owned-cup"), "format": "swiss", "mode": "1v1"},
        headers=owner,
    )
    assert created.status_code == 201, created.text
    # the test's bots are not the world's bot, so its pairs leave the bot's matches at none
    tester_a = await api.bot(owner, server.url, "tester-a")
    tester_b = await api.bot(owner, server.url, "tester-b")
    test = await api.client.post(
        "/v1/tests",
        json={"bot_a": int(str(tester_a["id"])), "bot_b": int(str(tester_b["id"]))},
        headers=owner,
    )
    assert test.status_code == 202, test.text
    joined = await api.client.post(
        "/v1/ladders/1v1/entries", json={"bot_id": int(str(bot["id"]))}, headers=owner
    )
    assert joined.status_code == 201, joined.text
    return World(
        owner=owner,
        intruder=intruder,
        intruder_id=intruder_id,
        bot_id=int(str(bot["id"])),
        other_bot_id=int(str(other["id"])),
        tournament_id=created.json()["id"],
        test_id=test.json()["test_id"],
        bot_url=server.url,
    )


async def _call(api: Api, name: str, world: World, headers: dict[str, str]) -> Any:
    spec = OPERATIONS[name]
    path, body = MATRIX[name][0](world)
    return await api.client.request(spec.method.upper(), path, json=body, headers=headers)


@pytest.mark.parametrize("name", sorted(MATRIX))
async def test_write_without_a_valid_key_is_401(api: Api, bot_server: BotServer, name: str) -> None:
    world = await _world(api, bot_server)
    for label, headers in BAD_KEYS.items():
        response = await _call(api, name, world, headers)
        body = assert_problem(response, 401)
        assert response.headers["www-authenticate"].startswith("Bearer"), label
        assert body["type"] == "/problems/unauthorized", label
    await _assert_untouched(api, world)


@pytest.mark.parametrize("name", sorted(n for n, (_, owned) in MATRIX.items() if owned))
async def test_write_with_another_owners_key_is_403(
    api: Api, bot_server: BotServer, name: str
) -> None:
    world = await _world(api, bot_server)
    assert_problem(await _call(api, name, world, world.intruder), 403)
    await _assert_untouched(api, world)
    # and the owner may (the 403 was about ownership, not a broken request)
    allowed = await _call(api, name, world, world.owner)
    assert allowed.status_code == OWNER_STATUS[name], allowed.text


async def _assert_untouched(api: Api, world: World) -> None:
    bot = await api.pool.fetchrow(
        "SELECT name, status, secret_rotated_at FROM bots WHERE id = $1", world.bot_id
    )
    assert bot is not None and bot["status"] == "active" and bot["name"].startswith("victim-")
    assert bot["secret_rotated_at"] is None  # the secret was not rotated
    row = await api.pool.fetchrow(
        "SELECT status, (SELECT count(*) FROM tournament_entries e WHERE e.tournament_id = t.id)"
        " AS entries FROM tournaments t WHERE id = $1",
        world.tournament_id,
    )
    assert row is not None and row["status"] == "registering" and row["entries"] == 0
    challenges = await api.pool.fetchval(
        "SELECT count(*) FROM match_entrants WHERE bot_id = $1", world.bot_id
    )
    assert challenges == 0
    # the owner's key still works (no bad call rotated or revoked it)
    assert (await api.client.get("/v1/accounts/me", headers=world.owner)).status_code == 200


async def test_another_accounts_key_cannot_be_revoked(api: Api) -> None:
    """A key id of another account is answered like a key that does not exist (404), and the
    key keeps working."""
    _, owner = await api.account("key-owner")
    _, intruder = await api.account("key-intruder")
    owned = (await api.client.get("/v1/accounts/me/keys", headers=owner)).json()
    assert len(owned) == 1
    refused = await api.client.delete(f"/v1/accounts/me/keys/{owned[0]['id']}", headers=intruder)
    assert_problem(refused, 404)
    assert (await api.client.get("/v1/accounts/me", headers=owner)).status_code == 200


async def test_public_writes_ignore_keys(api: Api) -> None:
    """createAccount (a write without security, as the matrix test above proves) works with
    no key and with every bad one: a key is neither needed nor checked there (the play
    session's writes: tests/services/api/test_api_play.py)."""
    assert {"createAccount"} == PUBLIC_WRITES - {
        "createPlay",
        "actInPlay",
        "leavePlay",
        "createReport",
    }
    for label, headers in BAD_KEYS.items():
        response = await api.client.post(
            "/v1/accounts", json={"name": unique("public")}, headers=headers
        )
        assert response.status_code == 201, (label, response.text)
