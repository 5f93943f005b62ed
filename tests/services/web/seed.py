"""Real data for the page tests: bots, ratings, tournaments and replays of real matches.

Every finished match is played for real by ``arena.match.runner.run_match`` between built-in
in-process bots; its replay is stored zlib-compressed like the platform stores it. One bot is
named ``<script>alert(1)</script>``, says ``<img src=x onerror=alert(1)>`` with each action and
answers an illegal word on its first decision of each game (a recorded fault).
"""

from __future__ import annotations

import hashlib
import json
import secrets
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import asyncpg
import msgspec

from arena.client.connection import Decide, InProcessBot
from arena.match.replay import EntrantRecord, Replay
from arena.match.runner import MatchSettings, run_match
from arena.sdk import strategy_decider
from arena.wire import structs as wire
from arena.wire.protocol import ActRequest, ActResponse
from engine.rules import Rules
from services.domain.result import played_result

XSS_NAME = "<script>alert(1)</script>"
XSS_SAY = "<img src=x onerror=alert(1)>"
NAMES = ["El Ancho", "Siete Bravo", "Mazo Man", XSS_NAME, "Falta Envido", "Retruco", "Parda"]
STRATEGIES = ["heuristic", "heuristic", "random", "heuristic", "random", "first", "random"]


def xss_decider(seed: int) -> Decide:
    """Heuristic play with a hostile ``say``; the first decision of each game is illegal."""
    base = strategy_decider("heuristic", seed)
    seen: set[str] = set()

    def decide(req: ActRequest) -> ActResponse | wire.Action:
        if req.game_id not in seen:
            seen.add(req.game_id)
            return ActResponse(action="not_a_word", say=XSS_SAY)
        action = base(req)
        assert isinstance(action, wire.Action)  # strategy_decider answers in wire types
        return msgspec.structs.replace(action, say=XSS_SAY)

    return decide


@dataclass
class Seeded:
    owner_id: int
    bots: dict[str, int]
    swiss_id: int = 0
    double_id: int = 0
    robin_id: int = 0
    single_id: int = 0
    replay_match: int = 0  # a finished match with the XSS bot in it
    live_match: int = 0  # a running match with a (partial) replay
    pending_swiss_match: int = 0  # in the running Swiss round, not played yet
    knockout_id: int = 0  # a 5-bot single elimination with a third-place match, played by flow
    team_match: int = 0  # a finished team 2v2 match (four seats) with long bot names
    team_id: int = 0  # the team 2v2 single elimination it belongs to
    individual_id: int = 0  # an individual 2v2 Swiss (a bot a seat, partners change)
    faults_id: int = 0  # a round robin of one sound bot and one bot per way of failing
    lost_by: dict[str, int] = field(default_factory=dict)  # failing bot -> its match with "sano"
    sprt_id: int = 0  # an SPRT test with two pairs stored
    replays: dict[int, Replay] = field(default_factory=dict)
    winners: dict[int, int | None] = field(default_factory=dict)  # match -> winner side
    sides: dict[int, tuple[int, int]] = field(default_factory=dict)  # match -> (bot 0, bot 1)


async def play(match_id: int, a: str, b: str, seed: int) -> Replay:
    bots = []
    for k, name in enumerate((a, b)):
        decide = (
            xss_decider(seed + k)
            if name == XSS_NAME
            else strategy_decider(STRATEGIES[NAMES.index(name)], seed + k)
        )
        bots.append((EntrantRecord(name, f"builtin:{name}"), InProcessBot(name, decide)))
    settings = MatchSettings(rules=Rules(points_to_win=15), games_per_match=2)
    return await run_match(f"m{match_id}", seed, settings, bots)


