"""What each child of ``make run`` gets in its environment: who gets which secret (the
bot-calling worker no database credentials, a house bot its own signing secret and nothing
else of the platform's)."""

from __future__ import annotations

from collections.abc import Mapping

from services.base.config import Settings


def base_env(
    settings: Settings, environ: Mapping[str, str], database_url: str, redis_url: str
) -> dict[str, str]:
    """The children's environment: the launcher's (``environ``), with the servers it chose
    and the settings it resolved (each child reads them again at its own start)."""
    env = dict(environ)
    env.update(
        TRUCO_ENV=settings.env,
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        TRUCO_DATA_DIR=settings.data_dir,
        PORT=str(settings.web.port),
        PYTHONUNBUFFERED="1",
    )
    key = settings.secrets.key
    if key is not None:  # local mode made it; production read it from the env
        env["TRUCO_SECRET_KEY"] = key.reveal()
    return env


def without(env: Mapping[str, str], *names: str) -> dict[str, str]:
    return {key: value for key, value in env.items() if key not in names}


def bot_calling_env(env: Mapping[str, str]) -> dict[str, str]:
    """The bot-calling worker's environment: no database URL, no master key."""
    return without(env, "DATABASE_URL", "TRUCO_SECRET_KEY")


def bot_env(env: Mapping[str, str], secret: str | None = None) -> dict[str, str]:
    """A house bot's environment: none of the platform's servers or secrets, only its own
    signing secret (``TRUCO_BOT_SECRET``, which ``truco bot serve`` reads) when it has one."""
    bare = without(env, "DATABASE_URL", "REDIS_URL", "TRUCO_SECRET_KEY", "TRUCO_BOT_SECRET")
    if secret:
        bare["TRUCO_BOT_SECRET"] = secret
    return bare
