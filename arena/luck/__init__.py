"""Luck-adjusted results (docs/luck.md): how much of a result the cards dealt explain.

For every hand, a value function fitted on self-play of the built-in bots estimates what the
deal is worth to each team given the state when it is dealt (score, mano, rules): in tantos (the
hand's expected point difference) and in the chance of winning the game. The luck of the hand is
the antithetic difference ``½·[v(state, deal) − v(state, deal with the teams' hands exchanged)]``:
a deal and its exchange are equally likely, so the luck has mean zero whatever the bots do, and
a result minus its luck is an unbiased estimate of skill with less variance (AIVAT's chance-node
term, Burch et al., AAAI 2018).

Pure: it reads the engine's events and the shipped model (``model-v1.json``), nothing else.
"""

from arena.luck.game import GameLuck, HandLuck, game_luck
from arena.luck.model import LATEST, LuckModel, UnknownModel, load_model

__all__ = ["LATEST", "GameLuck", "HandLuck", "LuckModel", "UnknownModel", "game_luck", "load_model"]
