"""schemathesis's stateful testing over the whole REST API, following the document's OpenAPI
links: createAccount's ``api_key`` authorises createBot/createTournament/createChallenge, a new
bot's ``id`` feeds getBot/updateBot/deleteBot/listBotMatches/enterTournament/createChallenge, a
new tournament's ``id`` feeds getTournament/listTournamentEntries/enterTournament/start, and so
on (``services/api/spec.py`` ``LINKS``).

In process against the ASGI app on a real, migrated database of this module's own, put back to
the same state before every scenario (``Reset``), so a replayed scenario gets the same answers
and Hypothesis can shrink a failure. Every bot URL schemathesis generates is rewritten to a
real SDK bot server on 127.0.0.1, and the handshake client can reach nothing but loopback.
Checks: no 5xx; status, content type, headers and body as documented. 120 scenarios of up to
8 steps: about 20 s on an idle 2-core machine.
"""

from __future__ import annotations

import asyncio
import graphlib
import importlib.util
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.internal.conjecture import providers as hypothesis_providers
from litestar import Litestar
from requests.structures import CaseInsensitiveDict
from schemathesis import Case
from schemathesis.core.transport import Response
from schemathesis.generation.stateful.state_machine import APIStateMachine

from arena.sdk import BotServer, strategy_decider
from services.api.auth import new_api_key
from services.api.spec import LINKS, full_openapi
from services.db.migrate import TABLE as MIGRATIONS_TABLE
from services.db.pool import connect
from tests.schemathesis_app import CHECKS, STREAMS, fuzzed_app, seed_organiser
from tests.servers import PostgresServer, migrated_database
from tests.services.helpers.api_helpers import NetworkGuard

pytestmark = pytest.mark.slow  # run early (tests/slow_first.py)

BOT_URL_OPERATIONS = {"createBot", "updateBot"}
PLAY_OPERATIONS = (
    "createPlay",
    "getPlay",
    "streamPlay",
    "actInPlay",
    "leavePlay",
    "getPlayReplay",
)


def without_nul(value: Any) -> Any:
    """``value`` with NUL characters removed from every string. A NUL in a name is a clean 422
    (``test_hostile_input.py`` checks it); stripping it keeps the generated scenarios on the
    paths that create resources, so the links are exercised."""
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, list):
        return [without_nul(v) for v in value]
    if isinstance(value, dict):
        return {without_nul(k): without_nul(v) for k, v in value.items()}
    return value


class Reset:
    """Puts the test's database back to the same state before every scenario: every table
    emptied (identities restarted, so ids repeat too) and one seeded account with a
    tournament. A scenario's answers then depend on its own steps only, so when Hypothesis
    replays a scenario it meets the same answers, and draws the same way.

    The tables are emptied with DELETE, the rows that refer to others first, and the sequences
    they own restarted: a TRUNCATE of them all took 70 ms (new files for every table), a
    DELETE of their few rows 3 ms, and there is a reset before each of 120 scenarios and
    every replay while shrinking."""

    def __init__(self, database_url: str) -> None:
        self.key = new_api_key()
        self._loop = asyncio.new_event_loop()
        self._conn: asyncpg.Connection = self._loop.run_until_complete(connect(database_url))
        self._empty = self._loop.run_until_complete(self._emptying())

    async def _emptying(self) -> str:
        """The statements that empty every table but the migrations' own."""
        tables = {
            row["oid"]: row["name"]
            for row in await self._conn.fetch(
                "SELECT c.oid, quote_ident(c.relname) AS name FROM pg_class c "
                "WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') "
                "AND c.relname <> $1",
                MIGRATIONS_TABLE,
            )
        }
        referred: dict[int, set[int]] = {oid: set() for oid in tables}  # table: who refers
        for row in await self._conn.fetch(
            "SELECT conrelid, confrelid FROM pg_constraint WHERE contype = 'f'"
        ):
            if row["confrelid"] in referred and row["conrelid"] != row["confrelid"]:
                referred[row["confrelid"]].add(row["conrelid"])
        # the referring tables come before the tables they refer to
        order = graphlib.TopologicalSorter(referred).static_order()
        sequences = await self._conn.fetch(
            "SELECT quote_ident(s.relname) AS name FROM pg_class s "
            "JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = s.oid "
            "AND d.deptype IN ('a', 'i') WHERE s.relkind = 'S' AND d.refobjid = ANY($1)",
            list(tables),
        )
        return "".join(
            [f"DELETE FROM {tables[oid]};" for oid in order]
            + [f"ALTER SEQUENCE {row['name']} RESTART;" for row in sequences]
        )

    def __call__(self) -> None:
        self._loop.run_until_complete(self._reset())

    async def _reset(self) -> None:
        async with self._conn.transaction():
            await self._conn.execute(self._empty)
            await seed_organiser(self._conn, "stateful", "stateful cup", self.key)

    def close(self) -> None:
        self._loop.run_until_complete(self._conn.close())
        self._loop.close()


