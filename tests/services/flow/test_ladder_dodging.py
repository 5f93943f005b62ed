"""Dodging on the ladder (issue 33, item 1), performed with real HTTP bots on 127.0.0.1.

The attack: a random bot answers its ``/start`` with an error whenever its opponent is one it
fears (a heuristic bot); three walkovers in a row pause it, and its owner resumes it at once,
again and again. Its honest twin (the same strategy, the same owner, so the two never meet)
plays every match. The pool: three heuristic bots and three that fold every hand ("mazo"), of
six owners. The dodger learns its opponent the strongest way there is: from ``/start``'s
``entrants`` when they name it, else from an oracle that knows every match's bots (as a bot
that looks its match up in the public API would).

Before: walkovers were unrated and resuming was instant, so the dodger met only the bots it
beats and was rated far above its twin. Now a walkover after the matchmaker chose the match is
a rated loss, a resume waits a cooldown that grows, and ``/start`` names no opponent on the
ladder (the names come at ``/end``): the dodger gains nothing over its twin.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import asyncpg
import pytest

from arena.client.connection import BotConnection
from arena.match.replay import EntrantRecord
from arena.sdk import BotServer, strategy_decider
from arena.wire.protocol import EndRequest, StartRequest
from services.base.config import LadderSettings
from services.db import bot_health
from services.db import ladder as db_ladder
from services.domain.match_order import EntrantOrder
from services.flow import ladder as flow_ladder
from services.flow.errors import FlowError
from services.worker.results.fit import refit
from tests.services.helpers.flow_helpers import (
    InProcessSender,
    in_process,
    make_account,
    make_bot,
    over_http,
)

pytestmark = pytest.mark.anyio

SETTINGS = LadderSettings(hourly_cap=1000, pause_after=3)
NOW = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)
TICKS = 40
MOST_TICKS = 400
"""A hang guard: the pool plays ``TICKS`` ticks, and on until the attack has been made (the
dodger offered three matches it fears) and the twin has met a feared bot, since how often the
matchmaker pairs them with the strong bots is luck (an idle clean-clone run saw the dodger
offered two in 40 ticks)."""


class Dodger:
    """A bot's ``/start`` and ``/end`` hooks: refuse a match against a feared bot; remember
    what every ``/start`` and ``/end`` named."""

    def __init__(self, feared: set[str], oracle: dict[str, set[str]]) -> None:
        self.feared, self.oracle = feared, oracle
        self.started: list[list[str]] = []
        self.ended: list[list[str] | None] = []
        self.refused = 0
        self.lock = threading.Lock()

    def on_start(self, request: StartRequest) -> None:
        with self.lock:
            self.started.append(list(request.entrants))
        named = set(" & ".join(request.entrants).split(" & "))
        if (named | self.oracle.get(request.match_id, set())) & self.feared:
            with self.lock:
                self.refused += 1
            raise RuntimeError("not today")  # a 500: the platform sees a failed /start

    def on_end(self, request: EndRequest) -> None:
        with self.lock:
            named = getattr(request, "entrants", None)  # (none before the names came at /end)
            self.ended.append(list(named) if named is not None else None)


async def joined(pool: asyncpg.Pool, owner: int, url: str = "http://127.0.0.1:9", **kw: str) -> int:
    bot = await make_bot(pool, owner, url, **kw)
    await bot_health.record_check(pool, bot, ok=True, error=None, failures_to_unavailable=3)
    await flow_ladder.join(pool, "1v1", bot, owner, SETTINGS)
    return bot


async def test_a_bot_that_refuses_the_matches_it_fears_gains_nothing_over_its_twin(
    flow_pool: asyncpg.Pool,
) -> None:
    await flow_pool.execute("DELETE FROM ladder_entries")
    await flow_pool.execute(
        "UPDATE matches SET status = 'error' WHERE status IN ('pending', 'queued', 'running')"
    )
    strong = [await joined(flow_pool, await make_account(flow_pool, "strong")) for _ in range(3)]
    folding = [await joined(flow_pool, await make_account(flow_pool, "mazo")) for _ in range(3)]
    names = dict(await flow_pool.fetch("SELECT id, name FROM bots WHERE id = ANY($1)", strong))
    oracle: dict[str, set[str]] = {}
    dodger = Dodger(set(names.values()), oracle)
    twin = Dodger(set(), {})
    servers = []
    attacker = await make_account(flow_pool, "attacker")
    bots = {}
    for role, hooks in (("dodger", dodger), ("twin", twin)):
        secret = "whsec_" + role * 8
        server = BotServer(
            strategy_decider("random", 7),
            name=role,
            secret=secret,
            host="127.0.0.1",
            port=0,
            on_start=hooks.on_start,
            on_end=hooks.on_end,
        )
        server.start()
        servers.append(server)
        bots[role] = await joined(flow_pool, attacker, server.url, secret=secret)
    played = in_process({**{b: "heuristic" for b in strong}, **{b: "mazo" for b in folding}})

    def connect(entrant: EntrantOrder, seed: int) -> tuple[EntrantRecord, BotConnection]:
        http = entrant.bot_id in bots.values()
        return (over_http if http else played)(entrant, seed)

    run = InProcessSender(connect)
    resumes = refused_resumes = paused = 0
    try:
        for k in range(MOST_TICKS):
            if k >= TICKS and dodger.refused >= 3 and met_feared(twin, set(names.values())):
                break
            ids = await flow_ladder.tick(flow_pool, SETTINGS, NOW + timedelta(seconds=k))
            for row in await flow_pool.fetch(
                "SELECT e.match_id, b.name FROM match_entrants e JOIN bots b ON b.id = e.bot_id "
                "WHERE e.match_id = ANY($1)",
                ids,
            ):
                oracle.setdefault(str(row["match_id"]), set()).add(row["name"])
            await run(flow_pool, ids)
            await refit(flow_pool, "1v1")
            entry = await db_ladder.get_entry(flow_pool, "1v1", bots["dodger"])
            if entry is not None and entry.paused_at is not None:  # its owner resumes it
                paused += 1
                try:
                    await flow_ladder.update(
                        flow_pool, "1v1", bots["dodger"], attacker, SETTINGS, resume=True
                    )
                    resumes += 1
                except FlowError:
                    refused_resumes += 1
    finally:
        for server in servers:
            server.stop()
    intervals = {
        row["bot_id"]: (row["rating"], (row["high"] - row["low"]) / (2 * 1.96))
        for row in await flow_pool.fetch(
            "SELECT bot_id, rating, low, high FROM rating_intervals "
            "WHERE mode = '1v1' AND bot_id = ANY($1)",
            list(bots.values()),
        )
    }
    fitted = {bot: rating for bot, (rating, _) in intervals.items()}
    history = await flow_pool.fetchval(
        "SELECT count(*) FROM rating_history h JOIN matches m ON m.id = h.match_id "
        "WHERE h.bot_id = $1 AND m.ladder_pool = '1v1'",
        bots["dodger"],
    )
    print(
        f"\ndodger {fitted.get(bots['dodger'])}, twin {fitted.get(bots['twin'])}; the dodger "
        f"refused {dodger.refused} matches, was resumed {resumes} times ({refused_resumes} "
        f"resumes refused), {history} rated ladder matches; standard errors "
        f"{[round(se) for _, se in intervals.values()]}"
    )
    assert dodger.refused >= 3  # the attack was made
    # every match it refused is a rated loss: a walkover the fit counts against it
    lost_walkovers = await flow_pool.fetchval(
        "SELECT count(*) FROM rating_history h JOIN matches m ON m.id = h.match_id "
        "JOIN match_results r ON r.match_id = m.id WHERE h.bot_id = $1 AND m.rated "
        "AND m.ladder_pool = '1v1' AND r.result->>'reason' = 'walkover' "
        "AND h.rating_after < h.rating_before",
        bots["dodger"],
    )
    assert lost_walkovers == dodger.refused
    assert bots["twin"] in fitted and bots["dodger"] in fitted
    # so it gains nothing by dodging (before: +258 above its twin). The twins' own games are
    # luck (a random bot, 10-30 rated matches each): the bound is three standard errors of the
    # difference, from the fit's intervals
    spread = 3 * (intervals[bots["dodger"]][1] ** 2 + intervals[bots["twin"]][1] ** 2) ** 0.5
    assert fitted[bots["dodger"]] <= fitted[bots["twin"]] + spread
    # whenever it was paused, its owner could not resume it at once (before: 9 instant resumes)
    assert resumes == 0 and refused_resumes == paused
    # /start never named a ladder opponent; /end did
    assert not any(set(n) & set(names.values()) for n in dodger.started + twin.started)
    assert met_feared(twin, set(names.values()))


def met_feared(bot: Dodger, feared: set[str]) -> bool:
    """Whether a ``/end`` the bot was sent named one of ``feared`` among its opponents."""
    return any(e and set(" & ".join(e).split(" & ")) & feared for e in bot.ended)
