"""Truco for reinforcement learning: the arena's engine as PettingZoo and OpenSpiel games.

``aec_env(...)`` returns the PettingZoo AEC environment; ``register_openspiel()`` registers the
OpenSpiel game and returns its name (``"python_truco"``, for ``pyspiel.load_game``). Both use one
fixed action space (``truco_env.actions``) and one encoding of what a seat may know
(``truco_env.encoding``). Needs the ``rl`` extra (numpy, pettingzoo, open_spiel).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from truco_env.aec import TrucoAEC


def aec_env(
    players: int = 2, flor: bool = True, points_to_win: int = 30, render_mode: str | None = None
) -> TrucoAEC:
    """The PettingZoo AEC environment for 1v1 (players=2) or 2v2 (players=4)."""
    from truco_env.aec import TrucoAEC

    return TrucoAEC(
        players=players, flor=flor, points_to_win=points_to_win, render_mode=render_mode
    )


def register_openspiel() -> str:
    """Register the OpenSpiel game (once) and return its short name, ``"python_truco"``."""
    from truco_env.openspiel_game import register

    return register()


__all__ = ["aec_env", "register_openspiel"]
