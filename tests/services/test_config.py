"""Settings from the environment."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from services.config import ConfigError, Secret, load_settings

SECRET = "s" * 40


def test_local_defaults(tmp_path: Path) -> None:
    settings = load_settings({"TRUCO_DATA_DIR": str(tmp_path)})
    assert settings.env == "local"
    assert settings.port == 8000
    assert settings.database_url is None
    assert settings.redis_url is None
    assert settings.allow_loopback_bots
    assert not settings.production


def test_local_mode_makes_and_keeps_a_private_secret(tmp_path: Path) -> None:
    first = load_settings({"TRUCO_DATA_DIR": str(tmp_path)})
    second = load_settings({"TRUCO_DATA_DIR": str(tmp_path)})
    assert first.secret_key is not None
    assert first.secret_key == second.secret_key
    assert len(first.secret_key.reveal()) >= 32
    assert stat.S_IMODE((tmp_path / "secret_key").stat().st_mode) == 0o600


def test_secret_never_shows_in_repr(tmp_path: Path) -> None:
    settings = load_settings({"TRUCO_SECRET_KEY": SECRET, "TRUCO_DATA_DIR": str(tmp_path)})
    assert SECRET not in repr(settings)
    assert SECRET not in str(settings.secret_key)
    assert settings.secret_key == Secret(SECRET)
    assert not (tmp_path / "secret_key").exists()


def test_production_requires_everything_from_the_environment() -> None:
    with pytest.raises(ConfigError, match="DATABASE_URL, REDIS_URL, TRUCO_SECRET_KEY"):
        load_settings({"TRUCO_ENV": "production"})
    with pytest.raises(ConfigError, match="TRUCO_SECRET_KEY"):
        load_settings(
            {
                "TRUCO_ENV": "production",
                "DATABASE_URL": "postgresql://app@db.internal/truco",
                "REDIS_URL": "redis://cache.internal:6379/0",
            }
        )


def test_production_settings() -> None:
    settings = load_settings(
        {
            "TRUCO_ENV": "Production",
            "DATABASE_URL": "postgresql://app@db.internal/truco",
            "REDIS_URL": "rediss://cache.internal:6380/1",
            "TRUCO_SECRET_KEY": SECRET,
            "PORT": "9001",
        }
    )
    assert settings.production
    assert not settings.allow_loopback_bots
    assert settings.port == 9001


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"PORT": "eighty"}, "PORT must be a whole number"),
        ({"PORT": "70000"}, "PORT must be between 1 and 65535"),
        ({"TRUCO_ENV": "staging"}, "TRUCO_ENV must be 'local' or 'production'"),
        ({"DATABASE_URL": "mysql://x/y"}, "DATABASE_URL must start with postgresql://"),
        ({"DATABASE_URL": "postgresql:///truco"}, "DATABASE_URL has no host"),
        ({"DATABASE_URL": "postgresql://h:port/x"}, "DATABASE_URL is not a valid URL"),
        ({"REDIS_URL": "http://127.0.0.1:6379"}, "REDIS_URL must start with redis://"),
        ({"TRUCO_SECRET_KEY": "short"}, "at least 32 characters"),
        ({"TRUCO_SECRET_GRACE_S": "1h"}, "TRUCO_SECRET_GRACE_S must be a whole number"),
        ({"TRUCO_SECRET_GRACE_S": "2592001"}, "from 0 to 2592000"),
    ],
)
def test_bad_values_name_the_variable(
    environ: dict[str, str], message: str, tmp_path: Path
) -> None:
    with pytest.raises(ConfigError, match=message):
        load_settings({**environ, "TRUCO_DATA_DIR": str(tmp_path)})


def test_blank_values_count_as_unset(tmp_path: Path) -> None:
    settings = load_settings(
        {"DATABASE_URL": " ", "REDIS_URL": "", "PORT": "", "TRUCO_DATA_DIR": str(tmp_path)}
    )
    assert settings.database_url is None
    assert settings.redis_url is None
    assert settings.port == 8000


def test_the_secret_grace_period_defaults_to_a_day(tmp_path: Path) -> None:
    assert load_settings({"TRUCO_DATA_DIR": str(tmp_path)}).secret_grace_s == 86400
    chosen = load_settings({"TRUCO_SECRET_GRACE_S": "0", "TRUCO_DATA_DIR": str(tmp_path)})
    assert chosen.secret_grace_s == 0
