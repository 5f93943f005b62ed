"""How the games of a match are dealt: every game from its own stream, or mirrored pairs.

Each game of a match has an engine seed derived from the match seed; the engine deals every
hand of the game from ``(engine seed, hand number)`` (:mod:`engine.deal`).

- ``independent`` (the default everywhere): game ``i`` gets ``SHA-256(match seed, i)``. No two
  games share a stream, so the cards of one game say nothing about the cards of another: a bot
  that remembers every card it has seen learns nothing about the next game's deal.
- ``mirrored``: games ``2k`` and ``2k + 1`` share one seed, so the second deals the same cards
  hand by hand with the entrants' seats swapped. Card luck cancels out, but in the second game
  every bot holds the hand its opponent held in the first: a bot with memory knows the
  opponent's whole hand. Only safe when both sides belong to one owner.

Seats alternate game to game in both modes (:func:`seating`), so each entrant is mano in the
first hand of every other game.

**Attempts.** A match that is played again (its worker died and the sweeper sent it again, or
the broker delivered it twice) is dealt afresh: attempt ``a`` > 0 of a match derives its game
seeds from ``"{match seed}/attempt/{a}/game/{unit}"``, so a bot that remembers attempt 0, or a
spectator who watched it, learns nothing about the cards of the next. Attempt 0 keeps the
derivation it always had (``"{match seed}/game/{unit}"``): the cards, and every byte a bot is
sent, are those of before. The attempt is recorded in the replay (``attempt``, absent for 0),
so the deals stay verifiable.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Final, Literal

import msgspec

DealsMode = Literal["independent", "mirrored"]
INDEPENDENT: Final = "independent"
MIRRORED: Final = "mirrored"

MEMORY_RISK: Final = (
    "with mirrored deals the second game of each pair deals the first game's cards with the "
    "seats swapped, so a bot that remembers its own hands knows its opponent's whole hand"
)
"""What a bot with memory can do with mirrored deals (docs, API description, pages)."""

Deals = Annotated[
    DealsMode,
    msgspec.Meta(
        description=(
            "how the games of a match are dealt: `independent` (the default) deals every game "
            "from its own stream derived from the match seed; `mirrored` is accepted only "
            f"between bots of one owner, because {MEMORY_RISK}"
        )
    ),
]


def game_seed(match_seed: int, game_index: int, deals: DealsMode, attempt: int = 0) -> int:
    """The engine seed of game ``game_index`` (0-based) of attempt ``attempt`` of a match."""
    if attempt < 0:
        raise ValueError(f"an attempt is a number from 0, not {attempt}")
    unit = game_index // 2 if deals == MIRRORED else game_index
    played = f"{match_seed}/attempt/{attempt}" if attempt else f"{match_seed}"
    digest = hashlib.sha256(f"{played}/game/{unit}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def game_id(match_id: str, game_index: int, attempt: int = 0) -> str:
    """The id a bot is sent for game ``game_index`` (0-based): ``{match}-g{n}``, and
    ``{match}-a{attempt}-g{n}`` when the match is played again (a bot keyed on it starts
    afresh)."""
    again = f"-a{attempt}" if attempt else ""
    return f"{match_id}{again}-g{game_index + 1}"


def seating(game_index: int) -> tuple[int, int]:
    """Entrant index seated as team 0 and team 1: swapped in every other game."""
    return (0, 1) if game_index % 2 == 0 else (1, 0)
