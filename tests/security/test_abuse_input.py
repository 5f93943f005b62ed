"""Abuse findings of issue 11 about what the API accepts and answers: out-of-range instants
(finding 5), names with control, format and confusable characters (finding 9), and answers
carrying a key or a secret being kept out of caches (finding 11)."""

from __future__ import annotations

import pytest

from arena.sdk import BotServer
from arena.wire.visible_text import is_hidden
from tests.security.helpers import assert_problem
from tests.services.helpers.api_helpers import Api, module_api, unique

pytestmark = pytest.mark.anyio

# one app for the module's tests (each makes its own accounts from one address: budgets lifted)
anyio_backend, shared_api, api = module_api()


@pytest.mark.parametrize(
    "start_at",
    [
        "0001-01-01T00:00:00+14:00",  # year 0 in UTC
        "9999-12-31T23:59:59-14:00",  # year 10000 in UTC
        "0001-01-01T00:00:00+00:01",
    ],
)
async def test_start_at_out_of_range_is_a_422_naming_the_field(api: Api, start_at: str) -> None:
    _, headers = await api.account("f5")
    body = {"name": unique("f5"), "format": "swiss", "mode": "1v1", "start_at": start_at}
    response = await api.client.post("/v1/tournaments", json=body, headers=headers)
    problem = assert_problem(response, 422)
    assert [e["field"] for e in problem["errors"]] == ["body.start_at"]
    assert "start_at" in problem["detail"]


async def test_start_at_at_the_edges_of_the_range_is_accepted(api: Api) -> None:
    _, headers = await api.account("f5")
    for start_at in ("0001-01-01T00:00:00+00:00", "9999-12-31T23:59:59+00:00"):
        body = {"name": unique("f5"), "format": "swiss", "mode": "1v1", "start_at": start_at}
        response = await api.client.post("/v1/tournaments", json=body, headers=headers)
        assert response.status_code == 201, response.text
        assert response.json()["start_at"].startswith(start_at[:19])


async def test_answers_carrying_a_key_or_a_secret_are_not_stored(
    api: Api, bot_server: BotServer
) -> None:
    account = await api.client.post("/v1/accounts", json={"name": unique("f11")})
    assert account.status_code == 201
    assert "api_key" in account.json()
    assert account.headers["cache-control"] == "no-store"
    headers = {"Authorization": f"Bearer {account.json()['api_key']}"}
    bot = await api.client.post(
        "/v1/bots", json={"name": unique("f11"), "url": bot_server.url}, headers=headers
    )
    assert bot.status_code == 201
    assert "signing_secret" in bot.json()
    assert bot.headers["cache-control"] == "no-store"
    # a public answer without a credential is left to the caches
    profile = await api.client.get(f"/v1/bots/{bot.json()['id']}")
    assert profile.status_code == 200
    assert "cache-control" not in profile.headers


REFUSED = {
    "escape": "bad\x1b[31mname",
    "crlf": "line\r\nbreak",
    "tab": "tab\tinside",
    "rtl override": "\u202eevil\u202c name",
    "rtl isolate": "a\u2067b",
    "zero-width space": "zero\u200bwidth",
    "zero-width joiner": "👩\u200d👩\u200d👧 family",
    "bom": "\ufeffbom",
    "soft hyphen": "soft\u00adhyphen",
    "line separator": "line\u2028sep",
    # issue 21: invisible characters beside the real names
    "grapheme joiner": "h\u034fouse",
    "variation selector": "house\ufe0f",
    "braille blank": "house-heuristic\u2800",
    "hangul choseong filler": "\u115fhouse-heuristic",
    "khmer inherent vowel": "house-heur\u17b4istic",
    "hangul filler": "house\u3164heuristic",
    # issue 33, 11: a filler that is not default-ignorable
    "khitan small script filler": "house\U00016fe4",
}


