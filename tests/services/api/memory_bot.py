"""A bot with memory: an HTTP bot on 127.0.0.1 that remembers every card it ever sees and
predicts its opponent's hand from its own past hands.

It plays like the built-in ``heuristic`` bot. At its first decision in each hand it records its
three cards, every card it has seen played or shown so far, and a prediction: that the opponent
holds now the hand it held itself at the same hand number of the match's previous game. That is
exactly what mirrored deals give away (game 2 deals game 1's cards with the seats swapped); with
independent deals it should be right no more often than chance. 1v1 only.

:func:`score` compares the predictions with the true deals of the finished matches' replays.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from arena.match.replay import Replay
from arena.sdk import BotServer, strategy_decider
from arena.wire import structs as wire
from arena.wire.protocol import ActRequest, StartRequest
from engine.actions import Action
from engine.events import HandStarted

CHANCE = 3 / 37  # a given card not in my hand is one of the opponent's 3 among 37 unseen


@dataclass(frozen=True)
class Prediction:
    seat: int
    mine: frozenset[str]  # my cards this hand
    guess: frozenset[str]  # the opponent's cards, as predicted


@dataclass
class MemoryBot:
    """Keyed by (match id, game number, hand): my hand, and the predictions made."""

    hands: dict[tuple[str, int, int], frozenset[str]] = field(default_factory=dict)
    predictions: dict[tuple[str, int, int], Prediction] = field(default_factory=dict)
    seen: dict[str, set[str]] = field(default_factory=dict)  # every card seen, per match
    games: dict[str, int] = field(default_factory=dict)  # game id -> game number
    lock: threading.Lock = field(default_factory=threading.Lock)

    def server(self, seed: int = 1) -> BotServer:
        play = strategy_decider("heuristic", seed)

        def decide(request: ActRequest) -> Action:
            self.remember(request)
            return play(request)

        return BotServer(decide, name="memory", on_start=self.on_start)

    def on_start(self, request: StartRequest) -> None:
        with self.lock:
            self.games[request.game_id] = request.game_number

    def remember(self, request: ActRequest) -> None:
        obs = request.observation
        with self.lock:
            seen = self.seen.setdefault(request.match_id, set())
            seen.update(card for rnd in obs.rounds for _, card in rnd)
            for event in obs.previous_hand:
                if isinstance(event, wire.HandEnded):
                    seen.update(card for shown in event.shown for card in shown.cards)
            number = self.games[request.game_id]
            key = (request.match_id, number, obs.hand)
            if key in self.hands:
                return
            mine = frozenset(obs.cards)  # the first decision of a hand: all three unplayed
            assert len(mine) == 3
            self.hands[key] = mine
            seen.update(mine)
            earlier = self.hands.get((request.match_id, number - 1, obs.hand))
            if earlier is not None:
                self.predictions[key] = Prediction(obs.seat, mine, earlier)


@dataclass
class Score:
    hands: int = 0  # predictions checked
    exact: int = 0  # whole hands predicted right
    cards: int = 0  # predicted cards that could be the opponent's (not in my own hand)
    hits: int = 0  # of those, held by the opponent

    @property
    def rate(self) -> float:
        return self.hits / self.cards if self.cards else 0.0


def score(bot: MemoryBot, replays: dict[str, Replay]) -> Score:
    """Check every prediction against the deal in the replay of its match."""
    result = Score()
    for (match_id, number, hand), prediction in bot.predictions.items():
        game = replays[match_id].games[number - 1]
        (deal,) = [e.deal for e in game.events if isinstance(e, HandStarted) and e.hand == hand]
        assert frozenset(deal[prediction.seat]) == prediction.mine  # the seat is mine
        theirs = frozenset(deal[1 - prediction.seat])
        possible = prediction.guess - prediction.mine
        result.hands += 1
        result.exact += prediction.guess == theirs
        result.cards += len(possible)
        result.hits += len(possible & theirs)
    return result
