"""The workflow's errors: what the API turns into 404, 409 and 422 problems."""

from __future__ import annotations

from arena.game.deals import MEMORY_RISK


class FlowError(Exception):
    """The request does not fit the current state (the API answers 409, 404 for NotFound)."""


class NotFound(FlowError):
    """No such tournament, match or bot."""


class TournamentNotFound(NotFound):
    pass


class MatchNotFound(NotFound):
    pass


class BotNotFound(NotFound):
    pass


class NotOrganiser(FlowError):
    """The caller does not organise the tournament (the API answers 403)."""


class TournamentStateError(FlowError):
    """The tournament is not in the status this needs (e.g. starting a running event)."""


class NotEnoughEntrants(FlowError):
    """Fewer than two available bots entered."""


class AlreadyEntered(FlowError):
    pass


class NotEntered(NotFound):
    """The bot is not entered in the tournament (or withdrawn already)."""


class EntryWithdrawn(FlowError):
    """A withdrawn entry that only the bot's owner may enter again."""


class TournamentFull(FlowError):
    """The tournament has as many entries as an event may hold (``TRUCO_ENTRIES_PER_EVENT``)."""


class BotUnavailable(FlowError):
    """The bot is deleted or unavailable (failing health checks)."""


class SameBot(FlowError):
    """A challenge between a bot and itself."""


class SettingsTooLong(ValueError):
    """A match under these settings could outlast the bot-calling worker's cap (API: 422)."""


class MirroredDealsRefused(ValueError):
    """Mirrored deals asked for, or a bot entered in a mirrored event, where not every bot
    belongs to one owner (API: 422)."""


class ResultMismatch(FlowError):
    """A replay sent for a match that was not played under the match's seed and deals."""


class BadPartnership(ValueError):
    """Individual 2v2 asked for where it does not exist (API: 422 naming ``partnership``)."""


MIRRORED_ONLY_ONE_OWNER = (
    "mirrored deals are only for bots of one owner: " + MEMORY_RISK + "; use independent deals"
)