class Seeder:
    def __init__(self, conn: asyncpg.Connection) -> None:
        self.conn = conn
        self.clock = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
        self.ratings: dict[tuple[int, str], list[float]] = {}

    def tick(self) -> datetime:
        self.clock += timedelta(minutes=7)
        return self.clock

    async def tournament(self, name: str, fmt: str, status: str, bots: list[int]) -> int:
        started = self.tick()
        tid: int = await self.conn.fetchval(
            """INSERT INTO tournaments (organiser_id, name, format, mode, status, settings,
                   current_round, started_at, finished_at)
               VALUES ($1, $2, $3, '1v1', $4, '{"rounds": 3}', 0, $5, $6) RETURNING id""",
            self.owner,
            name,
            fmt,
            status,
            started,
            started + timedelta(hours=2) if status == "finished" else None,
        )
        for k, bot in enumerate(bots):
            await self.conn.execute(
                "INSERT INTO tournament_entries (tournament_id, bot_id, seed) VALUES ($1, $2, $3)",
                tid,
                bot,
                k + 1,
            )
        return tid

    async def round(self, tid: int, number: int, status: str) -> int:
        rid: int = await self.conn.fetchval(
            "INSERT INTO rounds (tournament_id, number, status) VALUES ($1, $2, $3) RETURNING id",
            tid,
            number,
            status,
        )
        await self.conn.execute(
            "UPDATE tournaments SET current_round = $2 WHERE id = $1", tid, number
        )
        return rid

    async def match(
        self,
        seeded: Seeded,
        names: tuple[str, str],
        *,
        tid: int | None = None,
        rid: int | None = None,
        board: int = 0,
        bracket: str = "main",
        status: str = "done",
        seed: int = 1,
        bracket_match: str | None = None,
    ) -> int:
        a, b = seeded.bots[names[0]], seeded.bots[names[1]]
        mid: int = await self.conn.fetchval(
            """INSERT INTO matches (tournament_id, round_id, bracket, board, mode, status, seed,
                   games_per_match, rules, created_at, bracket_match)
               VALUES ($1, $2, $3, $4, '1v1', 'pending', $5, 2, '{"points_to_win": 15}', $6, $7)
               RETURNING id""",
            tid,
            rid,
            bracket,
            board,
            seed,
            self.tick(),
            bracket_match,
        )
        for side, bot in enumerate((a, b)):
            await self.conn.execute(
                "INSERT INTO match_entrants (match_id, slot, bot_id, side) VALUES ($1, $2, $3, $4)",
                mid,
                side,
                bot,
                side,
            )
        seeded.sides[mid] = (a, b)
        if status == "pending":
            return mid
        replay = await play(mid, names[0], names[1], seed)
        data = msgspec.json.encode(replay)
        await self.conn.execute(
            "INSERT INTO replays (match_id, compression, data, size_bytes) VALUES ($1, 'zlib', $2, $3)",
            mid,
            zlib.compress(data),
            len(data),
        )
        if status == "running":
            await self.conn.execute(
                "UPDATE matches SET status = 'running', started_at = $2 WHERE id = $1",
                mid,
                self.tick(),
            )
            return mid
        winner = replay.result.winner
        finished = self.tick()
        await self.conn.execute(
            """UPDATE matches SET status = 'done', winner_side = $2, started_at = $3,
                   finished_at = $3 WHERE id = $1""",
            mid,
            winner,
            finished,
        )
        await self.conn.execute(
            "INSERT INTO match_results (match_id, winner_side, result) VALUES ($1, $2, $3)",
            mid,
            winner,
            json.dumps(msgspec.to_builtins(played_result(replay))),
        )
        seeded.replays[mid] = replay
        seeded.winners[mid] = winner
        await self.rate(mid, (a, b), winner, finished)
        return mid

    async def rate(self, mid: int, bots: tuple[int, int], winner: int | None, at: datetime) -> None:
        for side, bot in enumerate(bots):
            history = self.ratings.setdefault((bot, "1v1"), [1500.0])
            delta = 0.0 if winner is None else (16.0 if winner == side else -16.0)
            before = history[-1]
            history.append(before + delta)
            result = "draws" if winner is None else ("wins" if winner == side else "losses")
            await self.conn.execute(
                f"""INSERT INTO ratings (bot_id, mode, rating, matches, {result}, updated_at)
                    VALUES ($1, '1v1', $2, 1, 1, $3)
                    ON CONFLICT (bot_id, mode) DO UPDATE SET rating = EXCLUDED.rating,
                        matches = ratings.matches + 1, {result} = ratings.{result} + 1,
                        updated_at = EXCLUDED.updated_at""",
                bot,
                before + delta,
                at,
            )
            await self.conn.execute(
                """INSERT INTO rating_history (bot_id, mode, match_id, rating_before, rating_after, at)
                   VALUES ($1, '1v1', $2, $3, $4, $5)""",
                bot,
                mid,
                before,
                before + delta,
                at,
            )

    owner: int = 0


