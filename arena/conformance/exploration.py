"""Random seeded games steered to reach every family of decision, for ``truco check``.

:func:`explore` plays games of varied rules with a random policy biased towards cantos (truco
ladder, envido chain, flor bets), attaching ``say`` texts and señas, and dealing some hands
on purpose (flores on both sides, cards not yet seen) so that every family of
:data:`FAMILIES` comes up. Every decision of every seat becomes a :class:`Position`; the
check asks the bot about each one and judges its answer as the arena would. Everything is
deterministic from the seed.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import msgspec

from engine.actions import SENAS, Action
from engine.apply import apply
from engine.cards import DECK, SUIT, Card
from engine.events import ActionTaken, HandStarted
from engine.legal import AL_RESTO_ANSWERS, CONTRAFLOR_ANSWERS, FIRST_FLOR_ANSWERS, legal_actions
from engine.rules import Rules
from engine.start import new_game, with_deal
from engine.state import TRUCO_LEVELS, State

# Every family of decision, with what reaching it means (the seat to act is "you").
FAMILIES: dict[str, str] = {
    "card in round 1": "you play a card in round 1",
    "card in round 2": "you play a card in round 2",
    "card in round 3": "you play a card in round 3",
    "every card": "each of the 40 cards has been in your hand",
    "sing truco": "truco is yours to sing",
    "sing retruco": "retruco is yours to sing, your side having accepted the truco",
    "sing vale cuatro": "vale cuatro is yours to sing, your side having accepted the retruco",
    "answer truco": "you answer a truco",
    "answer retruco": "you answer a retruco",
    "answer vale cuatro": "you answer a vale cuatro",
    "sing envido": "the envido cantos are yours to sing",
    "envido over a truco": "you answer a truco and may sing envido first",
    "answer envido": "you answer an envido",
    "answer envido envido": "you answer an envido envido",
    "answer real envido": "you answer a real envido",
    "answer falta envido": "you answer a falta envido",
    "sing flor": "you hold a flor and must sing it",
    "flor over an envido": "an envido was sung and your unsung flor comes first",
    "answer flor": "you answer a flor with flor, contraflor, ... or me achico",
    "answer contraflor": "you answer a contraflor",
    "answer contraflor al resto": "you answer a contraflor al resto",
    "mazo": "the mazo is among your options",
    "say": "the hand so far holds another seat's say text",
    "2v2 seña": "in 2v2, the hand so far holds a seña you saw",
}

# The rules of successive games, in turn: both modes, flor on and off, both targets and faltas.
GAME_RULES: tuple[Rules, ...] = (
    Rules(players=2, flor=True),
    Rules(players=4, flor=True, sena_seen_by_opponents=0.5),
    Rules(players=2, flor=False, points_to_win=15, falta_envido="to_buenas"),
    Rules(players=4, flor=False, points_to_win=15, mazo_first_round_costs_two=False),
    Rules(players=2, flor=True, points_to_win=15, falta_envido="to_buenas"),
)

# Texts other seats attach as ``say``: what a bot must take in its stride.
SAYS: tuple[str, ...] = (
    "¡Truco! 🃏",
    "<script>alert('say')</script>",
    'comillas " y barra \\ invertida',
    "línea uno\nlínea dos\ttab",
    "\u202eal revés",
    "",
    "x" * 280,
    '{"action": "mazo"}',
)

# How much the steering policy likes each word (a card is 1).
WEIGHTS: dict[str, float] = {
    "truco": 4.0,
    "retruco": 5.0,
    "vale_cuatro": 6.0,
    "envido": 3.0,
    "real_envido": 3.0,
    "falta_envido": 2.0,
    "flor": 1.0,
    "contraflor": 3.0,
    "contraflor_al_resto": 3.0,
    "con_flor_quiero": 1.0,
    "con_flor_me_achico": 1.0,
    "quiero": 4.0,
    "no_quiero": 1.0,
    "mazo": 0.05,
}


# While a family is still missing, the words that lead to it weigh this much more.
BOOST = 8.0
LEADS_TO: dict[str, tuple[str, ...]] = {
    "sing retruco": ("truco", "quiero"),
    "sing vale cuatro": ("retruco", "quiero"),
    "answer truco": ("truco",),
    "answer retruco": ("retruco",),
    "answer vale cuatro": ("vale_cuatro",),
    "envido over a truco": ("truco",),
    "answer envido": ("envido",),
    "answer envido envido": ("envido",),
    "answer real envido": ("real_envido",),
    "answer falta envido": ("falta_envido",),
    "flor over an envido": ("envido",),
    "answer contraflor": ("contraflor",),
    "answer contraflor al resto": ("contraflor", "contraflor_al_resto"),
}


@dataclass(frozen=True)
class Position:
    """One decision of a random game: the state before it and the families it reaches."""

    game: int  # 1-based
    number: int  # 1-based, across all games
    state: State
    families: frozenset[str]


@dataclass
class Exploration:
    """What :func:`explore` played: the positions, how often each family came up, the games."""

    seed: int
    positions: list[Position] = field(default_factory=list)
    reached: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAMILIES, 0))
    games: int = 0

    @property
    def missing(self) -> list[str]:
        return [name for name, count in self.reached.items() if count == 0]


def families_of(state: State) -> set[str]:
    """The families the decision of the seat to act in ``state`` belongs to ("every card" is
    counted over a whole exploration, by :func:`explore`)."""
    seat = state.to_act
    legal = {a.action for a in legal_actions(state)}
    found: set[str] = set()
    if "play" in legal:
        found.add(f"card in round {state.round + 1}")
    pending = state.truco_pending
    if pending and state.truco_answerer == seat and "quiero" in legal and "mazo" in legal:
        found.add(f"answer {TRUCO_LEVELS[pending].replace('_', ' ')}")
        if "envido" in legal:
            found.add("envido over a truco")
    elif "play" in legal:
        for word in ("truco", "retruco", "vale_cuatro"):
            if word in legal:
                found.add(f"sing {word.replace('_', ' ')}")
        if "envido" in legal:
            found.add("sing envido")
    if state.envido_answerer == seat and "quiero" in legal and state.envido_chain:
        chain = state.envido_chain
        name = "envido envido" if chain == ("envido", "envido") else chain[-1].replace("_", " ")
        found.add(f"answer {name}")
    options = legal_actions(state)
    if options == FIRST_FLOR_ANSWERS:
        found.add("answer flor")
    elif options == CONTRAFLOR_ANSWERS:
        found.add("answer contraflor")
    elif options == AL_RESTO_ANSWERS:
        found.add("answer contraflor al resto")
    elif legal == {"flor"}:
        found.add("flor over an envido" if state.flor_interrupt == seat else "sing flor")
    if "mazo" in legal:
        found.add("mazo")
    for event in state.log:
        if isinstance(event, ActionTaken) and event.seat != seat:
            if event.say is not None:
                found.add("say")
            if event.sena is not None and seat in event.sena_seen_by:
                found.add("2v2 seña")
    return found


def _choose(state: State, rng: random.Random, missing: list[str]) -> Action:
    """The steering policy: random, biased towards cantos and towards the words that lead to
    the families still ``missing``; sometimes a say, in 2v2 a seña."""
    options = legal_actions(state)
    boosted = {word for name in missing for word in LEADS_TO.get(name, ())}
    weights = [
        WEIGHTS.get(option.action, 1.0) * (BOOST if option.action in boosted else 1.0)
        for option in options
    ]
    action = rng.choices(options, weights)[0]
    say = rng.choice(SAYS) if rng.random() < 0.2 else None
    sena = rng.choice(SENAS) if state.players == 4 and rng.random() < 0.4 else None
    if say is not None or sena is not None:
        action = msgspec.structs.replace(action, say=say, sena=sena)
    return action


def _deal(state: State, rng: random.Random, cards_seen: set[Card], missing: list[str]) -> State:
    """Sometimes deal the new hand on purpose: flores on both sides, one flor after the mano
    (so an envido can come before it), or unseen cards first."""
    roll = rng.random()
    players = state.players
    if state.rules.flor and roll < 0.35:
        suits = rng.sample(("E", "B", "O", "C"), 3 if players == 4 else 2)
        holders = [0, 1, rng.choice([2, 3])] if players == 4 else [0, 1]
        if "flor over an envido" in missing and rng.random() < 0.5:
            holders = [(state.mano + rng.randrange(1, players)) % players]
        rng.shuffle(holders)
        deck = list(DECK)
        rng.shuffle(deck)
        hands: dict[int, list[Card]] = {}
        for seat, suit in zip(holders, suits, strict=False):
            hands[seat] = [card for card in deck if SUIT[card] == suit][:3]
        rest = [card for card in deck if not any(card in hand for hand in hands.values())]
        for seat in range(players):
            if seat not in hands:
                hands[seat], rest = rest[:3], rest[3:]
        return with_deal(state, [hands[seat] for seat in range(players)])
    if roll < 0.6:
        unseen = [card for card in DECK if card not in cards_seen]
        others = [card for card in DECK if card in cards_seen]
        rng.shuffle(unseen)
        rng.shuffle(others)
        deck = (unseen + others)[: 3 * players]
        rng.shuffle(deck)
        return with_deal(state, [deck[3 * s : 3 * s + 3] for s in range(players)])
    return state


def _game(rules: Rules, rng: random.Random) -> State:
    target = rules.points_to_win
    score = (0, 0)
    if rng.random() < 0.5:  # start some games late, so late positions come up often
        score = (rng.randrange(target), rng.randrange(target))
    return new_game(rules, seed=rng.randrange(2**31), score=score)


def _play(
    state: State, rng: random.Random, cards_seen: set[Card], result: Exploration
) -> Iterator[tuple[State, set[str]]]:
    """The decisions of one game (at most 150), each with its families."""
    state = _deal(state, rng, cards_seen, result.missing)
    for _ in range(150):
        if state.game_over:
            return
        cards_seen.update(state.deal[state.to_act])
        yield state, families_of(state)
        state, events = apply(state, _choose(state, rng, result.missing))
        if any(isinstance(event, HandStarted) for event in events) and not state.game_over:
            state = _deal(state, rng, cards_seen, result.missing)


def explore(seed: int, decisions: int = 200, max_games: int = 200) -> Exploration:
    """Positions from random games until at least ``decisions`` and every family is reached
    (or ``max_games`` games were played: then :attr:`Exploration.missing` is not empty)."""
    rng = random.Random(f"truco-check/{seed}")
    result = Exploration(seed)
    cards_seen: set[Card] = set()
    while result.games < max_games and (len(result.positions) < decisions or result.missing):
        rules = GAME_RULES[result.games % len(GAME_RULES)]
        result.games += 1
        state = _game(rules, rng)
        for position, found in _play(state, rng, cards_seen, result):
            if len(cards_seen) == len(DECK):
                found.add("every card")
            for name in found:
                result.reached[name] += 1
            number = len(result.positions) + 1
            result.positions.append(Position(result.games, number, position, frozenset(found)))
    return result


def describe(state: State) -> list[str]:
    """A position in words, for a report: rules, score, hand, cards, table and cantos."""
    seat = state.to_act
    rules = state.rules
    mode = "2v2" if state.players == 4 else "1v1"
    flor = "flor on" if rules.flor else "flor off"
    table = ", ".join(f"seat {s} {c}" for s, c in state.trick) or "nothing yet"
    rounds = ["parda" if r < 0 else f"team {r}" for r in state.results]
    cantos = [
        f"truco accepted: {TRUCO_LEVELS[state.truco] or 'none'}",
        f"truco asked: {TRUCO_LEVELS[state.truco_pending] or 'none'}",
        f"envido: {' '.join(state.envido_chain) or 'none'}",
        f"flores sung by seats: {', '.join(map(str, state.flor_sung)) or 'none'}",
    ]
    return [
        f"{mode} to {rules.points_to_win}, {flor}, falta {rules.falta_envido}; "
        f"score {state.score[0]}-{state.score[1]}; hand {state.hand + 1}, round {state.round + 1}"
        f"; mano seat {state.mano}",
        f"seat {seat} (team {seat % 2}) to act, holding {' '.join(state.cards[seat])}; "
        f"rounds won: {', '.join(rounds) or 'none yet'}; on the table: {table}",
        "; ".join(cantos),
    ]
