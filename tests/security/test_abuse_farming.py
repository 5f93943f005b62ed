"""Issue 21, break 8: open bots could be farmed. An organiser entered another owner's open bot
into a rated round robin with ``timeout_ms: 10``, ``fault_limit: 1``, ``games_per_match: 1``;
the victim forfeited and the attacker gained rating, repeatably; the entry could not be
withdrawn, closing the bot left it in place, and such entries had no quota.

Each attack is made here through the API (bots on 127.0.0.1; a sender that queues nothing,
so entries and matches stay as the requests leave them)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from arena.sdk import BotServer
from services.base.config import FairPlaySettings
from tests.security.helpers import assert_problem
from tests.services.helpers.api_helpers import Api, NetworkGuard, app_client, unique

pytestmark = pytest.mark.anyio
QUOTA = 3
HARSH = {"timeout_ms": 10, "fault_limit": 1, "games_per_match": 1}


@pytest.fixture
async def fair_api(api_database_url: str, guard: NetworkGuard) -> AsyncIterator[Api]:
    """The API with the default floors, a quota of ``QUOTA`` entries of others' bots, and a
    sender that queues nothing."""

    async def hold(pool: asyncpg.Pool, match_ids: list[int]) -> None:
        return None

    fields = {"fair_play": FairPlaySettings(open_entries_per_account=QUOTA)}
    async with app_client(
        api_database_url, guard, pool_size=8, settings_fields=fields, sender=hold
    ) as (pool, client):
        yield Api(client, pool, guard)


async def _open_bot(api: Api, owner: dict[str, str], url: str, **fields: Any) -> int:
    answer = await api.client.post(
        "/v1/bots",
        json={"name": unique("open"), "url": url, "open": True, **fields},
        headers=owner,
    )
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


async def _cup(api: Api, organiser: dict[str, str], **settings: Any) -> int:
    body = {"name": unique("cup"), "format": "round_robin", "mode": "1v1", **settings}
    answer = await api.client.post("/v1/tournaments", json=body, headers=organiser)
    assert answer.status_code == 201, answer.text
    return int(answer.json()["id"])


async def _enter(api: Api, headers: dict[str, str], cup: int, bot: int) -> Any:
    return await api.client.post(
        f"/v1/tournaments/{cup}/entries", json={"bot_id": bot}, headers=headers
    )


async def _withdraw(api: Api, headers: dict[str, str], cup: int, bot: int) -> Any:
    return await api.client.delete(f"/v1/tournaments/{cup}/entries/{bot}", headers=headers)


async def _withdrawn(api: Api, cup: int, bot: int) -> bool | None:
    """Whether the bot's entry is withdrawn (None: it has none)."""
    row = await api.pool.fetchrow(
        "SELECT withdrawn_at FROM tournament_entries WHERE tournament_id = $1 AND bot_id = $2",
        cup,
        bot,
    )
    return None if row is None else row["withdrawn_at"] is not None


async def test_an_organiser_cannot_farm_an_open_bot_under_harsh_settings(
    fair_api: Api, bot_server: BotServer
) -> None:
    api = fair_api
    _, victim = await api.account("victim")
    _, attacker = await api.account("attacker")
    prey = await _open_bot(api, victim, bot_server.url)
    mine = (await api.bot(attacker, bot_server.url))["id"]
    # the attack as it was made: all three at once, then each alone
    for harsh in (HARSH, *({k: v} for k, v in HARSH.items())):
        cup = await _cup(api, attacker, **harsh)
        assert (await _enter(api, attacker, cup, mine)).status_code == 201  # its own: fine
        problem = assert_problem(await _enter(api, attacker, cup, prey), 422)
        assert problem["type"] == "/problems/settings-refused"
        field = next(iter(harsh))
        assert f"{field} of at least" in problem["detail"], problem
        assert await _withdrawn(api, cup, prey) is None  # not entered
        started = await api.client.post(f"/v1/tournaments/{cup}/start", headers=attacker)
        assert_problem(started, 409)  # one bot: nothing to play, nobody to farm
    # so the victim's rating cannot move: it never played a rated match
    assert await api.pool.fetchval("SELECT count(*) FROM ratings WHERE bot_id = $1", prey) == 0
    played = await api.pool.fetchval("SELECT count(*) FROM match_entrants WHERE bot_id = $1", prey)
    assert played == 0
    # under settings at the floors the same entry is accepted
    fair = await _cup(api, attacker, timeout_ms=200, fault_limit=3, games_per_match=2)
    assert (await _enter(api, attacker, fair, prey)).status_code == 201


