"""Which stored results move ratings: one rule for the result's transaction
(:func:`services.flow.results.record_result`) and for ``truco verify``, which recomputes every
Elo change of an export and must agree on which matches have one."""

from __future__ import annotations


def moves_ratings(*, rated: bool, reason: str, winner_side: int | None, ladder: bool) -> bool:
    """Whether a played, stored result of a match changes its bots' ratings.

    A rated match moves them when it was played (games, tantos, a draw, a forfeit). A walkover
    (a side that never answered ``GET /`` or its first ``/start``) moves nothing in a
    tournament or a challenge; on a ladder, where the matchmaker chose the match and no bot
    chose its opponent, it is a loss for the side that walked over, as a forfeit is
    (docs/ladder.md, "Refusing a match"): else a bot could refuse the matches it fears
    (issue 33, item 1). Both sides walking over decides nothing (no winner): unrated."""
    if not rated:
        return False
    if reason == "walkover":
        return ladder and winner_side is not None
    return reason != "error"
