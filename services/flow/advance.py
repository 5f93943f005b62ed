"""Advancing a running tournament: ask its format for the next step and store it (new matches
with their seeds, rounds complete or skipped, the end); a match whose bot left is decided at
once by forfeit."""

from __future__ import annotations

import dataclasses
import logging
import secrets
import time
from functools import partial

from services.db import matches as db_matches
from services.db import stopping as db_stopping
from services.db import tournaments as db_tournaments
from services.db.accounts import Connection
from services.db.matches import StoredMatch
from services.db.tournaments import Tournament
from services.domain import INDIVIDUAL, seeds
from services.domain.result import withdrawn_result
from services.flow.event import event_state
from services.flow.pairing import plan_off_loop
from services.metrics.catalog import PAIRING_DURATION
from services.tournaments import individual
from services.tournaments.event import Plan, Planned, SeededEntrant
from services.tournaments.formats import get_format, table_format
from services.tournaments.played import played

logger = logging.getLogger("services.flow")

SEED_BITS = 63


def new_seed() -> int:
    """A random 63-bit match seed (fits PostgreSQL's bigint): only for the remaining matches
    of a tournament created before seeds were committed (migration 0008), marked legacy."""
    return secrets.randbits(SEED_BITS)


def planned_seed(tournament: Tournament, planned: Planned) -> tuple[int, seeds.SeedScheme]:
    """The seed of a planned match and how it was made: derived from the tournament's master
    seed and the match's place (services.domain.seeds), or random for a tournament without one."""
    if tournament.master_seed is None:
        return new_seed(), seeds.LEGACY
    seed = seeds.tournament_match_seed(
        tournament.master_seed, tournament.id, planned.round, planned.board, planned.bracket_match
    )
    return seed, seeds.DERIVED


async def advance(conn: Connection, tournament: Tournament) -> list[int]:
    """Create whatever the finished matches make ready; finish the event when it is over.
    Loops while matches are decided on creation (byes, forfeits of withdrawn bots).

    The tournament's format decides (:meth:`~services.tournaments.formats.TournamentFormat.plan_next`;
    in individual 2v2, :func:`services.tournaments.individual.plan_next`); this stores its step.
    Call it inside the transaction that decided a match, holding the tournament's row lock
    (``get_tournament(..., lock="update")``: ``tournament`` is that row, as the caller read it
    and changed it since; this keeps it current itself rather than read it again), so the
    next round is paired exactly once; the returned match ids are to be queued after the
    commit. The pairing itself runs off the event loop (:mod:`services.flow.pairing`)."""
    to_queue: list[int] = []
    tournament_id = tournament.id
    while True:
        if tournament.status != "running":
            return to_queue
        if await _round_still_open(conn, tournament):
            return to_queue
        began = time.perf_counter()
        entrants, matches = await event_state(conn, tournament_id)
        step = await plan_off_loop(partial(_plan, tournament, entrants, matches))
        tournament = await _store_step(conn, tournament, step)
        if not step.planned:
            return to_queue
        plan = list(step.planned)
        created, decided = await _create(conn, tournament, entrants, plan)
        to_queue += created
        current = max(p.round for p in plan)
        await db_tournaments.set_current_round(conn, tournament_id, current)
        tournament = dataclasses.replace(
            tournament, current_round=max(tournament.current_round, current)
        )
        logger.info(
            "tournament %s round %s paired: %d matches in %.3f s",
            tournament_id,
            max(p.round for p in plan),
            len(plan),
            time.perf_counter() - began,
        )
        if not decided:
            return to_queue


def _plan(
    tournament: Tournament, entrants: list[SeededEntrant], matches: list[StoredMatch]
) -> Plan:
    """The format's next step (pure: run in the pairing thread)."""
    settings = tournament.settings
    event = played(
        entrants,
        matches,
        third_place=settings.third_place,
        current_round=tournament.current_round,
        rounds_wanted=settings.rounds,
    )
    with PAIRING_DURATION.labels(tournament.format).time():
        if tournament.partnership == INDIVIDUAL:
            return individual.plan_next(table_format(tournament.format), event, matches)
        return get_format(tournament.format).plan_next(event)


