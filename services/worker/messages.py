"""The arguments of tasks, as they travel (JSON). No database types here.

``MatchMessage`` has the fields of ``services.flow.MatchSpec`` (a test checks they agree): the
bot-calling worker decodes it without importing the database layer.
"""

from __future__ import annotations

import msgspec

from arena.match.runner import MatchSettings


class EntrantMessage(msgspec.Struct, frozen=True):
    bot_id: int
    name: str
    url: str
    secret: str  # the bot's signing secret: Redis must be private to the platform
    previous_secret: str | None = None  # the rotated-out one, during its grace period


class MatchMessage(msgspec.Struct, frozen=True):
    match_id: int
    seed: int
    settings: MatchSettings
    entrants: list[EntrantMessage]

    @property
    def bot_ids(self) -> list[int]:
        return [entrant.bot_id for entrant in self.entrants]


class ProbeTarget(msgspec.Struct, frozen=True):
    bot_id: int
    url: str


class ProbeOutcome(msgspec.Struct, frozen=True):
    bot_id: int
    ok: bool
    error: str | None = None
