"""Turning stored rows into response bodies (shared by the tournament and match handlers)."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from arena.match.luck import MatchLuck
from arena.match.replay import Cause
from engine.errors import RulesError
from services.api.problems import FieldError, ProblemError
from services.api.schemas.matches import GameRead, MatchCause, MatchRead
from services.api.schemas.tournaments import (
    BracketMatchRead,
    BracketRead,
    BracketSide,
    MatchEntrant,
    RoundMatch,
    RoundRead,
    StandingRead,
    TournamentSettingsRead,
    TournamentSummary,
)
from services.db.matches import StoredMatch
from services.db.tournaments import RoundRow, Tournament
from services.domain import seeds
from services.tournaments.brackets import names as bracket_names
from services.tournaments.brackets.bracket import BYE, resolve
from services.tournaments.brackets.format import depths
from services.tournaments.event import SeededEntrant, StandingRow, seed_maps
from services.tournaments.formats import bracket_format, get_format
from services.tournaments.outcome import MatchOutcome, match_outcome
from services.tournaments.played import knockout_decision, played


def rules_problem(exc: RulesError) -> ProblemError:
    """A 422 naming the offending rules key (``body.rules.<key>``; ``body.rules`` when the
    whole object is wrong)."""
    message = str(exc)
    field = "body.rules" if exc.key is None else f"body.rules.{exc.key}"
    return ProblemError(
        422,
        message,
        slug="invalid-rules",
        title="The rules are not valid",
        errors=[FieldError(field=field, message=message)],
    )


def entrants_of(match: StoredMatch, names: dict[int, str]) -> list[MatchEntrant]:
    return [
        MatchEntrant(bot_id=bot, name=names.get(bot, ""), side=slot % 2)
        for slot, bot in enumerate(match.bots)
    ]


def _game_winner(match: StoredMatch, side: int | None) -> int | None:
    return None if side is None or match.individual else match.bots[side]


def outcome_of(match: StoredMatch, entrants: list[MatchEntrant]) -> MatchOutcome | None:
    """The result as people read it (:mod:`services.tournaments.outcome`)."""
    return match_outcome(
        status=match.status,
        bye=match.bye,
        seats=entrants,
        winner_side=match.winner_side,
        result=match.result,
        bracket_match=match.bracket_match,
    )


def round_match(match: StoredMatch, names: dict[int, str]) -> RoundMatch:
    entrants = entrants_of(match, names)
    return RoundMatch(
        id=match.id,
        status=match.status,
        board=match.board,
        entrants=entrants,
        winner=match.winner_bot,
        winners=list(match.winners),
        bye=match.bye,
        bracket_match=match.bracket_match,
        outcome=outcome_of(match, entrants),
    )


def match_read(match: StoredMatch, names: dict[int, str], *, hands: bool = True) -> MatchRead:
    """A match as the API shows it; ``hands`` False leaves the hands out of its luck (lists)."""
    result = match.result
    games = [
        GameRead(
            score=list(game.score),
            winner=_game_winner(match, game.winner),
            winner_side=game.winner,
        )
        for game in (result.games if result is not None else ())
    ]
    reason = "bye" if match.bye else (result.reason if result is not None else None)
    stored_causes = result.causes if result is not None else None
    causes = [cause_read(match, cause) for cause in stored_causes or ()]
    entrants = entrants_of(match, names)
    return MatchRead(
        id=match.id,
        status=match.status,
        mode=match.mode,
        partnership=match.partnership,
        tournament_id=match.tournament_id,
        ladder=match.ladder_pool,
        round=match.round_number,
        bracket_match=match.bracket_match,
        bye=match.bye,
        rated=match.rated,
        games_per_match=match.games_per_match,
        deals=match.deals,
        rules=match.rules,
        entrants=entrants,
        games=games,
        winner=match.winner_bot,
        winners=list(match.winners),
        winner_side=match.winner_side,
        reason=reason,
        cause=causes[0] if causes else None,
        causes=causes,
        error=result.error if result is not None else None,
        games_won=list(result.games_won) if result is not None else None,
        tantos=list(result.tantos) if result is not None else None,
        decided_by=knockout_decision(match.bracket_match, match.result),
        outcome=outcome_of(match, entrants),
        # nothing that derives its cards while a worker may still play it (a match decided
        # without its play is stopping until that worker stopped)
        seed=match.seed if match.finished and match.stopped else None,
        seed_scheme=match.seed_scheme,
        seed_commitment=seed_commitment(match.master_seed),
        master_seed=revealed(match.master_seed, match.stopped),
        created_at=match.created_at,
        finished_at=match.finished_at,
        luck=_luck(result.luck if result is not None else None, hands),
    )


def _luck(luck: MatchLuck | None, hands: bool) -> MatchLuck | None:
    if luck is None or hands:
        return luck
    games = tuple(msgspec.structs.replace(game, hands=()) for game in luck.games)
    return msgspec.structs.replace(luck, games=games)


def cause_read(match: StoredMatch, cause: Cause) -> MatchCause:
    """A stored cause (of ``match_results.result``) as the API shows it."""
    bots = match.bots
    return MatchCause(
        side=cause.side % 2,  # a cause names its entrant; entrant k plays for side k % 2
        bot_id=bots[cause.side] if 0 <= cause.side < len(bots) else None,
        call=cause.call,
        kind=cause.kind,
        status=cause.status,
        detail=cause.detail,
        summary=cause.summary,
    )


def summary(tournament: Tournament) -> TournamentSummary:
    settings = tournament.settings
    return TournamentSummary(
        id=tournament.id,
        name=tournament.name,
        format=tournament.format,
        mode=tournament.mode,
        partnership=tournament.partnership,
        status=tournament.status,
        organiser_id=tournament.organiser_id,
        settings=TournamentSettingsRead(
            rules=settings.rules,
            rounds=settings.rounds,
            games_per_match=settings.games_per_match,
            timeout_ms=settings.timeout_ms,
            time_bank_ms=settings.time_bank_ms,
            fault_limit=settings.fault_limit,
            third_place=settings.third_place,
            deals=settings.deals,
            rated=settings.rated,
        ),
        current_round=tournament.current_round,
        created_at=tournament.created_at,
        start_at=tournament.start_at,
        started_at=tournament.started_at,
        finished_at=tournament.finished_at,
        seed_commitment=seed_commitment(tournament.master_seed),
        master_seed=revealed(tournament.master_seed, tournament.seed_revealed),
    )


def seed_commitment(master_seed: bytes | None) -> str | None:
    return None if master_seed is None else seeds.commitment(master_seed)


def revealed(master_seed: bytes | None, over: bool) -> str | None:
    """The master seed in hex once its event is over and no worker plays a match of it any
    more; None before (and when there is none)."""
    return master_seed.hex() if over and master_seed is not None else None


def rounds_of(
    rounds: Sequence[RoundRow], matches: Sequence[StoredMatch], names: dict[int, str]
) -> list[RoundRead]:
    return [
        RoundRead(
            number=r.number,
            status=r.status,
            matches=[round_match(m, names) for m in matches if m.round_id == r.id],
        )
        for r in rounds
    ]


def standings_of(rows: Sequence[StandingRow], names: dict[int, str]) -> list[StandingRead]:
    known = set(StandingRead.__struct_fields__)
    return [
        StandingRead(
            rank=row.rank,
            bot_id=row.bot_id,
            name=names.get(row.bot_id, ""),
            points=row.points,
            withdrawn=row.withdrawn,
            **{k: v for k, v in row.tiebreaks.items() if k in known},
        )
        for row in rows
    ]


def bracket_of(
    tournament: Tournament, entrants: Sequence[SeededEntrant], matches: Sequence[StoredMatch]
) -> BracketRead | None:
    if not get_format(tournament.format).is_bracket or not entrants:
        return None
    format = bracket_format(tournament.format)
    event = played(entrants, matches, third_place=tournament.settings.third_place)
    bracket = format.make_bracket(len(entrants), third_place=event.third_place)
    by_seed, _ = seed_maps(entrants)
    state = resolve(bracket, event.bracket_results)
    level = depths(bracket)
    rows = {m.bracket_match: m.id for m in matches if m.bracket_match is not None}
    names = bracket_names.match_names(bracket, format.double)
    round_names = bracket_names.round_names(bracket, format.double)

    def side(seed: int | None) -> BracketSide:
        if seed is None:
            return BracketSide()
        if seed == BYE:
            return BracketSide(bye=True)
        return BracketSide(seed=seed, bot_id=by_seed[seed])

    items = []
    for match in bracket.matches:
        r = state[match.id]
        items.append(
            BracketMatchRead(
                code=match.id,
                bracket=match.bracket,
                round=level[match.id],
                name=names[match.id],
                round_name=round_names[match.id],
                a=side(r.a),
                b=side(r.b),
                winner=by_seed.get(r.winner) if r.winner else None,
                match_id=rows.get(match.id),
                void=r.void,
            )
        )
    return BracketRead(
        kind=bracket.kind,
        matches=items,
        champion=format.champion(event),
    )
