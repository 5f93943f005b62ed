"""Settings from the environment, checked once at start-up.

=====================  ==================================================================
``TRUCO_ENV``          ``local`` (default) or ``production``
``DATABASE_URL``       ``postgresql://...``; unset in local mode: the embedded PostgreSQL
``REDIS_URL``          ``redis://``, ``rediss://`` or ``unix://``; unset in local mode: the
                       embedded Redis
``PORT``               the API's port, default 8000
``TRUCO_SECRET_KEY``   at least 32 characters; the root of the keys that encrypt bots'
                       signing secrets. Local mode makes one in ``.data/secret_key`` if unset
``TRUCO_DATA_DIR``     where local data lives (default ``.data`` in the checkout)
``TRUCO_TRUSTED_PROXIES``  comma-separated addresses or networks (``10.0.0.7``,
                       ``10.1.0.0/16``) of the reverse proxies whose ``X-Forwarded-For`` is
                       believed; none by default (the peer's address is the client's)
``TRUCO_OPEN_CHALLENGES_PER_ACCOUNT``  open challenges an account may have (default 8)
``TRUCO_OPEN_CHALLENGES_PER_BOT``      open challenges a bot may receive from other
                       accounts (default 4)
``TRUCO_SECRET_GRACE_S`` seconds a bot's rotated-out signing secret keeps signing requests
                       beside the new one (default 86400: 24 h; 0 to 2592000)
=====================  ==================================================================

Production refuses loopback bot URLs and requires DATABASE_URL, REDIS_URL and
TRUCO_SECRET_KEY from the environment.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlsplit

import msgspec

from services.embedded.plan import default_data_dir

Env = Literal["local", "production"]
ENVIRONMENTS: tuple[Env, ...] = ("local", "production")
MIN_SECRET_LENGTH = 32
DEFAULT_SECRET_GRACE_S = 24 * 3600
MAX_SECRET_GRACE_S = 30 * 24 * 3600
_DATABASE_SCHEMES = ("postgresql", "postgres")
_REDIS_SCHEMES = ("redis", "rediss", "unix")


class ConfigError(ValueError):
    """A setting in the environment is missing or malformed; the message names it."""


class Secret:
    """A string that does not show itself in reprs, logs or tracebacks."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('**********')"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and secrets.compare_digest(self._value, other._value)

    def __hash__(self) -> int:
        return hash(self._value)


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the services read from the environment."""

    env: Env = "local"
    database_url: str | None = None
    redis_url: str | None = None
    port: Annotated[int, msgspec.Meta(ge=1, le=65535)] = 8000
    secret_key: Secret | None = None
    data_dir: str = ".data"
    trusted_proxies: tuple[str, ...] = ()
    """Networks (``ipaddress`` strings) whose ``X-Forwarded-For`` the API believes."""
    open_challenges_per_account: Annotated[int, msgspec.Meta(ge=1)] = 8
    open_challenges_per_bot: Annotated[int, msgspec.Meta(ge=1)] = 4
    secret_grace_s: Annotated[int, msgspec.Meta(ge=0, le=MAX_SECRET_GRACE_S)] = (
        DEFAULT_SECRET_GRACE_S
    )

    @property
    def production(self) -> bool:
        return self.env == "production"

    @property
    def allow_loopback_bots(self) -> bool:
        """Local mode lets bots run on this machine; production refuses such URLs."""
        return self.env == "local"


def _get(environ: Mapping[str, str], name: str) -> str | None:
    value = environ.get(name)
    if value is None:
        return None
    value = value.strip()
    return value or None


def _check_url(name: str, value: str, schemes: tuple[str, ...]) -> str:
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise ConfigError(f"{name} is not a valid URL: {exc}") from None
    if parts.scheme not in schemes:
        allowed = ", ".join(f"{s}://" for s in schemes)
        raise ConfigError(f"{name} must start with {allowed} (got {parts.scheme or 'no'} scheme)")
    if parts.scheme != "unix" and not parts.hostname and "host=" not in parts.query:
        raise ConfigError(f"{name} has no host")
    return value


def _parse_port(value: str | None) -> int:
    if value is None:
        return 8000
    try:
        port = int(value)
    except ValueError:
        raise ConfigError(f"PORT must be a whole number, got {value!r}") from None
    if not 1 <= port <= 65535:
        raise ConfigError(f"PORT must be between 1 and 65535, got {port}")
    return port


def _parse_grace(value: str | None) -> int:
    if value is None:
        return DEFAULT_SECRET_GRACE_S
    if not (value.isascii() and value.isdigit()) or int(value) > MAX_SECRET_GRACE_S:
        raise ConfigError(
            f"TRUCO_SECRET_GRACE_S must be a whole number of seconds from 0 to "
            f"{MAX_SECRET_GRACE_S}, got {value!r}"
        )
    return int(value)


def _parse_env(value: str | None) -> Env:
    if value is None:
        return "local"
    lowered = value.lower()
    for env in ENVIRONMENTS:
        if lowered == env:
            return env
    raise ConfigError(f"TRUCO_ENV must be 'local' or 'production', got {value!r}")


def _parse_count(environ: Mapping[str, str], name: str, default: int) -> int:
    value = _get(environ, name)
    if value is None:
        return default
    try:
        count = int(value)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {value!r}") from None
    if count < 1:
        raise ConfigError(f"{name} must be at least 1, got {count}")
    return count


def _parse_proxies(value: str | None) -> tuple[str, ...]:
    if value is None:
        return ()
    networks = []
    for part in value.split(","):
        part = part.strip()
        if not part:
            continue
        try:
            networks.append(str(ipaddress.ip_network(part, strict=False)))
        except ValueError:
            raise ConfigError(
                f"TRUCO_TRUSTED_PROXIES must list IP addresses or networks separated by commas "
                f"(for example 10.0.0.7,10.1.0.0/16); {part!r} is neither"
            ) from None
    return tuple(networks)


def _check_secret(value: str) -> Secret:
    if len(value) < MIN_SECRET_LENGTH:
        raise ConfigError(
            f"TRUCO_SECRET_KEY must be at least {MIN_SECRET_LENGTH} characters "
            "(for example the output of: python -c 'import secrets; print(secrets.token_urlsafe(32))')"
        )
    return Secret(value)


def local_secret_key(data_dir: Path) -> Secret:
    """The local mode's secret: read ``<data_dir>/secret_key``, creating it (0600) if missing."""
    path = data_dir / "secret_key"
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return _check_secret(path.read_text().strip())
    with os.fdopen(fd, "w") as handle:
        handle.write(secrets.token_urlsafe(48) + "\n")
    return _check_secret(path.read_text().strip())


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Read and check the settings; raise ConfigError naming the first bad variable.

    In local mode without TRUCO_SECRET_KEY this creates ``<data dir>/secret_key``.
    """
    env_vars = os.environ if environ is None else environ
    env = _parse_env(_get(env_vars, "TRUCO_ENV"))
    database_url = _get(env_vars, "DATABASE_URL")
    if database_url is not None:
        _check_url("DATABASE_URL", database_url, _DATABASE_SCHEMES)
    redis_url = _get(env_vars, "REDIS_URL")
    if redis_url is not None:
        _check_url("REDIS_URL", redis_url, _REDIS_SCHEMES)
    port = _parse_port(_get(env_vars, "PORT"))
    grace_s = _parse_grace(_get(env_vars, "TRUCO_SECRET_GRACE_S"))
    data_dir = default_data_dir(env_vars)
    raw_secret = _get(env_vars, "TRUCO_SECRET_KEY")
    trusted_proxies = _parse_proxies(_get(env_vars, "TRUCO_TRUSTED_PROXIES"))

    if env == "production":
        missing = [
            name
            for name, value in (
                ("DATABASE_URL", database_url),
                ("REDIS_URL", redis_url),
                ("TRUCO_SECRET_KEY", raw_secret),
            )
            if value is None
        ]
        if missing:
            raise ConfigError(
                f"TRUCO_ENV=production requires {', '.join(missing)} in the environment "
                "(production never starts embedded servers or makes up secrets)"
            )
    secret = _check_secret(raw_secret) if raw_secret is not None else local_secret_key(data_dir)
    return Settings(
        env=env,
        database_url=database_url,
        redis_url=redis_url,
        port=port,
        secret_key=secret,
        data_dir=str(data_dir),
        trusted_proxies=trusted_proxies,
        open_challenges_per_account=_parse_count(env_vars, "TRUCO_OPEN_CHALLENGES_PER_ACCOUNT", 8),
        open_challenges_per_bot=_parse_count(env_vars, "TRUCO_OPEN_CHALLENGES_PER_BOT", 4),
        secret_grace_s=grace_s,
    )
