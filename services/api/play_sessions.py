"""Play sessions: a person's match against a bot, run as a task in this API process.

A :class:`PlaySession` holds the person's :class:`~arena.match.human.HumanSeat` and the
runner's task (``run_match`` with the seat and the bot: the same rules, judge, fallback and
replay as any match). Sessions are capped per client address and per process
(``TRUCO_PLAY_PER_ADDRESS``, ``TRUCO_PLAY_TOTAL``, the :class:`StreamCaps` bookkeeping); a
session's slot is held until its match is over. When the match ends its replay and result go
to ``play_matches`` (never to ``matches``: ratings are not touched), and the session stays in
memory for :data:`LINGER_S` so the page can show the end; afterwards the database answers.
When the process stops, unfinished sessions are stored as abandoned.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final

import asyncpg
import msgspec

from arena.client.connection import BotConnection
from arena.match.human import HumanSeat
from arena.match.replay import EntrantRecord, Replay
from arena.match.runner import MatchSettings, run_match
from services.api.guard.stream_caps import Slot, StreamCaps
from services.api.schemas.play import (
    Opponent,
    PlayOption,
    PlayOutcome,
    PlayStatus,
    PlayTurn,
    PlayView,
)
from services.db import play_matches as db_play
from services.domain.result import played_result

logger = logging.getLogger("services.api.routes.play")
LINGER_S: Final = 600.0
"""How long a finished session stays in memory (its page shows the end from it)."""


@dataclass
class PlaySession:
    id: int
    token_hash: bytes
    seat: HumanSeat
    opponent: Opponent
    person_side: int
    settings: MatchSettings
    slot: Slot
    partner: Opponent | None = None
    status: PlayStatus = "playing"
    replay: Replay | None = None
    task: asyncio.Task[None] | None = None

    def view(self) -> PlayView:
        seat = self.seat
        turn = seat.turn
        shown_turn = None
        if turn is not None and self.status == "playing":
            shown_turn = PlayTurn(
                number=turn.number,
                legal_actions=[
                    PlayOption(action=a.action, card=a.card) for a in turn.request.legal_actions
                ],
                clock_ms=turn.clock_ms,
                clock_left_ms=seat.clock_left_ms() or 0,
            )
        return PlayView(
            id=self.id,
            status=self.status,
            version=seat.version,
            opponent=self.opponent,
            partner=self.partner,
            person_side=self.person_side,
            rules=self.settings.rules,
            games=self.settings.games_per_match,
            game_number=seat.game_number,
            turn=shown_turn,
            observation=None if seat.observation is None else msgspec.to_builtins(seat.observation),
            outcome=None if self.replay is None else outcome(self.replay, self.person_side),
            replay_url=None if self.replay is None else f"/v1/play/{self.id}/replay",
        )


def outcome(replay: Replay, person_side: int) -> PlayOutcome:
    result = replay.result
    return PlayOutcome(
        winner_side=result.winner,
        games_won=result.games_won,
        reason=result.reason,
        person_won=result.winner == person_side,
    )


@dataclass
class PlayRoom:
    """Every play session of this process."""

    caps: StreamCaps
    sessions: dict[int, PlaySession] = field(default_factory=dict)
    _handles: list[asyncio.TimerHandle] = field(default_factory=list)

    def get(self, play_id: int) -> PlaySession | None:
        return self.sessions.get(play_id)

    def begin(
        self,
        pool: asyncpg.Pool,
        session: PlaySession,
        bots: Sequence[tuple[EntrantRecord, BotConnection]],
        seed: int,
    ) -> None:
        """Start the session's match: the person is entrant 0 (side 0); ``bots`` are the other
        entrants in slot order (1v1: the opponent; 2v2: opponent, partner, opponent)."""
        human = (EntrantRecord("person", "person"), session.seat)
        entrants: Sequence[tuple[EntrantRecord, BotConnection]] = [human, *bots]
        self.sessions[session.id] = session
        session.task = asyncio.create_task(self._run(pool, session, entrants, seed))

    async def _run(
        self,
        pool: asyncpg.Pool,
        session: PlaySession,
        entrants: Sequence[tuple[EntrantRecord, BotConnection]],
        seed: int,
    ) -> None:
        try:
            replay = await run_match(f"play-{session.id}", seed, session.settings, entrants)
            await db_play.finish_play_match(
                pool,
                session.id,
                status="finished",
                winner_side=replay.result.winner,
                result=played_result(replay),
                replay=msgspec.json.encode(replay),
            )
            session.replay = replay  # stored first: the view's replay address answers at once
            session.status = "finished"
        except asyncio.CancelledError:
            session.status = "abandoned"
            raise
        except Exception:
            logger.exception("play session %s failed; stored as abandoned", session.id)
            session.status = "abandoned"
            with contextlib.suppress(Exception):
                await db_play.abandon_unfinished(pool, [session.id])
        finally:
            session.slot.release()
            session.seat.touch()
            loop = asyncio.get_running_loop()
            self._handles.append(loop.call_later(LINGER_S, self.sessions.pop, session.id, None))

    async def aclose(self, pool: asyncpg.Pool | None) -> None:
        """Stop every running session (the process stops): they are stored as abandoned."""
        for handle in self._handles:
            handle.cancel()
        running = [s for s in self.sessions.values() if s.task is not None and not s.task.done()]
        for session in running:
            assert session.task is not None
            session.task.cancel()
        for session in running:
            assert session.task is not None
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await session.task
        if pool is not None and running:
            with contextlib.suppress(Exception):
                await db_play.abandon_unfinished(pool, [s.id for s in running])
        self.sessions.clear()
