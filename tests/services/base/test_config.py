"""Settings from the environment: one module parses every variable, every group checks its
values with one clear line, and docs/settings.md lists exactly the parsed variables."""

from __future__ import annotations

import ast
import re
import stat
from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from services.base.config import (
    ChallengeQuota,
    ConfigError,
    RateLimits,
    Secret,
    Settings,
    SprtQuota,
    SweepSettings,
    WorkerSettings,
)
from services.base.environment import (
    DATABASE_NEEDS,
    VARIABLES,
    WORKER_NEEDS,
    Variable,
    load_settings,
    secret_key,
)

ROOT = Path(__file__).resolve().parents[3]
SECRET = "s" * 40
PRODUCTION = {
    "TRUCO_ENV": "production",
    "DATABASE_URL": "postgresql://app:pw@db.internal/truco",
    "REDIS_URL": "rediss://cache.internal:6380/1",
    "TRUCO_SECRET_KEY": SECRET,
}


@pytest.fixture
def base(tmp_path: Path) -> dict[str, str]:
    return {"TRUCO_DATA_DIR": str(tmp_path)}


def test_local_defaults(base: dict[str, str]) -> None:
    settings = load_settings(base)
    assert settings.env == "local"
    assert settings.web.port == 8000
    assert settings.database.url is None
    assert settings.redis.url is None and settings.redis.prefix == ""
    assert settings.redis.url_or_local == "redis://127.0.0.1:6379/0"
    assert settings.allow_loopback_bots
    assert not settings.production
    assert settings.rate_limits == RateLimits()
    assert settings.challenges == ChallengeQuota(per_account=8, per_bot=4)
    assert settings.sprt == SprtQuota(per_account=2, per_bot=2)
    assert settings.worker == WorkerSettings(bot_max_matches=4, health_failures=3)
    assert settings.sweep == SweepSettings()


def test_local_mode_makes_and_keeps_a_private_secret(tmp_path: Path) -> None:
    first = load_settings({"TRUCO_DATA_DIR": str(tmp_path)})
    second = load_settings({"TRUCO_DATA_DIR": str(tmp_path)})
    assert first.secrets.key is not None
    assert first.secrets.key == second.secrets.key
    assert len(first.secrets.key.reveal()) >= 32
    assert stat.S_IMODE((tmp_path / "secret_key").stat().st_mode) == 0o600


def test_a_worker_never_makes_up_the_master_key(tmp_path: Path) -> None:
    settings = load_settings({"TRUCO_DATA_DIR": str(tmp_path)}, needs=WORKER_NEEDS)
    assert settings.secrets.key is None
    assert not (tmp_path / "secret_key").exists()
    # the trusted worker asks for it when a task needs it: the same file as the API's
    made = secret_key(settings)
    assert made == load_settings({"TRUCO_DATA_DIR": str(tmp_path)}).secrets.key
    with pytest.raises(ConfigError, match="requires TRUCO_SECRET_KEY"):
        secret_key(msgspec.structs.replace(settings, env="production"))


def test_secret_never_shows_in_repr(base: dict[str, str], tmp_path: Path) -> None:
    settings = load_settings({**base, "TRUCO_SECRET_KEY": SECRET})
    assert SECRET not in repr(settings)
    assert SECRET not in str(settings.secrets.key)
    assert settings.secrets.key == Secret(SECRET)
    assert not (tmp_path / "secret_key").exists()


def test_production_requires_what_each_process_needs() -> None:
    with pytest.raises(ConfigError, match="DATABASE_URL, REDIS_URL, TRUCO_SECRET_KEY"):
        load_settings({"TRUCO_ENV": "production"})
    without_key = {k: v for k, v in PRODUCTION.items() if k != "TRUCO_SECRET_KEY"}
    with pytest.raises(ConfigError, match="requires TRUCO_SECRET_KEY in the environment"):
        load_settings(without_key)
    with pytest.raises(ConfigError, match="requires REDIS_URL in the environment"):
        load_settings({"TRUCO_ENV": "production"}, needs=WORKER_NEEDS)
    with pytest.raises(ConfigError, match="requires DATABASE_URL in the environment"):
        load_settings({"TRUCO_ENV": "production"}, needs=DATABASE_NEEDS)
    worker = load_settings(
        {"TRUCO_ENV": "production", "REDIS_URL": "redis://r"}, needs=WORKER_NEEDS
    )
    assert worker.database.url is None and worker.secrets.key is None


