"""A ladder match's verdict on a bot's health (pure): why a side lost without playing it out.

:func:`services.flow.ladder.after_result` counts it; walkovers or forfeits in a row pause a bot.
"""

from __future__ import annotations

from services.domain.result import StoredResult


def failure_of(result: StoredResult, side: int) -> str | None:
    """Why ``side`` lost without playing it out (a walkover or a forfeit), or None."""
    walked_over = result.reason == "walkover" and any(e % 2 == side for e in result.walkover)
    forfeited = result.reason == "forfeit" and result.forfeit == side
    if not (walked_over or forfeited):
        return None
    causes = [c for c in result.causes or () if c.side % 2 == side]
    return f"{result.reason}: {causes[0].summary}" if causes else result.reason