@pytest.mark.parametrize("name", list(REFUSED.values()), ids=list(REFUSED))
async def test_control_and_format_characters_are_refused(
    api: Api, bot_server: BotServer, name: str
) -> None:
    account = await api.client.post("/v1/accounts", json={"name": name + unique("")})
    problem = assert_problem(account, 422)
    assert problem["errors"][0]["field"] == "body.name"
    assert "control, format or invisible characters" in problem["detail"]
    _, headers = await api.account("f9")
    bot = await api.client.post(
        "/v1/bots", json={"name": name, "url": bot_server.url}, headers=headers
    )
    assert assert_problem(bot, 422)["errors"][0]["field"] == "body.name"
    good = await api.bot(headers, bot_server.url, "f9")
    renamed = await api.client.patch(f"/v1/bots/{good['id']}", json={"name": name}, headers=headers)
    assert assert_problem(renamed, 422)["errors"][0]["field"] == "body.name"
    cup = await api.client.post(
        "/v1/tournaments", json={"name": name, "format": "swiss", "mode": "1v1"}, headers=headers
    )
    assert assert_problem(cup, 422)["errors"][0]["field"] == "body.name"
    # nothing with the refused character was stored anywhere
    bad = next(c for c in name if is_hidden(c))
    for table in ("accounts", "bots", "tournaments"):
        found = await api.pool.fetchval(
            f"SELECT count(*) FROM {table} WHERE strpos(name, $1) > 0", bad
        )
        assert found == 0, (table, name)


def _lookalikes(base: str) -> list[str]:
    """Spellings of ``base`` (lowercase ASCII letters and a hex tail) that read the same."""
    return [
        base.upper(),  # case (as before)
        base.replace("a", "\u0430"),  # Cyrillic а
        base.replace("o", "\u03bf").replace("a", "\u0251"),  # Greek ο, Latin alpha
        "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else c for c in base),  # fullwidth
        base.replace("l", "1").replace("i", "\u0456"),  # digit one, Ukrainian і
        base.replace("l", "I"),  # capital I for l
        base.replace("p", "\U0001d52d"),  # mathematical fraktur p (NFKC)
    ]


async def test_account_names_are_unique_under_confusable_folding(api: Api) -> None:
    base = f"paypal-alice-{unique('')[1:]}"
    first = await api.client.post("/v1/accounts", json={"name": base})
    assert first.status_code == 201, first.text
    for name in _lookalikes(base):
        assert name != base
        answer = await api.client.post("/v1/accounts", json={"name": name})
        problem = assert_problem(answer, 409)
        assert problem["type"] == "/problems/name-taken", name
    # a different name is fine, also with non-Latin letters
    assert (await api.client.post("/v1/accounts", json={"name": base + "x"})).status_code == 201
    assert (await api.client.post("/v1/accounts", json={"name": "Бот " + base})).status_code == 201


async def test_bot_names_are_unique_under_confusable_folding(
    api: Api, bot_server: BotServer
) -> None:
    _, alice = await api.account("f9a")
    _, mallory = await api.account("f9m")
    base = f"paypal-bot-{unique('')[1:]}"
    original = await api.client.post(
        "/v1/bots", json={"name": base, "url": bot_server.url}, headers=alice
    )
    assert original.status_code == 201
    other = await api.bot(mallory, bot_server.url, "f9")
    for name in _lookalikes(base):
        created = await api.client.post(
            "/v1/bots", json={"name": name, "url": bot_server.url}, headers=mallory
        )
        assert assert_problem(created, 409)["type"] == "/problems/name-taken", name
        renamed = await api.client.patch(
            f"/v1/bots/{other['id']}", json={"name": name}, headers=mallory
        )
        assert assert_problem(renamed, 409)["type"] == "/problems/name-taken", name
    # a deleted bot frees its name, look-alikes included
    deleted = await api.client.delete(f"/v1/bots/{original.json()['id']}", headers=alice)
    assert deleted.status_code == 204
    lookalike = _lookalikes(base)[1]
    renamed = await api.client.patch(
        f"/v1/bots/{other['id']}", json={"name": lookalike}, headers=mallory
    )
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["name"] == lookalike  # stored as written, compared folded