def test_production_settings() -> None:
    settings = load_settings({**PRODUCTION, "TRUCO_ENV": "Production", "PORT": "9001"})
    assert settings.production
    assert not settings.allow_loopback_bots
    assert settings.web.port == 9001
    assert settings.database.url == PRODUCTION["DATABASE_URL"]


def test_every_group_is_read(base: dict[str, str]) -> None:
    settings = load_settings(
        {
            **base,
            "TRUCO_REDIS_PREFIX": "t1:",
            "TRUCO_TRUSTED_PROXIES": "10.0.0.7, 10.1.0.0/16",
            "TRUCO_SECRET_GRACE_S": "0",
            "TRUCO_HEALTH_RATE_LIMIT_PER_MINUTE": "9",
            "TRUCO_OPEN_CHALLENGES_PER_BOT": "2",
            "TRUCO_RUNNING_TESTS_PER_ACCOUNT": "5",
            "TRUCO_BOT_MAX_MATCHES": "7",
            "TRUCO_HEALTH_FAILURES": "5",
            "TRUCO_SWEEP_QUEUED_AFTER_S": "2.5",
            "TRUCO_SWEEP_MAX_ATTEMPTS": "9",
        }
    )
    assert settings.redis.prefix == "t1:"
    assert settings.web.trusted_proxies == ("10.0.0.7/32", "10.1.0.0/16")
    assert settings.secrets.grace_s == 0
    assert settings.rate_limits == RateLimits(health_per_minute=9)
    assert settings.challenges == ChallengeQuota(per_bot=2)
    assert settings.sprt == SprtQuota(per_account=5)
    assert settings.worker == WorkerSettings(bot_max_matches=7, health_failures=5)
    assert settings.sweep == SweepSettings(queued_after_s=2.5, max_attempts=9)
    assert settings.data_dir == base["TRUCO_DATA_DIR"]


# every group: a bad whole number, a negative, an unknown word, out of range
@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"PORT": "eighty"}, "PORT must be a whole number from 1 to 65535; got 'eighty'"),
        ({"PORT": "70000"}, "PORT must be a whole number from 1 to 65535; got '70000'"),
        ({"TRUCO_ENV": "staging"}, "TRUCO_ENV must be 'local' or 'production'; got 'staging'"),
        ({"DATABASE_URL": "mysql://x/y"}, "DATABASE_URL must be a URL like postgresql://"),
        ({"DATABASE_URL": "postgresql:///truco"}, "DATABASE_URL must be a URL like"),
        ({"DATABASE_URL": "postgresql://h:port/x"}, "DATABASE_URL must be a URL like"),
        ({"REDIS_URL": "http://127.0.0.1:6379"}, "REDIS_URL must be a URL like redis://"),
        ({"TRUCO_SECRET_KEY": "short"}, "TRUCO_SECRET_KEY must be at least 32 characters"),
        ({"TRUCO_SECRET_GRACE_S": "1h"}, "TRUCO_SECRET_GRACE_S must be a whole number from 0"),
        ({"TRUCO_SECRET_GRACE_S": "2592001"}, "from 0 to 2592000; got '2592001'"),
        ({"TRUCO_TRUSTED_PROXIES": "10.0.0.7,proxy"}, "TRUCO_TRUSTED_PROXIES must be IP"),
        ({"TRUCO_RATE_LIMIT_PER_MINUTE": "lots"}, "TRUCO_RATE_LIMIT_PER_MINUTE must be a whole"),
        ({"TRUCO_ACCOUNT_RATE_LIMIT_PER_MINUTE": "-1"}, "at least 1; got '-1'"),
        ({"TRUCO_OPEN_CHALLENGES_PER_ACCOUNT": "0"}, "at least 1; got '0'"),
        ({"TRUCO_OPEN_CHALLENGES_PER_BOT": "2.5"}, "TRUCO_OPEN_CHALLENGES_PER_BOT must be"),
        ({"TRUCO_RUNNING_TESTS_PER_ACCOUNT": "0"}, "at least 1; got '0'"),
        ({"TRUCO_RUNNING_TESTS_PER_BOT": "many"}, "TRUCO_RUNNING_TESTS_PER_BOT must be a whole"),
        ({"TRUCO_BOT_MAX_MATCHES": "-4"}, "from 1 to 1000; got '-4'"),
        ({"TRUCO_HEALTH_FAILURES": "three"}, "TRUCO_HEALTH_FAILURES must be a whole number"),
        ({"TRUCO_SWEEP_EVERY_S": "soon"}, "TRUCO_SWEEP_EVERY_S must be a number of seconds"),
        ({"TRUCO_SWEEP_MARGIN_S": "-1"}, "from 0 to 86400; got '-1'"),
        ({"TRUCO_SWEEP_PENDING_AFTER_S": "nan"}, "TRUCO_SWEEP_PENDING_AFTER_S must be"),
        ({"TRUCO_SWEEP_MAX_ATTEMPTS": "0"}, "TRUCO_SWEEP_MAX_ATTEMPTS must be a whole number"),
    ],
)
def test_bad_values_name_the_variable_and_what_it_accepts(
    environ: dict[str, str], message: str, base: dict[str, str]
) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)) as raised:
        load_settings({**environ, **base})
    assert "\n" not in str(raised.value)