async def test_a_bot_states_the_least_timeout_it_accepts(
    fair_api: Api, bot_server: BotServer
) -> None:
    api = fair_api
    _, victim = await api.account("victim")
    _, organiser = await api.account("organiser")
    prey = await _open_bot(api, victim, bot_server.url, min_timeout_ms=3000)
    shown = (await api.client.get(f"/v1/bots/{prey}")).json()
    assert shown["min_timeout_ms"] == 3000
    quick = await _cup(api, organiser, timeout_ms=1000, games_per_match=2)
    problem = assert_problem(await _enter(api, organiser, quick, prey), 422)
    assert problem["type"] == "/problems/settings-refused"
    assert "at least 3000" in problem["detail"] and "min_timeout_ms" in problem["detail"]
    slow = await _cup(api, organiser, timeout_ms=5000, games_per_match=2)
    assert (await _enter(api, organiser, slow, prey)).status_code == 201
    own = [(await api.bot(organiser, bot_server.url))["id"] for _ in range(2)]
    for bot in own:
        assert (await _enter(api, organiser, slow, int(str(bot)))).status_code == 201
    # its owner raises the minimum after the entry: starting checks again and leaves it out
    raised = await api.client.patch(
        f"/v1/bots/{prey}", json={"min_timeout_ms": 10_000}, headers=victim
    )
    assert raised.status_code == 200 and raised.json()["min_timeout_ms"] == 10_000
    started = await api.client.post(f"/v1/tournaments/{slow}/start", headers=organiser)
    assert started.status_code == 202, started.text
    assert await _withdrawn(api, slow, prey) is True
    matches = await api.pool.fetchval(
        "SELECT count(*) FROM match_entrants e JOIN matches m ON m.id = e.match_id "
        "WHERE m.tournament_id = $1 AND e.bot_id = $2",
        slow,
        prey,
    )
    assert matches == 0
    # out of range is a 422 naming the field
    bad = await api.client.patch(f"/v1/bots/{prey}", json={"min_timeout_ms": 5}, headers=victim)
    assert_problem(bad, 422)


async def test_the_owner_or_the_organiser_withdraws_an_entry_before_the_start(
    fair_api: Api, bot_server: BotServer
) -> None:
    api = fair_api
    _, victim = await api.account("victim")
    _, organiser = await api.account("organiser")
    _, stranger = await api.account("stranger")
    prey = await _open_bot(api, victim, bot_server.url)
    cup = await _cup(api, organiser)
    assert (await _enter(api, organiser, cup, prey)).status_code == 201
    assert_problem(await _withdraw(api, stranger, cup, prey), 403)
    assert (await _withdraw(api, victim, cup, prey)).status_code == 204
    assert await _withdrawn(api, cup, prey) is True
    entries = (await api.client.get(f"/v1/tournaments/{cup}/entries")).json()["items"]
    assert [e["withdrawn_at"] is not None for e in entries] == [True]
    assert_problem(await _withdraw(api, victim, cup, prey), 404)  # withdrawn already
    # the organiser may not put it back; its owner may
    again = assert_problem(await _enter(api, organiser, cup, prey), 409)
    assert again["type"] == "/problems/entry-withdrawn"
    assert (await _enter(api, victim, cup, prey)).status_code == 201
    assert await _withdrawn(api, cup, prey) is False
    # the organiser may withdraw any entry of its event
    assert (await _withdraw(api, organiser, cup, prey)).status_code == 204
    # a withdrawn entry does not play: with two bots of the organiser the event starts
    # without it
    own = [int(str((await api.bot(organiser, bot_server.url))["id"])) for _ in range(2)]
    for bot in own:
        assert (await _enter(api, organiser, cup, bot)).status_code == 201
    started = await api.client.post(f"/v1/tournaments/{cup}/start", headers=organiser)
    assert started.status_code == 202, started.text
    seeded = await api.pool.fetchval(
        "SELECT count(*) FROM tournament_entries WHERE tournament_id = $1 AND seed IS NOT NULL",
        cup,
    )
    assert seeded == 2
    # once started, withdrawing is a 409
    late = assert_problem(await _withdraw(api, organiser, cup, own[0]), 409)
    assert "only before the event starts" in late["detail"]


