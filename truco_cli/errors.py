"""The one error the platform commands raise, and how `truco` prints it.

A :class:`CommandError` carries a problem document in the API's own format (RFC 9457: ``type``,
``title``, ``status``, ``detail``, ``errors``): the platform's answer when it refused a request,
or one made here (``status`` 0) when the request never got an answer or could not be made.
`truco` prints its title and detail (``--json``: the document) on stderr and exits non-zero,
never with a traceback. This module imports nothing heavy: `truco_cli.main` catches it for
every command.
"""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

EXIT_REFUSED = 1  # the platform answered with a problem, or could not be reached
EXIT_USAGE = 2  # bad arguments or configuration, caught before any request (argparse's code)


class CommandError(Exception):
    """A problem to report; ``problem`` is the document (``title`` and ``detail`` at least)."""

    def __init__(self, problem: dict[str, Any], exit_code: int = EXIT_REFUSED) -> None:
        super().__init__(f"{problem.get('title')}: {problem.get('detail')}")
        self.problem = problem
        self.exit_code = exit_code

    @classmethod
    def local(
        cls, title: str, detail: str, *, slug: str = "cli", exit_code: int = EXIT_USAGE
    ) -> CommandError:
        """An error found here, before or without an answer from the platform."""
        problem = {"type": f"/problems/{slug}", "title": title, "status": 0, "detail": detail}
        return cls(problem, exit_code)


def report(error: CommandError, *, as_json: bool, out: TextIO | None = None) -> int:
    """Print ``error`` for a person (``error: title: detail`` and one line per field problem)
    or, with ``as_json``, as the problem document; return the exit code."""
    stream = out or sys.stderr
    problem = error.problem
    if as_json:
        print(json.dumps(problem, indent=2, ensure_ascii=False), file=stream)
        return error.exit_code
    status = problem.get("status")
    where = f" ({status})" if status else ""
    print(f"error: {problem.get('title')}{where}: {problem.get('detail')}", file=stream)
    for field in problem.get("errors") or []:
        if isinstance(field, dict):
            print(f"  {field.get('field')}: {field.get('message')}", file=stream)
    return error.exit_code
