"""The match rules object: every option of docs/rules.md, validated, with its default."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from engine.errors import RulesError


class Rules(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Rules of one match. Unknown keys and bad values are a :class:`RulesError`."""

    players: Literal[2, 4] = 2  # R-2; 6 seats (3v3) is a later extension the engine allows for
    points_to_win: Literal[15, 30] = 30
    flor: bool = True
    falta_envido: Literal["to_target", "to_buenas"] = "to_target"
    mazo_first_round_costs_two: bool = True
    sena_seen_by_opponents: Annotated[float, msgspec.Meta(ge=0.0, le=1.0)] = 0.25

    @classmethod
    def from_dict(cls, data: Any) -> Rules:
        """Build rules from a JSON-like mapping (``None`` means all defaults)."""
        if data is None:
            return cls()
        if isinstance(data, Rules):
            return data
        if not isinstance(data, dict):
            raise RulesError(f"rules must be an object, not {type(data).__name__}")
        try:
            return msgspec.convert(data, cls, strict=True)
        except msgspec.ValidationError as exc:
            raise RulesError(f"invalid rules: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = msgspec.structs.asdict(self)
        return result

    @property
    def buenas(self) -> int:
        """The first score "in the buenas": half of ``points_to_win``, rounded up (15 or 8)."""
        return (self.points_to_win + 1) // 2


RULE_OPTIONS: dict[str, str] = {
    "players": "2 (1v1) or 4 (2v2)",
    "points_to_win": "30 or 15",
    "flor": "true or false",
    "falta_envido": '"to_target" or "to_buenas"',
    "mazo_first_round_costs_two": "true or false",
    "sena_seen_by_opponents": "a probability from 0.0 to 1.0",
}