async def test_closing_a_bot_withdraws_it_from_others_events(
    fair_api: Api, bot_server: BotServer
) -> None:
    api = fair_api
    _, victim = await api.account("victim")
    _, organiser = await api.account("organiser")
    prey = await _open_bot(api, victim, bot_server.url)
    entered = [await _cup(api, organiser) for _ in range(2)]
    for cup in entered:
        assert (await _enter(api, organiser, cup, prey)).status_code == 201
    chosen = await _cup(api, organiser)  # the owner enters it here itself
    assert (await _enter(api, victim, chosen, prey)).status_code == 201
    own_cup = await _cup(api, victim)
    assert (await _enter(api, victim, own_cup, prey)).status_code == 201
    closed = await api.client.patch(f"/v1/bots/{prey}", json={"open": False}, headers=victim)
    assert closed.status_code == 200 and closed.json()["open"] is False
    assert [await _withdrawn(api, cup, prey) for cup in entered] == [True, True]
    assert await _withdrawn(api, chosen, prey) is False  # entered by its owner: stays
    assert await _withdrawn(api, own_cup, prey) is False
    assert_problem(await _enter(api, organiser, entered[0], prey), 403)  # closed now


async def test_starting_leaves_out_a_bot_closed_while_it_was_being_entered(
    fair_api: Api, bot_server: BotServer
) -> None:
    """A close that raced an entry (the entry committed after the close's withdrawals): the
    start checks again."""
    api = fair_api
    _, victim = await api.account("victim")
    _, organiser = await api.account("organiser")
    prey = await _open_bot(api, victim, bot_server.url)
    cup = await _cup(api, organiser)
    assert (await _enter(api, organiser, cup, prey)).status_code == 201
    for _ in range(2):
        bot = int(str((await api.bot(organiser, bot_server.url))["id"]))
        assert (await _enter(api, organiser, cup, bot)).status_code == 201
    await api.pool.execute("UPDATE bots SET open = false WHERE id = $1", prey)  # the race
    started = await api.client.post(f"/v1/tournaments/{cup}/start", headers=organiser)
    assert started.status_code == 202, started.text
    assert await _withdrawn(api, cup, prey) is True


async def test_entries_of_others_bots_have_a_quota(fair_api: Api, bot_server: BotServer) -> None:
    api = fair_api
    organiser_id, organiser = await api.account("organiser")
    owners = [(await api.account("owner"))[1] for _ in range(2)]
    prey = [await _open_bot(api, owners[k % 2], bot_server.url) for k in range(QUOTA + 3)]
    cups = [await _cup(api, organiser) for _ in range(2)]
    # a burst over two events: exactly the quota is admitted
    answers = await asyncio.gather(
        *(_enter(api, organiser, cups[k % 2], bot) for k, bot in enumerate(prey))
    )
    codes = sorted(a.status_code for a in answers)
    assert codes == [201] * QUOTA + [429] * 3, codes
    refused = next(a for a in answers if a.status_code == 429)
    problem = assert_problem(refused, 429)
    assert problem["type"] == "/problems/too-many-entries"
    assert int(refused.headers["retry-after"]) >= 1
    # the organiser's own bots do not count, nor bots their owners enter (a public event)
    mine = int(str((await api.bot(organiser, bot_server.url))["id"]))
    assert (await _enter(api, organiser, cups[0], mine)).status_code == 201
    for k in range(QUOTA + 1):
        _, player = await api.account("player")
        theirs = int(str((await api.bot(player, bot_server.url))["id"]))
        assert (await _enter(api, player, cups[k % 2], theirs)).status_code == 201
    # a withdrawn entry frees its place
    admitted = [
        (cups[k % 2], bot)
        for k, (bot, a) in enumerate(zip(prey, answers, strict=True))
        if a.status_code == 201
    ]
    left_out = next(
        (cups[k % 2], bot)
        for k, (bot, a) in enumerate(zip(prey, answers, strict=True))
        if a.status_code == 429
    )
    assert (await _withdraw(api, organiser, *admitted[0])).status_code == 204
    assert (await _enter(api, organiser, *left_out)).status_code == 201
    assert_problem(await _enter(api, organiser, cups[0], prey[-1]), 429)
    # and an event that is over (here: cancelled) no longer counts
    busy = await api.pool.fetchval(
        "SELECT e.tournament_id FROM tournament_entries e "
        "WHERE e.tournament_id = ANY($1::bigint[]) AND e.entered_by = $2 "
        "AND e.withdrawn_at IS NULL LIMIT 1",
        cups,
        organiser_id,
    )
    cancelled = await api.client.post(f"/v1/tournaments/{busy}/cancel", headers=organiser)
    assert cancelled.status_code == 200
    third = await _cup(api, organiser)
    assert (await _enter(api, organiser, third, prey[0])).status_code == 201
