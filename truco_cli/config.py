"""Where `truco` finds the platform: its URL and your API key.

The file is ``$XDG_CONFIG_HOME/truco/config.toml`` (``~/.config/truco/config.toml`` without
``XDG_CONFIG_HOME``), written by `truco account create` and `truco login` with mode 0600 in a
0700 folder::

    url = "http://127.0.0.1:8000"
    key = "ta_..."
    account = "alice"

``TRUCO_API_URL`` and ``TRUCO_API_KEY`` override the file's values.
"""

from __future__ import annotations

import os
import sys
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import tomli_w

from truco_cli.errors import CommandError

URL_ENV = "TRUCO_API_URL"
KEY_ENV = "TRUCO_API_KEY"


@dataclass(frozen=True)
class Profile:
    """What a command needs: the platform's URL and, for changes, an API key."""

    url: str
    key: str | None
    account: str | None
    path: Path  # the config file (it may not exist)


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "truco" / "config.toml"


def read_file(path: Path) -> dict[str, str]:
    """The file's string values ({} if there is no file); a broken file is a CommandError."""
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
            mode = os.fstat(handle.fileno()).st_mode
    except FileNotFoundError:
        return {}
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CommandError.local(
            "Unreadable configuration", f"{path}: {exc}", slug="cli/bad-config"
        ) from None
    if mode & 0o077 and data.get("key"):
        print(
            f"warning: {path} holds your API key and others may read it: chmod 600 {path}",
            file=sys.stderr,
        )
    return {key: value for key, value in data.items() if isinstance(value, str)}


def check_url(url: str) -> str:
    """``url`` without a trailing slash, if it is an http(s) URL with a host."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise CommandError.local(
            "Bad platform URL",
            f"{url!r} is not an http:// or https:// URL, e.g. http://127.0.0.1:8000",
            slug="cli/bad-url",
        )
    return url.strip().rstrip("/")


def load(environ: Mapping[str, str] | None = None) -> Profile:
    """The platform to talk to: the config file, overridden by the environment."""
    env = os.environ if environ is None else environ
    path = config_path(env)
    stored = read_file(path)
    url = env.get(URL_ENV, "").strip() or stored.get("url", "")
    if not url:
        raise CommandError.local(
            "No platform configured",
            f"run `truco account create NAME --url URL` or `truco login --url URL --key KEY` "
            f"(they write {path}), or set {URL_ENV}",
            slug="cli/not-configured",
        )
    key = env.get(KEY_ENV, "").strip() or stored.get("key") or None
    return Profile(check_url(url), key, stored.get("account"), path)


def save(path: Path, values: Mapping[str, str]) -> None:
    """Write ``values`` to ``path`` with mode 0600 (atomically: a new file renamed over)."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), 0o600)  # whatever the umask or an old file's mode
            handle.write(tomli_w.dumps(dict(values)).encode())
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
