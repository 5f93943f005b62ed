"""The one error the platform commands raise, and how `truco` prints it.

A :class:`CommandError` carries a problem document in the API's own format (RFC 9457: ``type``,
``title``, ``status``, ``detail``, ``errors``): the platform's answer when it refused a request,
or one made here (``status`` 0) when the request never got an answer or could not be made.
`truco` prints its title and detail (``--json``: the document) on stderr and exits non-zero,
never with a traceback. This module imports nothing heavy: `truco_cli.main` catches it for
every command.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
from collections.abc import Callable, Iterator
from functools import wraps
from typing import Any, TextIO

EXIT_REFUSED = 1  # the platform answered with a problem, or could not be reached
EXIT_USAGE = 2  # bad arguments or configuration, caught before any request (argparse's code)

# what a platform (or a bot's name on it) must not send to the terminal: C0 and C1 controls
# (escape sequences can move the cursor, rewrite lines, set the title), zero-width characters
# and bidirectional overrides (text that reads differently from what it is)
_UNSAFE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def escape_controls(text: str) -> str:
    """``text`` with every character of ``_UNSAFE`` written as a visible ``\\uXXXX``; inside
    a JSON string that escape means the same character, so JSON stays valid and equal."""
    return _UNSAFE.sub(lambda found: f"\\u{ord(found[0]):04x}", text)


class _Escaping(io.TextIOBase):
    def __init__(self, inner: TextIO) -> None:
        self._inner = inner

    def write(self, text: str) -> int:
        self._inner.write(escape_controls(text))
        return len(text)

    def flush(self) -> None:
        self._inner.flush()


@contextlib.contextmanager
def terminal_safe() -> Iterator[None]:
    """Everything printed meanwhile goes through :func:`escape_controls`."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Escaping(saved[0]), _Escaping(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


def platform_command(run: Callable[..., int]) -> Callable[..., int]:
    """Decorates a platform command's ``run``: what it prints cannot drive the terminal."""

    @wraps(run)
    def guarded(*args: Any, **kwargs: Any) -> int:
        with terminal_safe():
            return run(*args, **kwargs)

    return guarded


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
        text = json.dumps(problem, indent=2, ensure_ascii=False)
    else:
        status = problem.get("status")
        where = f" ({status})" if status else ""
        lines = [f"error: {problem.get('title')}{where}: {problem.get('detail')}"]
        for field in problem.get("errors") or []:
            if isinstance(field, dict):
                lines.append(f"  {field.get('field')}: {field.get('message')}")
        text = "\n".join(lines)
    print(escape_controls(text), file=stream)
    return error.exit_code