def pin_source_constants(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hypothesis draws, now and then, a literal found in the source of the *local* modules
    then in ``sys.modules`` (``_get_local_constants``: every non-test module that is not in
    site-packages or the standard library), even with ``derandomize``. Which modules those are
    depends on what the earlier tests of the process imported, so a full run drew different
    scenarios from a run of this file alone. With that pool pinned empty the scenarios depend
    on this test and the app only (schemathesis still adds the app's own literals). Should a
    Hypothesis upgrade rename the function, ``setattr`` fails loudly rather than pin nothing."""
    empty = hypothesis_providers.Constants()
    monkeypatch.setattr(hypothesis_providers, "_get_local_constants", lambda: empty)
    hypothesis_providers.CONSTANTS_CACHE.cache.clear()  # holds values drawn from the old pool


@pytest.fixture
def no_source_constants(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    pin_source_constants(monkeypatch)
    yield
    hypothesis_providers.CONSTANTS_CACHE.cache.clear()  # later tests get their own pool back


def _derandomized_texts() -> list[list[str]]:
    drawn: list[list[str]] = []

    # 2,000 strings: Hypothesis takes about one in 40 from the local pool
    @settings(
        derandomize=True,
        database=None,
        max_examples=100,
        phases=[Phase.generate],
        deadline=None,  # a loaded machine must not fail it: only the draws are compared
        suppress_health_check=list(HealthCheck),
    )
    @given(st.lists(st.text(), min_size=20, max_size=20))
    def collect(value: list[str]) -> None:
        drawn.append(value)

    collect()
    return drawn


def _import_local_module(monkeypatch: pytest.MonkeyPatch, folder: Path, name: str) -> None:
    """A module outside site-packages (so "local") with literals of its own, as a module an
    earlier test imports. They are short (Hypothesis skips strings over 20 characters) and sort
    first, so every draw from the pool's sorted list moves."""
    path = folder / f"{name}.py"
    path.write_text("".join(f"C{i} = {f'!{name[-3:]}{i}'!r}\n" for i in range(50)))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setitem(sys.modules, name, module)


def test_earlier_imports_steer_derandomized_draws_unless_pinned(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Why the stateful run differed in a full run, and that the pin removes it."""
    try:
        baseline = _derandomized_texts()
        _import_local_module(monkeypatch, tmp_path, "stateful_pool_one")
        assert _derandomized_texts() != baseline  # the same seed, other draws
        with pytest.MonkeyPatch.context() as pin:
            pin_source_constants(pin)
            pinned = _derandomized_texts()
            _import_local_module(monkeypatch, tmp_path, "stateful_pool_two")
            assert _derandomized_texts() == pinned
    finally:
        hypothesis_providers.CONSTANTS_CACHE.cache.clear()


@pytest.fixture(scope="module")
def stateful_database_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A migrated database of this module's own: the resets must touch nothing else."""
    with migrated_database(postgres_server) as url:
        yield url


@pytest.fixture(scope="module")
def stateful_bot() -> Iterator[BotServer]:
    server = BotServer(strategy_decider("random", seed=7), name="fuzzbot", secret=None, port=0)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def stateful_guard() -> NetworkGuard:
    return NetworkGuard()


@pytest.fixture(scope="module")
def stateful_app(stateful_database_url: str, stateful_guard: NetworkGuard) -> Iterator[Litestar]:
    with fuzzed_app(stateful_database_url, bot_client_factory=stateful_guard.factory) as app:
        yield app


def test_the_document_links_what_the_brief_asks() -> None:
    document = full_openapi()
    links = {
        (op["operationId"], link["operationId"])
        for item in document["paths"].values()
        for op in item.values()
        for response in op.get("responses", {}).values()
        for link in response.get("links", {}).values()
    }
    wanted = {
        ("createAccount", "createBot"),
        ("createAccount", "createTournament"),
        ("createBot", "getBot"),
        ("createBot", "updateBot"),
        ("createBot", "deleteBot"),
        ("createTournament", "getTournament"),
        ("createTournament", "enterTournament"),
        ("createTournament", "startTournament"),
        ("createChallenge", "getMatch"),
    }
    assert wanted <= links
    assert len(links) >= sum(len(v) for v in LINKS.values()) - 2  # (same pair, two links)


@pytest.mark.usefixtures("no_source_constants")
def test_stateful_links_no_server_error_no_schema_violation(
    stateful_database_url: str,
    stateful_app: Litestar,
    stateful_bot: BotServer,
    stateful_guard: NetworkGuard,
) -> None:
    reset = Reset(stateful_database_url)
    # /health answers 503 while no worker runs (as documented): it is not the API under test.
    # The play sessions (/v1/play) link to nothing and nothing links to them: a random walk
    # among them only dilutes the linked scenarios (their answers are checked as documented by
    # test_schemathesis, their flow by tests/services/api/test_api_play.py). The admins'
    # operations are the same: every one is a 403 for the walk's keys (their authorization is
    # tests/services/api/test_admin_api.py's)
    schema = (
        schemathesis.openapi.from_dict(full_openapi())
        .exclude(operation_id=["getHealth", *PLAY_OPERATIONS])
        .exclude(tag="admin")
    )
    schema.app = stateful_app
    base: type[APIStateMachine] = schema.as_state_machine()
    seen: dict[tuple[str, int], int] = {}
    linked: set[str] = set()

    class Machine(base):  # type: ignore[misc, valid-type]
        def setup(self) -> None:
            reset()  # every scenario starts from the same database
            self.keys = [reset.key]

        def before_call(self, case: Case[Any]) -> None:
            headers: CaseInsensitiveDict[Any] = CaseInsensitiveDict(dict(case.headers or {}))
            auth = headers.get("Authorization")
            op = case.operation.definition.raw["operationId"]
            if isinstance(auth, str) and auth.startswith("Bearer ta_"):
                linked.add(op)
            else:
                # not from a link: the newest account's key (so another owner's bots give 403s)
                headers["Authorization"] = f"Bearer {self.keys[-1]}"
            case.headers = headers
            body = without_nul(case.body)
            if (
                isinstance(body, dict)
                and op in BOT_URL_OPERATIONS
                and isinstance(body.get("url"), str)
            ):
                body["url"] = stateful_bot.url  # never anything but the loopback bot
            case.body = body

        def after_call(self, response: Response, case: Case[Any]) -> None:
            op = case.operation.definition.raw["operationId"]
            seen[(op, response.status_code)] = seen.get((op, response.status_code), 0) + 1
            if op == "createAccount" and response.status_code == 201:
                body: Any = response.json()
                self.keys.append(body["api_key"])

        def get_call_kwargs(self, case: Case[Any]) -> dict[str, Any]:
            return {"app": stateful_app}

        def validate_response(
            self,
            response: Response,
            case: Case[Any],
            additional_checks: Any = None,
            **kwargs: Any,
        ) -> None:
            if case.operation.definition.raw["operationId"] in STREAMS:
                # the events are JSON inside text/event-stream (test_api_streams checks them);
                # the answer must still be no server error
                assert response.status_code < 500, response.status_code
                return
            case.validate_response(response, checks=CHECKS, transport_kwargs=kwargs)

    # derandomize fixes Hypothesis' draws (and it seeds the global PRNG for every scenario);
    # no_source_constants keeps them the same whatever else this process has imported
    started = time.monotonic()
    try:
        Machine.run(
            settings=settings(
                max_examples=120,
                stateful_step_count=8,
                deadline=None,
                suppress_health_check=list(HealthCheck),
                database=None,
                derandomize=True,
                # shrinking replays scenarios: safe, since each starts from the same database
                phases=[Phase.explicit, Phase.generate, Phase.shrink],
            )
        )
    finally:
        reset.close()
    print(f"stateful: {sum(seen.values())} calls in {time.monotonic() - started:.1f} s")
    assert stateful_guard.refused == [], stateful_guard.refused
    assert not any(status >= 500 for _, status in seen), seen
    # the links were followed: resources were made and then used
    reached = {op for op, status in seen if status < 300}
    assert {"createAccount", "createBot", "createTournament"} <= reached, seen
    # the bot's own operations were called (in a full run they may all meet another owner's
    # key or a deleted bot; which of them succeed depends on the scenario drawn)
    assert {op for op, _ in seen} & {"getBot", "updateBot", "deleteBot"}, seen
    assert reached & {"getTournament", "enterTournament", "startTournament"}, seen
    assert "createBot" in linked or "createTournament" in linked, linked
