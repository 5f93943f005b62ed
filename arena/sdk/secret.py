"""Where a bot finds its signing secret: ``--secret``, ``--secret-file`` or ``TRUCO_BOT_SECRET``.

The SDK's :func:`arena.sdk.serve` and ``truco bot serve`` use :func:`load_secret`. A secret file
holds the ``whsec_...`` secret on one line (surrounding whitespace is ignored) and must not be
readable by other users: like ssh with a private key, a file with any group or other permission
bits is refused (``chmod 600 FILE``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from arena.client import signing

ENV_VAR = "TRUCO_BOT_SECRET"


class SecretSourceError(ValueError):
    """The secret could not be read, or it is not a valid ``whsec_...`` secret."""


def read_secret_file(path: str | os.PathLike[str]) -> str:
    """The secret in ``path`` (owner-only permissions required)."""
    file = Path(path)
    try:
        mode = file.stat().st_mode
        if not stat.S_ISREG(mode):
            raise SecretSourceError(f"secret file {file} is not a regular file")
        if mode & 0o077:
            raise SecretSourceError(
                f"secret file {file} is readable by other users "
                f"(mode {stat.S_IMODE(mode):04o}); run: chmod 600 {file}"
            )
        text = file.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise SecretSourceError(f"cannot read secret file {file}: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise SecretSourceError(f"secret file {file} is not text") from None
    if not text:
        raise SecretSourceError(f"secret file {file} is empty")
    return text


def load_secret(
    secret: str | None = None,
    secret_file: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> str | None:
    """The bot's secret: ``secret`` if given, else the contents of ``secret_file``, else
    ``$TRUCO_BOT_SECRET``; None when there is none (signatures are then not checked).

    Giving both ``secret`` and ``secret_file`` is an error; a malformed secret is one too.
    """
    if secret and secret_file:
        raise SecretSourceError("give the secret or a secret file, not both")
    source = "--secret"
    value = secret or None
    if value is None and secret_file:
        value, source = read_secret_file(secret_file), f"secret file {secret_file}"
    if value is None:
        env = os.environ if environ is None else environ
        value, source = (env.get(ENV_VAR) or "").strip() or None, f"${ENV_VAR}"
    if value is None:
        return None
    try:
        signing.secret_key(value)
    except signing.InvalidSecret as exc:
        raise SecretSourceError(f"{source}: {exc}") from None
    return value
