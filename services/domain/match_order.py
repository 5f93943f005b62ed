"""A match as it is sent to a bot-calling worker: who plays (with the decrypted signing
secrets) and under which settings. The workflow makes it (:func:`services.flow.match_specs`),
the sender checks it against this shape, it travels as JSON, and the worker decodes it into
the same struct, so there is one definition for every side and no database type in it.
"""

from __future__ import annotations

import msgspec

from arena.match.runner import MatchSettings


class EntrantOrder(msgspec.Struct, frozen=True):
    """A bot as the match runner needs it; ``secret`` is the decrypted signing secret and
    ``previous_secret`` the one it replaced, while the rotation's grace period lasts (Redis,
    which carries it, must be private to the platform)."""

    bot_id: int
    name: str
    url: str
    secret: str
    previous_secret: str | None = None

    def __repr__(self) -> str:  # the secret must never reach a log line or an error message
        return (
            f"EntrantOrder(bot_id={self.bot_id}, name={self.name!r}, url={self.url!r}, secret=***)"
        )


class MatchOrder(msgspec.Struct, frozen=True):
    """What a worker needs to run a match: entrants in slot order (one bot per side, side 0
    first, in 1v1 and team 2v2 where a bot fills both seats of its side; four bots, one per
    seat, in individual 2v2, entrant k playing for side k % 2)."""

    match_id: int
    seed: int
    settings: MatchSettings
    entrants: list[EntrantOrder]

    @property
    def bot_ids(self) -> list[int]:
        return [entrant.bot_id for entrant in self.entrants]
