"""A 422 naming the field for a name with characters a name may not have (services/domain/names.py)."""

from __future__ import annotations

from services.api.problems import FieldError, ProblemError
from services.domain.names import name_problem


def check_name(name: str | None, field: str = "body.name") -> None:
    if name is None:
        return
    problem = name_problem(name)
    if problem is not None:
        raise ProblemError(
            422, f"{field.removeprefix('body.')}: {problem}", errors=[FieldError(field, problem)]
        )
