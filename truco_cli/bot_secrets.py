"""Which signing secret each bot of a local match gets (`truco play`, `truco sprt`), and the
name it is shown under.

Every URL bot is signed with ``--secret`` (or ``--secret-file``, else ``$TRUCO_BOT_SECRET``,
else a fresh secret: a bot that checks no signature accepts any); ``--secret-file-a FILE``,
``--secret-file-b FILE`` (and, for `truco play`'s four bots, ``-c``, ``-d``) give bot A, B, ...
a secret of its own, so two bots started with their own secrets can meet. A secret file holds
the ``whsec_...`` secret on one line and must be readable only by you (``chmod 600``), as for
``truco bot serve``.
"""

from __future__ import annotations

import argparse
import os
from urllib.parse import urlsplit

from arena.client.signing import InvalidSecret, generate_secret, secret_key
from arena.sdk.secret import ENV_VAR, SecretSourceError, load_secret, read_secret_file

LETTERS = "ABCD"


def add_secret_arguments(parser: argparse.ArgumentParser, bots: int) -> None:
    """``--secret``, ``--secret-file`` and one ``--secret-file-x`` for each of ``bots``."""
    shared = parser.add_mutually_exclusive_group()
    shared.add_argument(
        "--secret",
        help=f"signing secret (whsec_...) for every URL bot; default ${ENV_VAR} or a fresh one",
    )
    shared.add_argument(
        "--secret-file", metavar="FILE", help="read the secret for every URL bot from FILE"
    )
    for letter in LETTERS[:bots]:
        parser.add_argument(
            f"--secret-file-{letter.lower()}",
            metavar="FILE",
            help=f"bot {letter}'s own secret, read from FILE (mode 0600)",
        )


def bot_secrets(args: argparse.Namespace, bots: int) -> list[str]:
    """The secret of each of the ``bots`` bots, in order; a :class:`ValueError` saying which
    option is wrong (an unreadable file, a malformed secret, a file for a bot not given)."""
    try:
        shared = load_secret(args.secret, args.secret_file, os.environ) or generate_secret()
    except SecretSourceError as exc:
        raise ValueError(str(exc)) from None
    secrets = []
    for k, letter in enumerate(LETTERS):
        path = getattr(args, f"secret_file_{letter.lower()}", None)
        if path is None:
            if k < bots:
                secrets.append(shared)
            continue
        if k >= bots:
            raise ValueError(f"--secret-file-{letter.lower()}: there is no bot {letter}")
        try:
            own = read_secret_file(path)
            secret_key(own)
        except (SecretSourceError, InvalidSecret) as exc:
            raise ValueError(f"--secret-file-{letter.lower()}: {exc}") from None
        secrets.append(own)
    return secrets


def bot_label(spec: str, index: int) -> str:
    """How bot ``index`` (0 is A) is shown: its letter and a short name that tells two local
    URL bots apart ("A 127.0.0.1:8080", "B heuristic")."""
    letter = LETTERS[index] if index < len(LETTERS) else str(index + 1)
    if spec.startswith("builtin:"):
        return f"{letter} {spec.removeprefix('builtin:')}"
    try:
        parts = urlsplit(spec)
        where = (parts.netloc + parts.path.rstrip("/")) or spec
    except ValueError:
        where = spec
    return f"{letter} {where}"