async def seed(url: str) -> Seeded:
    conn = await asyncpg.connect(url)
    try:
        s = Seeder(conn)
        owner: int = await conn.fetchval(
            "INSERT INTO accounts (name, api_key_hash) VALUES ($1, $2) RETURNING id",
            "web <b>owner</b>",
            hashlib.sha256(secrets.token_bytes(32)).digest(),
        )
        s.owner = owner
        bots: dict[str, int] = {}
        for name in NAMES:
            bots[name] = await conn.fetchval(
                """INSERT INTO bots (owner_id, name, url, signing_secret_enc, signing_key_id)
                   VALUES ($1, $2, $3, $4, 'test') RETURNING id""",
                owner,
                name,
                "https://example.invalid/bot?<x>",
                b"\x00" * 16,
            )
        seeded = Seeded(owner_id=owner, bots=bots)
        n = iter(range(1, 1000))

        # Swiss, 4 bots, running: rounds 1 and 2 played, round 3 half played.
        four = ["El Ancho", "Siete Bravo", "Mazo Man", XSS_NAME]
        tid = await s.tournament(
            "Copa <i>Swiss</i> de Otoño", "swiss", "running", [bots[x] for x in four]
        )
        seeded.swiss_id = tid
        pairings = [
            [("El Ancho", "Mazo Man"), ("Siete Bravo", XSS_NAME)],
            [("El Ancho", "Siete Bravo"), (XSS_NAME, "Mazo Man")],
            [("El Ancho", XSS_NAME), ("Siete Bravo", "Mazo Man")],
        ]
        for number, pairs in enumerate(pairings, start=1):
            rid = await s.round(tid, number, "done" if number < 3 else "running")
            for board, pair in enumerate(pairs, start=1):
                pending = number == 3 and board == 2
                mid = await s.match(
                    seeded,
                    pair,
                    tid=tid,
                    rid=rid,
                    board=board,
                    status="pending" if pending else "done",
                    seed=next(n) * 101,
                )
                if pending:
                    seeded.pending_swiss_match = mid
                if number == 1 and board == 2:
                    seeded.replay_match = mid

        # Double elimination, 4 bots, finished.
        de = ["El Ancho", "Siete Bravo", "Falta Envido", "Retruco"]
        tid = await s.tournament(
            "Doble Eliminación", "double_elimination", "finished", [bots[x] for x in de]
        )
        seeded.double_id = tid
        r1 = await s.round(tid, 1, "done")
        m1 = await s.match(
            seeded,
            ("El Ancho", "Retruco"),
            tid=tid,
            rid=r1,
            board=1,
            bracket="winners",
            bracket_match="W1-1",
            seed=next(n) * 7,
        )
        m2 = await s.match(
            seeded,
            ("Siete Bravo", "Falta Envido"),
            tid=tid,
            rid=r1,
            board=2,
            bracket="winners",
            bracket_match="W1-2",
            seed=next(n) * 7,
        )

        def side_name(mid: int, winner: bool, entered: list[str] = de) -> str:
            """The side that goes through, as the bracket decides it: games, tantos, seed
            (``entered``: the event's bots in seed order)."""
            seed_of = {bots[x]: k + 1 for k, x in enumerate(entered)}
            games, tantos = seeded.replays[mid].result.games_won, seeded.replays[mid].result.tantos
            a, b = seeded.sides[mid]
            if games[0] != games[1]:
                w = 0 if games[0] > games[1] else 1
            elif tantos[0] != tantos[1]:
                w = 0 if tantos[0] > tantos[1] else 1
            else:
                w = 0 if seed_of[a] < seed_of[b] else 1
            bot = seeded.sides[mid][w if winner else 1 - w]
            return next(k for k, v in bots.items() if v == bot)

        r2 = await s.round(tid, 2, "done")
        w2 = await s.match(
            seeded,
            (side_name(m1, True), side_name(m2, True)),
            tid=tid,
            rid=r2,
            board=1,
            bracket="winners",
            bracket_match="W2-1",
            seed=next(n) * 7,
        )
        l2 = await s.match(
            seeded,
            (side_name(m1, False), side_name(m2, False)),
            tid=tid,
            rid=r2,
            board=1,
            bracket="losers",
            bracket_match="L1-1",
            seed=next(n) * 7,
        )
        r3 = await s.round(tid, 3, "done")
        l3 = await s.match(
            seeded,
            (side_name(w2, False), side_name(l2, True)),
            tid=tid,
            rid=r3,
            board=1,
            bracket="losers",
            bracket_match="L2-1",
            seed=next(n) * 7,
        )
        r4 = await s.round(tid, 4, "done")
        gf = await s.match(
            seeded,
            (side_name(w2, True), side_name(l3, True)),
            tid=tid,
            rid=r4,
            board=1,
            bracket="final",
            bracket_match="GF",
            seed=next(n) * 7,
        )
        if side_name(gf, True) == side_name(l3, True):  # the losers' side won: the reset
            r5 = await s.round(tid, 5, "done")
            await s.match(
                seeded,
                (side_name(gf, True), side_name(gf, False)),
                tid=tid,
                rid=r5,
                board=1,
                bracket="final",
                bracket_match="GF2",
                seed=next(n) * 7,
            )

        # Round robin, 3 bots, finished.
        rr = ["Mazo Man", "Falta Envido", "Parda"]
        tid = await s.tournament(
            "Todos contra todos", "round_robin", "finished", [bots[x] for x in rr]
        )
        seeded.robin_id = tid
        for number, pair in enumerate([(rr[0], rr[1]), (rr[2], rr[0]), (rr[1], rr[2])], start=1):
            rid = await s.round(tid, number, "done")
            await s.match(seeded, pair, tid=tid, rid=rid, board=1, seed=next(n) * 13)

        # Single elimination, 4 bots, finished: two semi-finals and the final.
        se = ["Siete Bravo", "Mazo Man", "Retruco", "Parda"]
        tid = await s.tournament(
            "Eliminación simple", "single_elimination", "finished", [bots[x] for x in se]
        )
        seeded.single_id = tid
        r1 = await s.round(tid, 1, "done")
        semis = [
            await s.match(
                seeded,
                pair,
                tid=tid,
                rid=r1,
                board=k,
                bracket="winners",
                seed=next(n) * 17,
                bracket_match=f"W1-{k}",
            )
            for k, pair in enumerate([(se[0], se[3]), (se[1], se[2])], start=1)
        ]
        r2 = await s.round(tid, 2, "done")
        await s.match(
            seeded,
            (side_name(semis[0], True, se), side_name(semis[1], True, se)),
            tid=tid,
            rid=r2,
            board=1,
            bracket="winners",
            seed=next(n) * 17,
            bracket_match="W2-1",
        )

        # A casual live match: running, with a replay stored so far.
        seeded.live_match = await s.match(seeded, ("Parda", "Retruco"), status="running", seed=4242)
    finally:
        await conn.close()
    await _played_by_flow(url, seeded)
    return seeded


