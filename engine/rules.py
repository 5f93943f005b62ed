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
        for key, value in data.items():
            if key not in cls.__struct_fields__:
                known = ", ".join(cls.__struct_fields__)
                raise RulesError(f"unknown rules key {key!r}; the keys are: {known}", str(key))
            try:
                msgspec.convert({key: value}, cls, strict=True)
            except msgspec.ValidationError as exc:
                raise RulesError(f"invalid rules: {exc}", key) from None
        return msgspec.convert(data, cls, strict=True)

    def to_dict(self) -> dict[str, Any]:
        result: dict[str, Any] = msgspec.structs.asdict(self)
        return result

    @property
    def buenas(self) -> int:
        """The first score "in the buenas": half of ``points_to_win``, rounded up (15 or 8)."""
        return (self.points_to_win + 1) // 2
