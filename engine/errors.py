"""Typed engine errors. Every one leaves the state it was raised for unchanged."""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class CardError(EngineError, ValueError):
    """A card string that is not rank-then-suit notation such as ``1E`` or ``12C`` (R-1)."""


class RulesError(EngineError, ValueError):
    """A rules object with an unknown key or a bad value."""


class InvalidAction(EngineError, ValueError):
    """An action that is malformed: unknown word, missing or bad card, over-long ``say``."""


class IllegalAction(EngineError):
    """A well-formed action that the rules do not allow now (R-10)."""

    def __init__(self, message: str, legal: list[str] | None = None) -> None:
        super().__init__(message)
        self.legal = legal or []


class GameOverError(IllegalAction):
    """No action is legal once the game is over."""
