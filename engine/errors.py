"""Typed engine errors. Every one leaves the state it was raised for unchanged."""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class CardError(EngineError, ValueError):
    """A card string that is not rank-then-suit notation such as ``1E`` or ``12C`` (R-1)."""


class RulesError(EngineError, ValueError):
    """A rules object with an unknown key or a bad value (or a bad argument of ``new_game``).

    ``key`` names what is wrong (``"points_to_win"``, ``"mano"``), or is None when the whole
    object is (not a mapping)."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


class InvalidAction(EngineError, ValueError):
    """An action that is malformed: unknown word, missing or bad card, over-long ``say``."""


class IllegalAction(EngineError):
    """A well-formed action that the rules do not allow now (R-10)."""

    def __init__(self, message: str, legal: list[str] | None = None) -> None:
        super().__init__(message)
        self.legal = legal or []


class GameOverError(IllegalAction):
    """No action is legal once the game is over."""