SINGLE_NAMES = ["newcomer-bot", "nc-heuristic", "truco-veterano", "envido-king", "flor-de-ceibo"]
TEAM_NAMES = ["newcomer-bot-2v2", "a-rather-long-partnership-bot"]


async def _played_by_flow(url: str, seeded: Seeded) -> None:
    """Events played as the platform plays them (:mod:`services.flow`, in-process bots): a
    5-bot single elimination with a third-place match (three byes), and a team 2v2 match.
    Bots get hyphenated one-word names, the kind a browser must not break mid-word."""
    from services import flow
    from services.db import matches as db_matches
    from services.db.pool import create_pool
    from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_tournament

    pool = await create_pool(url, min_size=1, max_size=4)
    try:
        for fmt, names, mode in (
            ("single_elimination", SINGLE_NAMES, "1v1"),
            ("single_elimination", TEAM_NAMES, "2v2"),
        ):
            tid, bot_ids = await make_tournament(pool, fmt, len(names), mode=mode, third_place=True)
            for bot_id, name in zip(bot_ids, names, strict=True):
                await pool.execute("UPDATE bots SET name = $2 WHERE id = $1", bot_id, name)
                seeded.bots[name] = bot_id
            await pool.execute(
                "UPDATE tournaments SET name = $2 WHERE id = $1", tid, f"Copa {mode} a eliminar"
            )
            strategies = dict.fromkeys(bot_ids, "heuristic")
            send = InProcessSender(in_process(strategies))
            await send(pool, await flow.start_tournament(pool, tid))
            if mode == "1v1":
                seeded.knockout_id = tid
            else:
                seeded.team_id = tid
                played = [m for m in await db_matches.tournament_matches(pool, tid) if not m.bye]
                seeded.team_match = played[0].id
        await _individual(pool, seeded)
        await _faults(pool, seeded)
        await _sprt(pool, seeded)
    finally:
        await pool.close()