def test_secrets_and_passwords_are_never_shown(base: dict[str, str]) -> None:
    for name, value in [
        ("DATABASE_URL", "mysql://user:hunter2@db/x"),
        ("REDIS_URL", "http://:hunter2@cache:6379"),
        ("TRUCO_SECRET_KEY", "hunter2"),
    ]:
        with pytest.raises(ConfigError) as raised:
            load_settings({**base, name: value})
        assert "hunter2" not in str(raised.value) and name in str(raised.value)


@given(st.sampled_from(VARIABLES), st.text(max_size=30))
def test_any_value_is_accepted_or_refused_with_a_config_error(variable: Variable, raw: str) -> None:
    """Whatever the value, the outcome is settings or a ConfigError naming the variable (never
    another exception, never a traceback)."""
    environ = {"TRUCO_DATA_DIR": "/nonexistent/truco-test", variable.name: raw}
    try:
        load_settings(environ, needs=WORKER_NEEDS)  # a worker: no key file is made
    except ConfigError as exc:
        assert str(exc).startswith(variable.name) or "production requires" in str(exc)


def test_blank_values_count_as_unset(base: dict[str, str]) -> None:
    settings = load_settings({"DATABASE_URL": " ", "REDIS_URL": "", "PORT": "", **base})
    assert settings.database.url is None
    assert settings.redis.url is None
    assert settings.web.port == 8000


def test_documented_defaults_are_the_defaults() -> None:
    """Where the table's default is a value, parsing it gives the field's default."""
    defaults = Settings()
    checked = 0
    for variable in VARIABLES:
        if not variable.default.replace(".", "").isdigit() and variable.default != "local":
            continue
        value = defaults if variable.field is None else getattr(defaults, variable.group)
        field = variable.group if variable.field is None else variable.field
        assert variable.parse(variable.default) == getattr(value, field), variable.name
        checked += 1
    assert checked >= 15


def _documented() -> list[tuple[str, ...]]:
    text = (ROOT / "docs" / "settings.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    table = [tuple(cell.strip() for cell in row.strip("|").split(" | ")) for row in rows]
    return [row for row in table if len(row) == 4]


def test_the_documentation_lists_exactly_the_parsed_variables() -> None:
    expected = []
    for v in VARIABLES:
        where = v.group if v.field is None else f"{v.group}.{v.field}"
        expected.append((f"`{v.name}`", v.default, v.accepts, f"{v.meaning} (`{where}`)"))
    assert _documented() == expected


def test_no_module_reads_the_environment_but_the_edges() -> None:
    """``os.environ`` / ``getenv`` appear in services only where a process starts (and in the
    embedded servers' developer overrides, documented as not platform settings)."""
    allowed = {
        "services/base/environment.py",  # load_settings: the default mapping
        "services/launch/local.py",  # make run's launcher: its environment, passed to its children
        "services/base/data_dir.py",  # TRUCO_DATA_DIR: where the local data lives
        "services/launch/embedded/plan.py",
        "services/launch/embedded/postgres.py",
        "services/launch/embedded/redis.py",
    }
    found = set()
    for path in sorted((ROOT / "services").rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in {"environ", "getenv"}:
                found.add(str(path.relative_to(ROOT)))
    assert found <= allowed, found - allowed


def test_no_row_of_the_settings_document_is_there_twice() -> None:
    """Every table row once, and each process once in "Who needs what" (its `make run` row
    was there twice, with different lists)."""
    text = (ROOT / "docs" / "settings.md").read_text()
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    assert len(rows) == len(set(rows))
    who = text[text.index("## Who needs what") :].split("\n## ", 1)[0]
    processes = [
        line.split(" | ")[0]
        for line in who.splitlines()
        if line.startswith("| ") and "---" not in line
    ]
    assert len(processes) == len(set(processes)), processes
