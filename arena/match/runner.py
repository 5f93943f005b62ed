"""The match runner: plays a match between two sides and produces its replay.

A match is ``games_per_match`` games under one rules object. Every game is dealt from its own
stream derived from the match seed (``deals="independent"``, the default) or, with
``deals="mirrored"``, games come in pairs that deal the same cards with the entrants' seats
swapped (:mod:`arena.game.deals`: only safe between bots of one owner). Seats alternate game to
game either way.

Entrants come in *slot* order and entrant ``k`` plays for side ``k % 2``:

* two entrants (1v1, and "team" 2v2): an entrant is a side; in 2v2 its bot fills both seats of
  its side and is called separately for each seat, with that seat's observation only (but one
  server sees both partners' cards);
* four entrants ("individual" 2v2): every seat is its own bot; entrants 0 and 2 are partners
  (side 0), 1 and 3 (side 1). In game ``g`` entrant ``k`` sits at seat ``(k + g) % 4``: partners
  stay together, the sides swap every game and the mano goes round all four. Each bot is called
  only for its own seat, so it sees only what that seat may see (a seña reaches the partner,
  and an opponent only when the rules' ``sena_seen_by_opponents`` draw says so).

Results (games won, tantos, winner, forfeit, faults) are by side; time banks, strikes and
latencies are per entrant (per bot).

Everything a bot does wrong is a fault: recorded in the replay, answered with the fallback action
and counted; ``fault_limit`` faults in one game forfeit the match; an entrant that cannot be
reached when the match starts loses by walkover. The runner is deterministic from the match seed
and the bots' answers.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Final

import msgspec

from arena.client.bot_client import Fault, TimeBank
from arena.client.connection import Answer, BotConnection
from arena.game.boundary import TrucoGame
from arena.game.deals import INDEPENDENT, Deals, game_id, game_seed, seating
from arena.game.truco import TRUCO
from arena.match.judge import Accepted, judge
from arena.match.replay import (
    FORMAT,
    Call,
    Cause,
    Decision,
    EntrantRecord,
    GameRecord,
    Latency,
    MatchResult,
    Replay,
    ReplayEvent,
    StartFault,
    decide_result,
)
from arena.wire.protocol import act_request, end_request, start_request
from engine.actions import Action
from engine.events import Event
from engine.rules import Rules
from engine.state import State

DEFAULT_GAMES_PER_MATCH: Final = {2: 6, 4: 12}
"""Games per match by number of players when none is given (platform, ``truco play``): the
shortest match in which ``heuristic`` beats ``weak-heuristic`` at least 95% of the time with
independent deals, measured by ``python -m bench.match_length`` (docs/deals.md)."""


def default_games_per_match(players: int) -> int:
    """The default match length for ``players`` (2 or 4)."""
    return DEFAULT_GAMES_PER_MATCH[players]


class MatchSettings(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    rules: Rules = Rules()
    games_per_match: Annotated[int, msgspec.Meta(ge=1, le=100)] = DEFAULT_GAMES_PER_MATCH[2]
    deals: Deals = INDEPENDENT
    timeout_ms: Annotated[int, msgspec.Meta(ge=10, le=60_000)] = 1000
    time_bank_ms: Annotated[int, msgspec.Meta(ge=10, le=3_600_000)] = 30_000
    fault_limit: Annotated[int, msgspec.Meta(ge=1, le=1000)] = 5
    anonymous: bool = False
    """``/start`` names no entrant (:data:`ANONYMOUS`); ``/end`` names them all. A ladder's
    matches are played so: a bot cannot refuse, or play differently against, an opponent it
    has not been told of (docs/ladder.md)."""


ANONYMOUS = "anonymous"
"""What ``/start`` calls every entrant of an anonymous match (its ``entrants``)."""

Progress = Callable[[int, State, Decision | None, Sequence[Event]], None]
"""The runner's progress hook: ``(game index, state, decision, events)`` after each decision
(the runner's own :class:`Decision` record and the game events it caused, in order), and once
when a game opens (``decision`` None, ``events`` the opening deal)."""


def seat_entrants(
    game_index: int, entrants: int, players: int, game: TrucoGame = TRUCO
) -> tuple[int, ...]:
    """The entrant index at each seat of game ``game_index`` (see the module docstring)."""
    if entrants == 4:
        return tuple((seat - game_index) % 4 for seat in range(players))
    teams = seating(game_index)
    return tuple(teams[game.team(seat)] for seat in range(players))


class UnplayableMatch(ValueError):
    """A match that can never be played as ordered (its entrants cannot sit at its rules):
    playing it again changes nothing, so whoever plays it refuses it, with these words, and
    the platform decides it as its own fault (docs/reliability.md)."""


def check_playable(settings: MatchSettings, entrants: int) -> None:
    """Raise :class:`UnplayableMatch` unless ``entrants`` can sit at a match of ``settings``:
    two (one a side), or four (one a seat) under rules with four players."""
    if entrants not in (2, 4):
        raise UnplayableMatch(
            f"a match has two entrants (one per side) or four (one per seat), not {entrants}"
        )
    if entrants == 4 and settings.rules.players != 4:
        raise UnplayableMatch("four entrants (one bot per seat) need rules with players = 4")


def side_of(entrant: int) -> int:
    """The side an entrant plays for (its slot's parity)."""
    return entrant % 2


def _latency(samples: list[float]) -> Latency:
    if not samples:
        return Latency(0, 0.0, 0.0, 0.0)
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return Latency(
        len(ordered), round(statistics.median(ordered), 2), round(p95, 2), round(ordered[-1], 2)
    )


@dataclass
class _Table:
    """One game of the match while it is played: who sits where, and what has happened."""

    index: int
    game_id: str
    seed: int
    teams: tuple[int, int]  # the entrant seated as team 0 and as team 1
    seats: tuple[int, ...]  # the entrant at each seat
    names: list[str]  # the teams' names, as /start tells the bots
    state: State
    opening: list[Event]  # the events that open the game (the deal)
    events: list[ReplayEvent]
    faults: list[int] = field(default_factory=lambda: [0, 0])  # by side
    forfeit: int | None = None  # the side that forfeits


class MatchRunner:
    def __init__(
        self,
        match_id: str,
        seed: int,
        settings: MatchSettings,
        entrants: Sequence[tuple[EntrantRecord, BotConnection]],
        progress: Progress | None = None,
        game: TrucoGame = TRUCO,
        attempt: int = 0,
    ) -> None:
        check_playable(settings, len(entrants))
        self.match_id = match_id
        self.seed = seed
        self.attempt = attempt
        self.settings = settings
        self.records = tuple(record for record, _ in entrants)
        self.bots = tuple(bot for _, bot in entrants)
        self.progress = progress
        self.game = game
        self.latencies: tuple[list[float], ...] = tuple([] for _ in entrants)
        self._start_failures: dict[int, Fault] = {}  # entrant -> its first /start fault

    async def run(self) -> Replay:
        """Play the whole match."""
        games: list[GameRecord] = []
        opened = [await bot.open() for bot in self.bots]
        unreachable = {i: fault for i, fault in enumerate(opened) if fault is not None}
        if unreachable:
            return self._replay(games, self._walkover(unreachable, "info"))
        for index in range(self.settings.games_per_match):
            game = await self._play_game(index)
            if game is None:  # walkover on the first /start
                return self._replay(games, self._walkover(self._start_failures, "start"))
            games.append(game)
            if game.forfeit is not None:
                break
        result = decide_result(games)
        result.latency = tuple(_latency(samples) for samples in self.latencies)
        return self._replay(games, result)

    def _walkover(self, unreachable: Mapping[int, Fault], call: Call) -> MatchResult:
        """The sides with an unreachable entrant lose (both sides: no winner)."""
        losers = sorted(unreachable)
        lost = {side_of(entrant) for entrant in losers}
        winner = None if len(lost) == 2 else 1 - lost.pop()
        causes = tuple(
            Cause(i, call, unreachable[i].kind, unreachable[i].status, unreachable[i].detail)
            for i in losers
        )
        return MatchResult(
            games_won=(0, 0),
            tantos=(0, 0),
            winner=winner,
            reason="walkover",
            walkover=tuple(losers),
            causes=causes,
        )

    def _replay(self, games: list[GameRecord], result: MatchResult) -> Replay:
        s = self.settings
        return Replay(
            format=FORMAT,
            match_id=self.match_id,
            seed=self.seed,
            rules=s.rules,
            deals=s.deals,
            games_per_match=s.games_per_match,
            timeout_ms=s.timeout_ms,
            time_bank_ms=s.time_bank_ms,
            fault_limit=s.fault_limit,
            entrants=self.records,
            games=games,
            result=result,
            attempt=self.attempt,
        )

    async def _play_game(self, index: int) -> GameRecord | None:
        """Game ``index``: start every seat, play it decision by decision, end every seat.
        None when a bot could not start the first game (the match is a walkover)."""
        table = self._seat(index)
        if not await self._start_seats(table):
            return None
        if self.progress is not None:
            self.progress(index, table.state, None, table.opening)
        await self._decision_loop(table)
        return await self._end_seats(table)

    def _seat(self, index: int) -> _Table:
        """Game ``index`` dealt: who sits where, the teams' names, the opening events."""
        game = self.game
        players = game.players(self.settings.rules)
        seats = seat_entrants(index, len(self.bots), players, game)

        names = [
            " & ".join(
                dict.fromkeys(
                    self.records[seats[seat]].name
                    for seat in range(players)
                    if game.team(seat) == team
                )
            )
            for team in (0, 1)
        ]
        seed = game_seed(self.seed, index, self.settings.deals, self.attempt)
        state = game.new_game(self.settings.rules, seed)
        opening = game.initial_events(state)
        return _Table(
            index=index,
            game_id=game_id(self.match_id, index, self.attempt),
            seed=seed,
            teams=seating(index),
            seats=seats,
            names=names,
            state=state,
            opening=opening,
            events=list(opening),
        )

    async def _start_seats(self, table: _Table) -> bool:
        """Send ``/start`` to every seat; a fault is written in the game's events, and in the
        first game it makes the match a walkover (False: the game is not played)."""
        s = self.settings
        self._start_failures = {}
        for seat, entrant in enumerate(table.seats):
            request = start_request(
                self.match_id,
                table.game_id,
                seat,
                s.rules,
                game_number=table.index + 1,
                games_in_match=s.games_per_match,
                team=self.game.team(seat),
                entrants=[ANONYMOUS, ANONYMOUS] if s.anonymous else table.names,
                timeout_ms=s.timeout_ms,
                time_bank_ms=s.time_bank_ms,
            )
            fault = await self.bots[entrant].start(request)
            if fault is not None:
                table.events.append(StartFault(seat, fault.kind, fault.detail, fault.status))
                if table.index == 0:
                    self._start_failures.setdefault(entrant, fault)
        return not self._start_failures

    async def _decision_loop(self, table: _Table) -> None:
        """Ask the seat to act, judge its answer (the fallback on a fault), until the game is
        over or an entrant reaches the fault limit (its side forfeits)."""
        s = self.settings
        game = self.game
        banks = [TimeBank(float(s.time_bank_ms)) for _ in self.bots]
        strikes = [0 for _ in self.bots]
        last_latency: list[int | None] = [None] * len(table.seats)
        while not game.over(table.state):
            seat = game.to_act(table.state)
            entrant = table.seats[seat]
            legal = game.legal_actions(table.state)
            bank = banks[entrant]
            act = act_request(
                self.match_id,
                table.game_id,
                seat,
                game.observe(table.state, seat),
                legal,
                timeout_ms=int(bank.limit_ms(s.timeout_ms)),
                time_bank_ms=int(bank.remaining_ms),
                last_latency_ms=last_latency[seat],
            )
            answer = await self.bots[entrant].act(act, bank)
            banks[entrant] = bank.debit(answer.latency_ms)
            last_latency[seat] = round(answer.latency_ms)
            self.latencies[entrant].append(answer.latency_ms)
            table.state, caused, decision = self._resolve(
                table.state, seat, legal, answer, strikes[entrant]
            )
            if decision.fault is not None:
                strikes[entrant] += 1
                table.faults[side_of(entrant)] += 1
            table.events.append(decision)
            table.events.extend(caused)
            if self.progress is not None:
                self.progress(table.index, table.state, decision, caused)
            if strikes[entrant] >= s.fault_limit:
                table.forfeit = side_of(entrant)
                break

    async def _end_seats(self, table: _Table) -> GameRecord:
        """Send ``/end`` to every seat (the score, the winner, whether a side forfeited) and
        return the game's record."""
        game, state, forfeit, teams = self.game, table.state, table.forfeit, table.teams
        winner = None
        final = game.winner(state)
        if forfeit is not None:
            winner = 1 - forfeit
        elif final is not None:
            winner = teams[final]
        for seat, entrant in enumerate(table.seats):
            await self.bots[entrant].end(
                end_request(
                    self.match_id,
                    table.game_id,
                    seat,
                    game.observe(state, seat),
                    score=game.score(state),
                    winner=final if forfeit is None else teams.index(1 - forfeit),
                    forfeit=forfeit is not None,
                    entrants=table.names,
                )
            )
        return GameRecord(
            number=table.index + 1,
            game_id=table.game_id,
            seed=table.seed,
            teams=teams,
            events=table.events,
            score=game.score(state),
            winner=winner,
            forfeit=forfeit,
            faults=(table.faults[0], table.faults[1]),
            seats=table.seats,
        )

    def _resolve(
        self, state: State, seat: int, legal: list[Action], answer: Answer, strikes: int
    ) -> tuple[State, list[Event], Decision]:
        """Play the bot's answer, or on a fault the fallback: the state, the events and the
        decision record (``strikes``: the entrant's faults in this game before this one)."""
        latency = round(answer.latency_ms, 2)
        verdict = judge(self.game, state, seat, legal, answer)
        if isinstance(verdict, Accepted):
            return verdict.state, verdict.events, Decision(seat, latency)
        after, caused = self.game.apply(state, self.game.fallback(legal), seat)
        status = None if answer.fault is None else answer.fault.status
        decision = Decision(seat, latency, verdict.kind, verdict.detail, strikes + 1, True, status)
        return after, caused, decision


async def run_match(
    match_id: str,
    seed: int,
    settings: MatchSettings,
    entrants: Sequence[tuple[EntrantRecord, BotConnection]],
    progress: Progress | None = None,
    game: TrucoGame = TRUCO,
    attempt: int = 0,
) -> Replay:
    """Play a match and return its replay (the result is ``replay.result``); ``attempt`` > 0
    when it is played again, dealt afresh (:mod:`arena.deals`)."""
    runner = MatchRunner(match_id, seed, settings, entrants, progress, game, attempt)
    try:
        return await runner.run()
    finally:
        for bot in runner.bots:
            await bot.close()
