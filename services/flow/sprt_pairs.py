"""What a stored pair of an SPRT test does (``flow.record_result`` calls :func:`after_result`
in the transaction that stores the match; docs/sprt.md).

The pair's score is appended to the test, and the test either ends (H0 or H1 accepted, or
``inconclusive`` at ``max_games``; its unplayed pairs are cancelled, so a result sent later
for one is not stored) or gets new pairs, so that ``concurrency`` are in play. A pair lost by
walkover (a bot unreachable) ends the test as ``failed``, as the local ``truco sprt`` stops.
Results enter the test in the order they are stored. Each pair's seed is committed and
derived as a challenge's is (:mod:`services.domain.seeds`: a master seed per pair, revealed when it is
over).
"""

from __future__ import annotations

from arena.match.replay import Replay
from arena.sprt.pair import GAMES_PER_PAIR, Unreachable, pair_score
from services.db import matches as db_matches
from services.db import sprt_tests as db_sprt
from services.db.accounts import Connection
from services.db.sprt_tests import StoredSprt
from services.domain import seeds, sprt_runs


async def lock_test_of(conn: Connection, match_id: int) -> None:
    """Lock the test of a pair, if it is one, before the pair's row is locked: tests before
    their matches, the order :func:`services.flow.sprt.cancel_test` and a test's end take, so
    a result and a cancel never deadlock."""
    test_id = await db_sprt.sprt_of_match(conn, match_id)
    if test_id is not None:
        await db_sprt.get_test(conn, test_id, for_update=True)


async def start_pairs(conn: Connection, test: StoredSprt, *, open_pairs: int) -> list[int]:
    """Create the pairs that keep ``concurrency`` in play; their ids, to queue after commit."""
    wanted = sprt_runs.pairs_to_start(test.params, started=test.started, open_pairs=open_pairs)
    created = []
    for _ in range(wanted):
        master = seeds.new_master_seed()  # committed per pair, as for a challenge
        match_id = await db_matches.insert_match(
            conn,
            bots=(test.bot_a, test.bot_b),
            mode=test.mode,
            seed=seeds.challenge_seed(master, test.bot_a, test.bot_b),
            rated=False,
            games_per_match=GAMES_PER_PAIR,
            rules=test.rules,
            deals=test.deals,
            seed_scheme=seeds.DERIVED,
            master_seed=master,
        )
        await db_sprt.link_match(conn, test.id, match_id)
        created.append(match_id)
    return created


async def after_result(
    conn: Connection, match_id: int, replay: Replay
) -> tuple[list[int], list[int]]:
    """A match outside tournaments was stored (inside ``flow.record_result``'s transaction):
    if it is a pair of a running test, count it and end the test or start the next pairs.
    Returns the ids of new matches to queue and of the pairs the test's end cancelled (their
    workers are asked to stop them)."""
    test_id = await db_sprt.sprt_of_match(conn, match_id)
    if test_id is None:
        return [], []
    test = await db_sprt.get_test(conn, test_id, for_update=True)
    if test is None or test.status != "running":
        return [], []
    try:
        score = pair_score(replay)
    except Unreachable as exc:
        error = f"{exc}; no result"
        return [], await db_sprt.finish_test(conn, test_id, status="failed", error=error)
    await db_sprt.add_score(conn, test_id, score)
    scores = (*test.scores, score)
    result = sprt_runs.outcome(test.params, scores)
    if result is not None:
        return [], await db_sprt.finish_test(conn, test_id, status="finished", result=result)
    open_pairs = await db_sprt.open_pairs(conn, test_id)
    return await start_pairs(conn, test, open_pairs=open_pairs), []


async def after_given_up(conn: Connection, match_id: int, detail: str) -> None:
    """The recovery sweeper gave up on a match outside tournaments (inside its transaction,
    the test locked first by :func:`lock_test_of`): if it is a pair of a running test, the
    test ends as ``failed`` and its other unplayed pairs are cancelled, so it neither waits
    forever nor keeps its place in the quota."""
    test_id = await db_sprt.sprt_of_match(conn, match_id)
    if test_id is not None:
        await db_sprt.finish_test(conn, test_id, status="failed", error=f"pair {match_id} {detail}")