async def _round_still_open(conn: Connection, tournament: Tournament) -> bool:
    """A table format (Swiss, round robin, individual 2v2) plans nothing while its current
    round has a match to finish (:func:`~services.tournaments.table_format.plan_table`): asked
    of the index, so a result that does not end its round reads one row, not the whole event
    (which made recording a round quadratic in its size)."""
    by_rounds = tournament.partnership == INDIVIDUAL or not get_format(tournament.format).is_bracket
    return (
        by_rounds
        and tournament.current_round > 0
        and await db_matches.round_unfinished(conn, tournament.id, tournament.current_round)
    )


async def _store_step(conn: Connection, tournament: Tournament, step: Plan) -> Tournament:
    """The rounds a step completed (and the empty rounds it skipped), and the end; the row as
    it is now."""
    for number in step.empty_rounds:
        await db_tournaments.ensure_round(conn, tournament.id, number)
    if step.done_rounds:
        for round_row in await db_tournaments.rounds(conn, tournament.id):
            if round_row.number in step.done_rounds:
                await db_tournaments.set_round_status(conn, round_row.id, "done")
    if step.empty_rounds:
        current = max(step.empty_rounds)
        await db_tournaments.set_current_round(conn, tournament.id, current)
        tournament = dataclasses.replace(
            tournament, current_round=max(tournament.current_round, current)
        )
    if step.finished:
        if step.ended_early:
            logger.warning("tournament %s %s", tournament.id, step.ended_early)
        await db_tournaments.finish_tournament(conn, tournament.id)
        tournament = dataclasses.replace(tournament, status="finished")
    return tournament


async def _create(
    conn: Connection, tournament: Tournament, entrants: list[SeededEntrant], plan: list[Planned]
) -> tuple[list[int], int]:
    """Insert planned matches; returns (ids to queue, how many were decided at once)."""
    settings = tournament.settings
    gone = {e.bot_id for e in entrants if e.withdrawn}
    to_queue: list[int] = []
    decided = 0
    for planned in plan:
        round_row = await db_tournaments.ensure_round(conn, tournament.id, planned.round)
        seed, scheme = planned_seed(tournament, planned)
        match_id = await db_matches.insert_match(
            conn,
            bots=planned.bots,
            mode=tournament.mode,
            seed=seed,
            seed_scheme=scheme,
            rated=settings.rated,
            games_per_match=settings.games_per_match,
            rules=settings.rules,
            tournament_id=tournament.id,
            round_id=round_row.id,
            bracket=planned.bracket,
            bracket_match=planned.bracket_match,
            board=planned.board,
            bye=planned.bye,
            deals=settings.deals,
            partnership=tournament.partnership,
            timeout_ms=settings.timeout_ms,
            time_bank_ms=settings.time_bank_ms,
            fault_limit=settings.fault_limit,
        )
        if planned.bye:
            decided += 1
        elif gone & set(planned.bots):
            match = await db_matches.get_match(conn, match_id, for_update=True)
            assert match is not None
            await forfeit(conn, match, gone)
            decided += 1
        else:
            to_queue.append(match_id)
    return to_queue, decided


async def forfeit(conn: Connection, match: StoredMatch, gone: set[int]) -> None:
    """Decide a match without playing it: the sides whose bots left lose (both: a draw). A
    match already sent to a worker is ``stopping`` until that worker has stopped playing it
    (its seed stays hidden until then: docs/verify.md)."""
    lost = sorted({slot % 2 for slot, bot in enumerate(match.bots) if bot in gone})
    winner = 1 - lost[0] if len(lost) == 1 else None
    document = withdrawn_result(lost)
    if await db_matches.insert_result(
        conn, match.id, winner_side=winner, result=document, task_id=None
    ):
        await db_stopping.mark_stopping(conn, match.id)
        await db_matches.finish_match(conn, match.id, status="forfeit", winner_side=winner)
