"""Individual 2v2 in the match runner: four bots, one per seat, each called only for its seat.

Entrant ``k`` sits at seat ``(k + g) % 4`` in game ``g``: partners (0 & 2, 1 & 3) stay together,
the sides swap every game, each bot sees only its own seat, and a seña reaches the partner
always and an opponent only when the rules' draw says so (R-9).
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from pathlib import Path

import msgspec
import pytest

from arena.client.connection import InProcessBot
from arena.match.replay import EntrantRecord, Replay, load_replay
from arena.match.runner import DEFAULT_GAMES_PER_MATCH, MatchSettings, run_match, seat_entrants
from arena.match.verify import verify_replay
from arena.wire import structs as wire
from arena.wire.protocol import ActRequest, ActResponse, StartRequest
from engine import Rules
from engine.actions import SENAS
from engine.events import ActionTaken

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class SignallingBot(InProcessBot):
    """Plays at random, adds a seña to every play, and records every request it receives."""

    def __init__(self, name: str, seed: int) -> None:
        rng = random.Random(seed)
        self.acts: list[ActRequest] = []
        self.starts: list[StartRequest] = []

        def decide(request: ActRequest) -> ActResponse:
            self.acts.append(request)
            choice = request.legal_actions[rng.randrange(len(request.legal_actions))]
            sena = rng.choice(SENAS) if choice.action == "play" else None
            return ActResponse(action=choice.action, card=choice.card, sena=sena)

        super().__init__(name, decide)

    async def start(self, request: StartRequest) -> None:
        self.starts.append(request)


async def _play(
    seed: int, seen_by_opponents: float, games: int = 4
) -> tuple[Replay, list[SignallingBot]]:
    bots = [SignallingBot(f"bot{k}", seed * 10 + k) for k in range(4)]
    settings = MatchSettings(
        rules=Rules(players=4, points_to_win=15, sena_seen_by_opponents=seen_by_opponents),
        games_per_match=games,
    )
    replay = await run_match(
        f"i{seed}", seed, settings, [(EntrantRecord(b.name, "builtin:test"), b) for b in bots]
    )
    return replay, bots


def test_seats_rotate_with_partners_kept_and_mano_going_round() -> None:
    for game in range(8):
        seats = seat_entrants(game, 4, 4)
        assert sorted(seats) == [0, 1, 2, 3]
        assert seats[0] % 2 == seats[2] % 2 and seats[1] % 2 == seats[3] % 2  # partners together
        assert seats[0] == (-game) % 4  # seat 0 (mano of the first hand) goes round
    assert seat_entrants(1, 2, 4) == (1, 0, 1, 0)  # team 2v2 unchanged: a side fills both seats


async def test_each_bot_is_called_only_for_its_own_seat() -> None:
    replay, bots = await _play(3, 0.25)
    verify_replay(load_replay(msgspec.json.encode(replay)))
    assert len(replay.entrants) == 4
    by_game: dict[str, int] = {}
    for game in replay.games:
        by_game[game.game_id] = game.number - 1
        assert game.seats == seat_entrants(game.number - 1, 4, 4)
    for k, bot in enumerate(bots):
        assert bot.acts, f"{bot.name} was never called"
        for request in [*bot.acts, *bot.starts]:
            assert request.seat == (k + by_game[request.game_id]) % 4
        for request in bot.acts:
            assert request.observation.seat == request.seat
        # the partner is named with it in the team names, the opponents on the other team
        start = bot.starts[0]
        assert f"bot{k}" in start.entrants[start.team]
        assert f"bot{(k + 2) % 4}" in start.entrants[start.team]
        assert f"bot{(k + 1) % 4}" in start.entrants[1 - start.team]


async def test_result_is_by_side_and_latency_by_bot() -> None:
    replay, _ = await _play(5, 0.25)
    won = [0, 0]
    for game in replay.games:
        assert game.winner is not None
        assert game.teams == ((0, 1) if (game.number - 1) % 2 == 0 else (1, 0))
        won[game.winner] += 1
    assert replay.result.games_won == (won[0], won[1])
    assert replay.result.latency is not None and len(replay.result.latency) == 4
    assert all(lat.calls > 0 for lat in replay.result.latency)


@pytest.mark.parametrize("chance", [0.0, 0.5, 1.0])
async def test_senas_reach_the_partner_and_opponents_only_by_the_rules_draw(chance: float) -> None:
    replay, bots = await _play(7, chance, games=2)
    sent = [
        e
        for game in replay.games
        for e in game.events
        if isinstance(e, ActionTaken) and e.sena is not None
    ]
    assert sent, "no seña was sent"
    for event in sent:  # the engine's draw: the partner always; opponents by the probability
        opponents = {(event.seat + 1) % 4, (event.seat + 3) % 4}
        assert (event.seat + 2) % 4 in event.sena_seen_by
        if chance == 0.0:
            assert not opponents & set(event.sena_seen_by)
        if chance == 1.0:
            assert opponents <= set(event.sena_seen_by)
    # what each bot received: another seat's seña only where its own seat is a witness
    received: dict[str, int] = defaultdict(int)
    for bot in bots:
        for request in bot.acts:
            for event in request.observation.events:
                if not isinstance(event, wire.ActionTaken) or event.seat == request.seat:
                    continue
                if event.sena is not None:
                    assert request.seat in event.sena_seen_by, (
                        f"{bot.name} at seat {request.seat} saw a seña of seat {event.seat} "
                        f"meant for seats {event.sena_seen_by}"
                    )
                    partner = event.seat % 2 == request.seat % 2
                    received["partner" if partner else "opponent"] += 1
    assert received["partner"] > 0
    if chance == 0.0:
        assert received["opponent"] == 0
    if chance == 1.0:
        assert received["opponent"] > 0


def test_truco_play_with_four_bots_plays_individual_2v2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from truco_cli.main import main

    out = tmp_path / "four.json"
    bots = ["builtin:heuristic", "builtin:random", "builtin:heuristic", "builtin:random"]
    args = ["play", *bots, "--points", "15", "--seed", "4", "--quiet", "--out", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    # the partnerships, winner first (A and C partner, B and D), or a draw
    assert re.search(r"Result: (A heuristic & C heuristic|B random & D random) win ", printed) or (
        "Result: A heuristic & C heuristic vs B random & D random: draw" in printed
    )
    replay = load_replay(out.read_bytes())
    verify_replay(replay)
    assert replay.rules.players == 4 and len(replay.entrants) == 4
    games = DEFAULT_GAMES_PER_MATCH[4]  # four bots: the 2v2 default
    assert len(replay.games) == games
    assert [g.seats for g in replay.games] == [seat_entrants(g, 4, 4) for g in range(games)]
    assert main(["play", *bots[:3], "--quiet", "--out", str(tmp_path / "x.json")]) == 2
    assert "give two bots" in capsys.readouterr().err


async def test_decision_export_names_the_bot_that_played_each_seat() -> None:
    from truco_env.decisions import replay_rows

    replay, bots = await _play(11, 0.25, games=2)
    for row in replay_rows(replay):
        expected = bots[seat_entrants(row["game"] - 1, 4, 4)[row["seat"]]].name
        assert row["entrant"] == expected


async def test_a_faulty_bot_forfeits_for_its_side_with_its_own_strikes() -> None:
    from arena.match.replay import Decision

    bots: list[InProcessBot] = [SignallingBot(f"bot{k}", k) for k in range(4)]
    bots[3] = InProcessBot("cheat", lambda request: ActResponse(action="play", card="1E"))
    settings = MatchSettings(rules=Rules(players=4, points_to_win=15), fault_limit=3)
    replay = await run_match(
        "f1", 2, settings, [(EntrantRecord(b.name, "builtin:test"), b) for b in bots]
    )
    result = replay.result
    assert result.reason == "forfeit" and result.forfeit == 1 and result.winner == 0
    game = replay.games[-1]
    faults = [e for e in game.events if isinstance(e, Decision) and e.fault]
    assert faults and all(game.entrant_at(e.seat) == 3 for e in faults)  # only the cheat's
    assert [e.strikes for e in faults] == [1, 2, 3]
    assert game.faults == (0, 3)
