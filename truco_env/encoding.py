"""A fixed-size encoding of what one seat may know: ``encode(observation)``.

It reads only an ``engine.Observation``, which never holds another seat's unplayed cards, so the
tensor cannot leak them either. Seats are relative to the viewer: 0 is the viewer, 1 the next
seat in playing order (an opponent), 2 its partner in 2v2, 3 the opponent before it. 1v1 uses
relative seats 0 and 1 and leaves the others zero, so one size serves both modes.

Every value is in [0, 1]. ``LAYOUT`` names the blocks in order; ``blocks(vector)`` splits a
vector back into them (for tests and for reading a dataset row).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine import DECK, Observation
from engine.actions import ENVIDO_WORDS, SENAS
from engine.events import ActionTaken, EnvidoSettled, FlorSettled
from truco_env.actions import CARD_INDEX

SEATS = 4
TRUCO_LEVELS = (None, "truco", "retruco", "vale_cuatro")
ENVIDO_CHAIN = 4  # the longest chain: envido envido real_envido falta_envido
MAX_POINTS = 33  # envido and flor points stay below this

LAYOUT: tuple[tuple[str, int], ...] = (
    ("own_cards", len(DECK)),  # the viewer's unplayed cards
    ("played_by_seat", SEATS * len(DECK)),  # cards each relative seat played this hand
    ("current_round", len(DECK)),  # cards on the table in the round being played
    ("round_results", 3 * 3),  # per round: won by us, by them, parda
    ("round", 3),
    ("truco_accepted", len(TRUCO_LEVELS)),
    ("truco_pending", len(TRUCO_LEVELS)),
    ("envido_chain", ENVIDO_CHAIN * len(ENVIDO_WORDS)),
    ("envido_settled", 3),  # settled, won by us, querido
    ("envido_declared", SEATS * 2),  # per relative seat: stated, points / 33
    ("flor_settled", 2),  # settled, won by us
    ("flor_declared", SEATS * 2),
    ("flor_sung", SEATS),
    ("has_flor", 1),
    ("envido_points", 1),  # the viewer's own, / 33
    ("senas_seen", SEATS * len(SENAS)),  # the last seña the viewer saw from each seat
    ("score", 2),  # ours, theirs, / points_to_win
    ("mano", SEATS),
    ("to_act", SEATS),
    ("rules", 3),  # flor on, 15 points, 2v2
)
SIZE = sum(size for _, size in LAYOUT)
_OFFSET: dict[str, int] = {}
_at = 0
for _name, _size in LAYOUT:
    _OFFSET[_name] = _at
    _at += _size

Vector = npt.NDArray[np.float32]


def _rel(seat: int, viewer: int, players: int) -> int:
    return (seat - viewer) % players


def encode(obs: Observation, out: Vector | None = None) -> Vector:
    """The observation as a float32 vector of ``SIZE`` values in [0, 1]."""
    v = np.zeros(SIZE, np.float32) if out is None else out
    if out is not None:
        v.fill(0.0)
    players, me, team = obs.players, obs.seat, obs.team

    def put(block: str, index: int, value: float = 1.0) -> None:
        v[_OFFSET[block] + index] = value

    for card in obs.cards:
        put("own_cards", CARD_INDEX[card])
    for round_plays in obs.rounds:
        for seat, card in round_plays:
            put("played_by_seat", _rel(seat, me, players) * len(DECK) + CARD_INDEX[card])
    if not obs.game_over and obs.rounds:
        for _, card in obs.rounds[-1]:
            put("current_round", CARD_INDEX[card])
    for i, winner in enumerate(obs.round_winners[:3]):
        put("round_results", 3 * i + (2 if winner is None else 0 if winner == team else 1))
    put("round", min(obs.round, 2))
    put("truco_accepted", TRUCO_LEVELS.index(obs.truco))
    put("truco_pending", TRUCO_LEVELS.index(obs.truco_pending))
    for i, word in enumerate(obs.envido[:ENVIDO_CHAIN]):
        put("envido_chain", i * len(ENVIDO_WORDS) + ENVIDO_WORDS.index(word))
    for event in obs.events:
        if isinstance(event, EnvidoSettled):
            put("envido_settled", 0)
            put("envido_settled", 1, float(event.winner == team))
            put("envido_settled", 2, float(event.querido))
            for d in event.declarations:
                if d.points is not None:
                    rel = _rel(d.seat, me, players)
                    put("envido_declared", 2 * rel)
                    put("envido_declared", 2 * rel + 1, d.points / MAX_POINTS)
        elif isinstance(event, FlorSettled):
            put("flor_settled", 0)
            put("flor_settled", 1, float(event.winner == team))
            for d in event.declarations:
                if d.points is not None:
                    rel = _rel(d.seat, me, players)
                    put("flor_declared", 2 * rel)
                    put("flor_declared", 2 * rel + 1, d.points / MAX_POINTS)
        elif isinstance(event, ActionTaken):
            rel = _rel(event.seat, me, players)
            if event.action == "flor":
                put("flor_sung", rel)
            if event.sena is not None:  # the observation keeps only the señas this seat saw
                base = _OFFSET["senas_seen"] + rel * len(SENAS)
                v[base : base + len(SENAS)] = 0.0
                put("senas_seen", rel * len(SENAS) + SENAS.index(event.sena))
    put("has_flor", 0, float(obs.has_flor))
    put("envido_points", 0, obs.envido_points / MAX_POINTS)
    target = obs.rules.points_to_win
    put("score", 0, obs.score[team] / target)
    put("score", 1, obs.score[1 - team] / target)
    put("mano", _rel(obs.mano, me, players))
    if obs.to_act >= 0:
        put("to_act", _rel(obs.to_act, me, players))
    put("rules", 0, float(obs.rules.flor))
    put("rules", 1, float(target == 15))
    put("rules", 2, float(players == 4))
    return v


def blocks(vector: Vector) -> dict[str, Vector]:
    """The named blocks of an encoded vector (views, not copies)."""
    return {name: vector[_OFFSET[name] : _OFFSET[name] + size] for name, size in LAYOUT}


def card_blocks(vector: Vector) -> list[tuple[str, int, Vector]]:
    """Every block indexed by card: (name, relative seat or -1, its 40 values)."""
    parts = blocks(vector)
    result = [("own_cards", -1, parts["own_cards"]), ("current_round", -1, parts["current_round"])]
    played = parts["played_by_seat"].reshape(SEATS, len(DECK))
    result.extend(("played_by_seat", rel, played[rel]) for rel in range(SEATS))
    return result
