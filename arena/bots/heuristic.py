"""``heuristic``: a reasonable Truco player over one seat's observation.

- Flor: sung when it must be; answered by its flor points (contraflor with a very good one).
- Envido: sung and accepted by the seat's envido points, raised with very high points, a falta
  only with top points; "el envido está primero" when answering a truco in round 1.
- Truco: sung and accepted by the estimated chance of winning the rounds (:mod:`arena.bots.hand`),
  raised on near-certain hands, with a small seeded chance of bluffing; a hopeless hand facing a
  truco goes to the mazo.
- Cards: win the round cheaply when possible, otherwise throw the weakest; lead strong after
  round 1.
It only ever returns an action from ``legal``.

``HeuristicStrategy(noise=p)`` is a weakened heuristic: at each decision, with probability ``p``,
it plays a uniformly random legal action instead (``weak-heuristic`` is ``noise=0.25``: a
stronger opponent than ``random`` for measuring how long a match must be).

``HeuristicStrategy(style=...)`` plays the same way with other thresholds (:class:`Style`):
``cautious`` (:data:`CAUTIOUS`: never bluffs, sings and accepts only strong hands) and
``reckless`` (:data:`RECKLESS`: bluffs often, sings and accepts on little). They are the luck
bench's held-out players (docs/luck.md): never used to fit the luck model.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from arena.bots.base import pick, words
from arena.bots.hand import choose_card, own_hand, win_chance
from engine import Action, Observation
from engine.actions import PLAY_ACTIONS
from engine.cards import flor_points, has_flor
from engine.scoring import falta_points

BLUFF = 0.06  # chance of singing (or raising) with a weak hand
TRUCO_SING = {"truco": 0.70, "retruco": 0.80, "vale_cuatro": 0.90}  # win chance to sing
TRUCO_ACCEPT = 0.42  # win chance to say quiero to a truco question
TRUCO_RAISE = 0.85  # win chance to raise a truco question
HOPELESS = 0.12  # below this, facing a truco: mazo
ENVIDO_SING = 27
ENVIDO_REAL = 30
ENVIDO_FALTA = 33
FLOR_WORDS = {"flor", "contraflor", "contraflor_al_resto", "con_flor_quiero", "con_flor_me_achico"}


WEAK_NOISE = 0.25  # the noise of ``weak-heuristic``


@dataclass(frozen=True)
class Style:
    """The thresholds a heuristic plays by (the defaults are ``heuristic``'s own)."""

    bluff: float = BLUFF
    truco_sing: dict[str, float] = field(default_factory=lambda: dict(TRUCO_SING))
    truco_accept: float = TRUCO_ACCEPT
    truco_raise: float = TRUCO_RAISE
    hopeless: float = HOPELESS
    envido_sing: int = ENVIDO_SING
    envido_real: int = ENVIDO_REAL
    envido_falta: int = ENVIDO_FALTA
    envido_accept: int = 26  # accepts an envido chain of length n from this + n points


STEADY = Style()
CAUTIOUS = Style(
    bluff=0.0,
    truco_sing={"truco": 0.85, "retruco": 0.92, "vale_cuatro": 0.97},
    truco_accept=0.60,
    truco_raise=0.95,
    hopeless=0.30,
    envido_sing=30,
    envido_real=32,
    envido_accept=29,
)
RECKLESS = Style(
    bluff=0.30,
    truco_sing={"truco": 0.45, "retruco": 0.55, "vale_cuatro": 0.65},
    truco_accept=0.25,
    truco_raise=0.60,
    hopeless=0.0,
    envido_sing=23,
    envido_real=27,
    envido_falta=30,
    envido_accept=22,
)


class HeuristicStrategy:
    def __init__(self, noise: float = 0.0, name: str | None = None, style: Style = STEADY) -> None:
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise must be between 0 and 1, not {noise}")
        self.noise = noise
        self.style = style
        self.name = name or ("heuristic" if noise == 0.0 else f"heuristic(noise={noise:g})")

    def decide(self, obs: Observation, legal: list[Action], rng: random.Random) -> Action:
        if self.noise and rng.random() < self.noise:  # no draw at noise 0: same games as ever
            return legal[rng.randrange(len(legal))]
        options = words(legal)
        style = self.style
        if options & FLOR_WORDS:
            return _flor(obs, legal, options)
        if "quiero" in options and "mazo" not in options:
            return _answer_envido(obs, legal, options, rng, style)
        if "quiero" in options:
            return _answer_truco(obs, legal, options, rng, style)
        return _own_turn(obs, legal, options, rng, style)


def _flor(obs: Observation, legal: list[Action], options: set[str]) -> Action:
    hand = own_hand(obs)
    points = flor_points(hand) if has_flor(hand) else 0
    if options == {"flor"}:
        return pick(legal, "flor")
    if "con_flor_me_achico" not in options:
        return legal[0]  # not expected: every flor question offers me_achico
    if "flor" in options:  # answering the first flor
        if points >= 35 and "contraflor" in options:
            return pick(legal, "contraflor")
        return pick(legal, "flor" if points >= 27 else "con_flor_me_achico")
    if "contraflor_al_resto" in options and points >= 36:
        return pick(legal, "contraflor_al_resto")
    accept = 33 if "contraflor_al_resto" in options else 35
    return pick(legal, "con_flor_quiero" if points >= accept else "con_flor_me_achico")


def _envido_canto(
    obs: Observation, options: set[str], rng: random.Random, style: Style
) -> str | None:
    """The envido canto to sing now, if any (``options`` must offer it)."""
    points = obs.envido_points + (1 if obs.mano == obs.seat else 0)
    falta = falta_points(obs.rules, obs.score)
    if points >= style.envido_falta and "falta_envido" in options and falta <= 10:
        return "falta_envido"
    if points >= style.envido_real and "real_envido" in options:
        return "real_envido"
    if (points >= style.envido_sing or rng.random() < style.bluff) and "envido" in options:
        return "envido"
    return None


def _answer_envido(
    obs: Observation, legal: list[Action], options: set[str], rng: random.Random, style: Style
) -> Action:
    points = obs.envido_points + (1 if obs.mano == obs.seat else 0)
    chain = obs.envido
    if chain and chain[-1] == "falta_envido":
        falta = falta_points(obs.rules, obs.score)
        behind = obs.score[obs.team] < obs.score[1 - obs.team]
        need = 29 if behind or falta <= 4 else 31
        return pick(legal, "quiero" if points >= need else "no_quiero")
    if points >= 31:
        raise_word = _envido_canto(obs, options - {"envido"}, rng, style)
        if raise_word is not None:
            return pick(legal, raise_word)
    need = style.envido_accept + len(chain) + (1 if "real_envido" in chain else 0)
    return pick(legal, "quiero" if points >= need else "no_quiero")


def _answer_truco(
    obs: Observation, legal: list[Action], options: set[str], rng: random.Random, style: Style
) -> Action:
    if options & {"envido", "real_envido", "falta_envido"}:
        canto = _envido_canto(obs, options, rng, style)
        if canto is not None:
            return pick(legal, canto)  # el envido está primero
    chance = win_chance(obs)
    raises = options & set(TRUCO_SING)
    if raises and (chance >= style.truco_raise or (chance >= 0.55 and rng.random() < style.bluff)):
        return pick(legal, raises.pop())
    if chance >= style.truco_accept:
        return pick(legal, "quiero")
    if chance < style.hopeless:
        return pick(legal, "mazo")
    return pick(legal, "no_quiero")


def _own_turn(
    obs: Observation, legal: list[Action], options: set[str], rng: random.Random, style: Style
) -> Action:
    if options & {"envido", "real_envido", "falta_envido"}:
        canto = _envido_canto(obs, options, rng, style)
        if canto is not None:
            return pick(legal, canto)
    sing = options & set(TRUCO_SING)
    if sing:
        word = sing.pop()
        chance = win_chance(obs)
        if chance >= style.truco_sing[word] or (obs.round > 0 and rng.random() < style.bluff):
            return pick(legal, word)
    if obs.cards:
        card = choose_card(obs)
        action = PLAY_ACTIONS[card]
        if any(option.action == "play" and option.card == card for option in legal):
            return action
    return legal[0]
