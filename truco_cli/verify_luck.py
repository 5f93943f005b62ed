"""The luck check of ``truco verify`` (docs/verify.md, docs/luck.md): every played match's luck
figures recomputed from its replay with the luck model its result names.

The replay holds every deal (its seeds are checked before), so the luck of each hand follows
from it and the model's version alone; a figure that differs by more than a rounding
(:data:`arena.match.luck.TOLERANCE`) is a discrepancy. Matches stored before luck was computed
have none to check; a model this ``truco`` does not know cannot be checked (update it).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import msgspec

from arena.luck import UnknownModel
from arena.match.luck import differences, match_luck
from services.domain.result import stored_result
from services.tournaments.files.export_document import ExportMatch


@dataclass
class LuckCheck:
    """What :func:`check_match_luck` found: matches and hands checked, the models used, those
    without figures, those whose model is unknown here, and the first difference."""

    matches: int = 0
    hands: int = 0
    models: set[str] = field(default_factory=set)
    without: int = 0
    unknown: set[str] = field(default_factory=set)
    problem: str | None = None


def check_match_luck(matches: Iterable[ExportMatch]) -> LuckCheck:
    found = LuckCheck()
    for match in matches:
        if match.replay is None or match.result is None or match.bye:
            continue
        try:
            recorded = stored_result(match.result).luck
        except msgspec.ValidationError as exc:
            found.problem = f"match {match.id} luck: not a luck document ({exc})"
            return found
        if recorded is None:
            found.without += 1 if match.replay.games else 0
            continue
        try:
            computed = match_luck(match.replay, recorded.model)
        except UnknownModel:
            found.unknown.add(recorded.model)
            continue
        if computed is None:
            found.problem = f"match {match.id} luck: recorded, but its replay has no game"
            return found
        wrong = differences(recorded, computed)
        if wrong:
            found.problem = f"match {match.id} luck: {wrong[0]}" + (
                f" (and {len(wrong) - 1} more)" if len(wrong) > 1 else ""
            )
            return found
        found.matches += 1
        found.hands += sum(len(g.hands) for g in computed.games)
        found.models.add(computed.model)
    return found