INDIVIDUAL_NAMES = ["solo-uno", "solo-dos", "solo-tres", "solo-cuatro", "solo-cinco"]


async def _individual(pool: asyncpg.Pool, seeded: Seeded) -> None:
    """An individual 2v2 Swiss of five bots, played by flow."""
    from services import flow
    from tests.services.helpers.flow_helpers import InProcessSender, in_process, make_tournament

    tid, bot_ids = await make_tournament(
        pool, "swiss", 5, mode="2v2", partnership="individual", owners=list(range(5))
    )
    for bot_id, name in zip(bot_ids, INDIVIDUAL_NAMES, strict=True):
        await pool.execute("UPDATE bots SET name = $2 WHERE id = $1", bot_id, name)
        seeded.bots[name] = bot_id
    await pool.execute("UPDATE tournaments SET name = 'Copa de a uno' WHERE id = $1", tid)
    await InProcessSender(in_process({}))(pool, await flow.start_tournament(pool, tid))
    seeded.individual_id = tid


async def _faults(pool: asyncpg.Pool, seeded: Seeded) -> None:
    """A round robin of "sano" (sound) and one bot per way of losing without playing
    (:data:`tests.services.web.seed_faults.FAILURES`): walkovers and forfeits of every fault kind."""
    from services import flow
    from services.db import matches as db_matches
    from tests.services.helpers.flow_helpers import InProcessSender, make_tournament
    from tests.services.web.seed_faults import FAILURES, connector

    names = ["sano", *FAILURES]
    tid, bot_ids = await make_tournament(pool, "round_robin", len(names))
    for bot_id, name in zip(bot_ids, names, strict=True):
        await pool.execute("UPDATE bots SET name = $2 WHERE id = $1", bot_id, name)
        seeded.bots[name] = bot_id
    await pool.execute("UPDATE tournaments SET name = 'Copa de las fallas' WHERE id = $1", tid)
    failing = {bot_id: name for bot_id, name in zip(bot_ids, names, strict=True) if name != "sano"}
    await InProcessSender(connector(failing))(pool, await flow.start_tournament(pool, tid))
    seeded.faults_id = tid
    for m in await db_matches.tournament_matches(pool, tid):
        ids = set(m.bots)
        if seeded.bots["sano"] in ids:
            (other,) = ids - {seeded.bots["sano"]}
            seeded.lost_by[failing[other]] = m.id


async def _sprt(pool: asyncpg.Pool, seeded: Seeded) -> None:
    """An SPRT test of El Ancho against Mazo Man with two pairs played and stored."""
    from services import flow
    from services.db import matches as db_matches
    from services.domain.sprt_runs import SprtParams
    from services.flow import sprt as flow_sprt

    test_id, next_ids = await flow_sprt.create_test(
        pool,
        owner_id=seeded.owner_id,
        bot_a=seeded.bots["El Ancho"],
        bot_b=seeded.bots["Mazo Man"],
        mode="1v1",
        rules={"points_to_win": 15},
        params=SprtParams(elo0=0, elo1=50, alpha=0.05, beta=0.05, max_games=200, concurrency=1),
    )
    for _pair in range(2):
        (match_id,) = next_ids
        match = await db_matches.get_match(pool, match_id)
        assert match is not None
        settings = MatchSettings(
            rules=Rules.from_dict(match.rules), games_per_match=2, deals=match.deals
        )
        bots = [
            (EntrantRecord(name, f"bot:{k}"), InProcessBot(name, strategy_decider(kind, k)))
            for k, (name, kind) in enumerate((("El Ancho", "heuristic"), ("Mazo Man", "random")))
        ]
        replay = await run_match(str(match_id), match.seed, settings, bots)
        next_ids = (await flow.record_result(pool, match_id, replay)).next_ids
    seeded.sprt_id = test_id
