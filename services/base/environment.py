"""Every environment variable a platform process reads, parsed into :class:`Settings`
(:mod:`services.base.config`).

A process reads them once, at its edge (``services.launch.local`` and
``services.launch.app.app_from_env`` at start-up, a Celery worker or beat when it boots), with
:func:`load_settings`, and passes the :class:`Settings` down. Nothing reads the environment at
import time. A bad value is a :class:`ConfigError` whose message is one line naming the
variable and what it accepts.

:data:`VARIABLES` is the list of variables (name, where the value goes, default, what is
accepted); ``docs/settings.md`` documents the same list in one table (a test compares them).
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import msgspec

from services.base.config import (
    ENVIRONMENTS,
    MAX_SECRET_GRACE_S,
    MIN_SECRET_LENGTH,
    ConfigError,
    Secret,
    Settings,
)
from services.base.data_dir import default_data_dir

# --- parsers: each returns the value or raises ValueError (the variable's rule is then shown) --


def _whole(low: int, high: int | None = None) -> tuple[Callable[[str], int], str]:
    def parse(raw: str) -> int:
        if not (raw.isascii() and raw.lstrip("-").isdigit()):
            raise ValueError
        value = int(raw)
        if value < low or (high is not None and value > high):
            raise ValueError
        return value

    if high is None:
        return parse, f"a whole number, at least {low}"
    return parse, f"a whole number from {low} to {high}"


def _seconds(low: float, high: float) -> tuple[Callable[[str], float], str]:
    def parse(raw: str) -> float:
        value = float(raw)
        if not low <= value <= high:  # also refuses nan
            raise ValueError
        return value

    return parse, f"a number of seconds from {low:g} to {high:g}"


def _word(words: Sequence[str]) -> tuple[Callable[[str], str], str]:
    def parse(raw: str) -> str:
        lowered = raw.lower()
        if lowered not in words:
            raise ValueError
        return lowered

    return parse, " or ".join(repr(word) for word in words)


def _url(*schemes: str) -> tuple[Callable[[str], str], str]:
    def parse(raw: str) -> str:
        parts = urlsplit(raw)
        parts.port  # noqa: B018 - raises ValueError on a bad port
        if parts.scheme not in schemes:
            raise ValueError
        if parts.scheme != "unix" and not parts.hostname and "host=" not in parts.query:
            raise ValueError
        return raw

    hosted = [f"{scheme}://HOST..." for scheme in schemes if scheme != "unix"]
    socket = ["unix:///PATH"] if "unix" in schemes else []
    shown = [*hosted, *socket]
    return parse, "a URL like " + ", ".join(shown[:-1]) + " or " + shown[-1]


def _networks(raw: str) -> tuple[str, ...]:
    parts = [part.strip() for part in raw.split(",")]
    return tuple(str(ipaddress.ip_network(part, strict=False)) for part in parts if part)


def _two_ports(raw: str) -> tuple[int, int]:
    parse = _whole(0, 65535)[0]
    parts = [part.strip() for part in raw.split(",")]
    if len(parts) != 2:
        raise ValueError
    return parse(parts[0]), parse(parts[1])


def _secret(raw: str) -> Secret:
    if len(raw) < MIN_SECRET_LENGTH:
        raise ValueError
    return Secret(raw)


def _text(raw: str) -> str:
    return raw


def _ip_text(raw: str) -> str:
    return str(ipaddress.ip_address(raw.strip()))


def _folder(raw: str) -> str:
    try:
        return str(Path(raw).expanduser().resolve())
    except RuntimeError:  # ~user of no such user
        raise ValueError(raw) from None


@dataclass(frozen=True, slots=True)
class Variable:
    """One environment variable: where its value goes, its default, what it accepts."""

    name: str
    group: str
    """The :class:`Settings` field holding the value, or the group holding ``field``."""
    field: str | None
    parse: Callable[[str], Any]
    accepts: str
    default: str
    meaning: str
    private: bool = False
    """Its value may hold a password or is a secret: never shown in a message."""

    def read(self, raw: str) -> Any:
        try:
            return self.parse(raw)
        except ValueError:
            got = (
                "the value is not shown (it may hold a password)"
                if self.private
                else f"got {raw[:80]!r}"
            )
            raise ConfigError(f"{self.name} must be {self.accepts}; {got}") from None


def _var(
    name: str,
    where: str,
    rule: tuple[Callable[[str], Any], str],
    default: str,
    meaning: str,
    *,
    private: bool = False,
) -> Variable:
    group, _, field = where.partition(".")
    return Variable(name, group, field or None, rule[0], rule[1], default, meaning, private)


_MINUTE = _whole(1)
VARIABLES: tuple[Variable, ...] = (
    _var("TRUCO_ENV", "env", _word(ENVIRONMENTS), "local",
         "`production` refuses bots on loopback and requires the URLs and the key below"),
    _var("TRUCO_DATA_DIR", "data_dir", (_folder, "a folder"), "`.data` in the checkout",
         "where local data lives: embedded servers, the local master key, logs"),
    _var("DATABASE_URL", "database.url", _url("postgresql", "postgres"),
         "the embedded PostgreSQL (local only)", "the database (the API and the trusted worker)",
         private=True),
    _var("REDIS_URL", "redis.url", _url("redis", "rediss", "unix"),
         "the embedded Redis (local only)", "the broker, rate-limit counters, slots, live feeds",
         private=True),
    _var("TRUCO_REDIS_PREFIX", "redis.prefix", (_text, "any text"), "empty",
         "put before every Redis key the platform writes (tests use one per run)"),
    _var("TRUCO_SECRET_KEY", "secrets.key",
         (_secret, f"at least {MIN_SECRET_LENGTH} characters (for example the output of: "
                   "python -c 'import secrets; print(secrets.token_urlsafe(48))')"),
         "local: made once in `<data dir>/secret_key` (0600)",
         "the master key of bots' signing secrets (the API and the trusted worker)",
         private=True),
    _var("TRUCO_SECRET_GRACE_S", "secrets.grace_s", _whole(0, MAX_SECRET_GRACE_S),
         "86400", "seconds (86400: a day) a bot's rotated-out signing secret still signs"),
    _var("PORT", "web.port", _whole(1, 65535), "8000", "the API's port"),
    _var("TRUCO_HOUSE_BOT_PORTS", "launch.house_ports",
         (_two_ports, "two whole numbers from 0 to 65535 separated by a comma (0: any free port)"),
         "8101,8102", "`make run`'s house bots' ports, house-heuristic's then house-random's (one "
         "in use: a free one instead)"),
    _var("TRUCO_EMBEDDED_POSTGRES_PORT", "launch.postgres_port", _whole(0, 65535),
         "the last run's, else 54329", "`make run`'s embedded PostgreSQL's port (in use: a free "
         "one instead; 0: any free port)"),
    _var("TRUCO_EMBEDDED_REDIS_PORT", "launch.redis_port", _whole(0, 65535),
         "the last run's, else 56379", "`make run`'s embedded Redis's port (in use: a free one "
         "instead; 0: any free port)"),
    _var("TRUCO_TRUSTED_PROXIES", "web.trusted_proxies",
         (_networks, "IP addresses or networks separated by commas (10.0.0.7,10.1.0.0/16)"),
         "none", "reverse proxies whose `X-Forwarded-For` is believed"),
    _var("TRUCO_CONNECTIONS_PER_ADDRESS", "web.connections_per_address", _whole(1, 100_000),
         "32", "connections one client address may hold open to an API process (past it: a "
         "503 and closed; trusted proxies are not capped)"),
    _var("TRUCO_UNFINISHED_HEADS_PER_ADDRESS", "web.heads_per_address", _whole(1, 100_000),
         "8", "connections of one client address that may hold part of a request (its head, "
         "or a body still arriving) at once (past it: a 503 and closed)"),
    _var("TRUCO_READS_AT_ONCE", "web.reads_at_once", _whole(1, 1000), "6",
         "reads (`GET`, `HEAD`) one API process serves at once, so that writes always find "
         "some of the database pool's 10 connections free (more wait their turn, a 503 after "
         "20 s)"),
    _var("TRUCO_READS_PER_ADDRESS", "web.reads_per_address", _whole(1, 1000), "3",
         "of those, the reads one client address may have in flight at once (more wait their "
         "turn, behind no other address)"),
    _var("TRUCO_RATE_LIMIT_PER_MINUTE", "rate_limits.per_key_per_minute", _MINUTE, "600",
         "requests per account (validated key) or client address"),
    _var("TRUCO_ADDRESS_RATE_LIMIT_PER_MINUTE", "rate_limits.per_address_per_minute", _MINUTE,
         "1200", "`/v1` requests per client address over all its keys"),
    _var("TRUCO_ACCOUNT_RATE_LIMIT_PER_MINUTE", "rate_limits.accounts_per_minute", _MINUTE,
         "60", "account creations per client address"),
    _var("TRUCO_ACCOUNT_RATE_LIMIT_PER_HOUR", "rate_limits.accounts_per_hour", _whole(1),
         "5", "account creations per client address in an hour"),
    _var("TRUCO_API_KEYS_PER_ACCOUNT", "keys.per_account", _whole(1, 100), "5",
         "live API keys one account may hold"),
    _var("TRUCO_AUTH_FAILURE_LIMIT_PER_MINUTE", "rate_limits.auth_failures_per_minute",
         _MINUTE, "20", "failed authentications per client address"),
    _var("TRUCO_HEALTH_RATE_LIMIT_PER_MINUTE", "rate_limits.health_per_minute", _MINUTE,
         "300", "`/health` and `/health/live` per client address"),
    _var("TRUCO_PAGE_RATE_LIMIT_PER_MINUTE", "rate_limits.pages_per_minute", _MINUTE, "120",
         "page views (the HTML pages, not `/static` nor a page's `/live` poll) per client "
         "address"),
    _var("TRUCO_POLL_RATE_LIMIT_PER_MINUTE", "rate_limits.polls_per_minute", _MINUTE, "240",
         "polls of a live page's state (`/tournaments/{id}/live`, `/matches/{id}/live`, "
         "`/tests/{id}/live`) per client address"),
    _var("TRUCO_PAGE_CACHE_BYTES", "web.page_cache_bytes", _whole(0, 2**34), "33554432",
         "bytes of rendered pages one API process keeps (32 MiB; 0: no cache)"),
    _var("TRUCO_PAGE_MAX_AGE_S", "web.page_max_age_s", _whole(0, 86_400), "300",
         "seconds a finished event's page is kept by browsers and proxies (`Cache-Control: "
         "max-age`) and by the API process's cache of rendered pages"),
    _var("TRUCO_STREAMS_PER_ADDRESS", "streams.per_address", _whole(1, 10_000), "8",
         "live streams (`/v1/matches/{id}/stream`, `/v1/tournaments/{id}/stream`) one client "
         "address may hold open on one API process"),
    _var("TRUCO_STREAMS_TOTAL", "streams.total", _whole(1, 1_000_000), "2000",
         "live streams one API process holds open at once; the process's connections are "
         "capped at this + 1024"),
    _var("TRUCO_EXPORTS_PER_ADDRESS", "exports.per_address", _whole(1, 10_000), "2",
         "exports (a tournament's, a ladder day's) one client address may download at once "
         "from one API process (a 429 past it)"),
    _var("TRUCO_EXPORTS_TOTAL", "exports.total", _whole(1, 100_000), "16",
         "exports (a tournament's, a ladder day's) one API process makes or serves at once in "
         "their first `TRUCO_EXPORT_SLOT_S` (a 503 past it)"),
    _var("TRUCO_EXPORT_SLOT_S", "exports.slot_s", _seconds(1, 3600), "30",
         "seconds a download keeps its place in `TRUCO_EXPORTS_TOTAL` once it sends; after "
         "them it goes on in overtime, counted only against its address"),
    _var("TRUCO_EXPORT_CACHE_BYTES", "exports.cache_bytes", _whole(0, 2**44), "4294967296",
         "the size the export folder is kept to: other files of the same event, then the "
         "least recently used exports are removed (4 GiB)"),
    _var("TRUCO_EXPORT_CACHE_DIR", "exports.cache_dir", (_folder, "a folder"),
         "`<data dir>/exports`", "where a finished event's export is kept once made"),
    _var("TRUCO_WRITE_DEADLINE_S", "web.write_deadline_s", _seconds(1, 3600), "30",
         "while a response's send buffers are full, its client must read "
         "`TRUCO_WRITE_FLOOR_BYTES` in each such period or it is cut"),
    _var("TRUCO_WRITE_FLOOR_BYTES", "web.write_floor_bytes", _whole(1, 1 << 30), "16384",
         "the bytes a client must read every `TRUCO_WRITE_DEADLINE_S` while the send "
         "buffers are full (16384: about 550 bytes a second over 30 s)"),
    _var("TRUCO_PLAY_CLOCK_S", "play.clock_s", _seconds(1, 3600), "60",
         "seconds a person at `/play` has for each decision"),
    _var("TRUCO_PLAY_BANK_S", "play.bank_s", _seconds(1, 36_000), "300",
         "seconds of thinking a person at `/play` has for one game in all; a decision's "
         "clock is at most what is left, and once it is spent every decision is a timeout"),
    _var("TRUCO_PLAY_PER_ADDRESS", "play.per_address", _whole(1, 1000), "2",
         "play sessions (`POST /v1/play`) one client address may have going at once, "
         "counted in Redis across every API process"),
    _var("TRUCO_PLAY_TOTAL", "play.total", _whole(1, 100_000), "1000",
         "play sessions going at once on the whole platform, counted in Redis across every "
         "API process (each is played by a bot-calling worker, about 34 KiB there)"),
    _var("TRUCO_PLAY_STARTS_PER_HOUR", "play.starts_per_hour", _whole(1, 100_000), "30",
         "play sessions one client address may start in an hour"),
    _var("TRUCO_OPEN_CHALLENGES_PER_ACCOUNT", "challenges.per_account", _whole(1), "8",
         "open challenges an account may have"),
    _var("TRUCO_OPEN_CHALLENGES_PER_BOT", "challenges.per_bot", _whole(1), "4",
         "open challenges a bot may receive from other accounts"),
    _var("TRUCO_RUNNING_TESTS_PER_ACCOUNT", "sprt.per_account", _whole(1), "2",
         "running SPRT tests (`POST /v1/tests`) an account may have"),
    _var("TRUCO_RUNNING_TESTS_PER_BOT", "sprt.per_bot", _whole(1), "2",
         "running SPRT tests of other accounts a bot may be `bot_b` of"),
    _var("TRUCO_RATED_MIN_TIMEOUT_MS", "fair_play.rated_min_timeout_ms", _whole(10, 60_000),
         "200", "the least `timeout_ms` of a rated event that holds another owner's bot"),
    _var("TRUCO_RATED_MIN_FAULT_LIMIT", "fair_play.rated_min_fault_limit", _whole(1, 1000),
         "3", "the least `fault_limit` of a rated event that holds another owner's bot"),
    _var("TRUCO_RATED_MIN_GAMES_PER_MATCH", "fair_play.rated_min_games_per_match",
         _whole(1, 100), "2",
         "the least `games_per_match` of a rated event that holds another owner's bot"),
    _var("TRUCO_OPEN_ENTRIES_PER_ACCOUNT", "fair_play.open_entries_per_account", _whole(1),
         "16", "bots of other owners (open bots) an organiser may have entered into its "
         "registering and running events"),
    _var("TRUCO_BOTS_PER_ACCOUNT", "sizes.bots_per_account", _whole(1, 1_000_000), "50",
         "live bots one account may have (`POST /v1/bots` beyond it is a 409)"),
    _var("TRUCO_ENTRIES_PER_EVENT", "sizes.entries_per_event", _whole(2, 1_000_000), "1024",
         "bots one tournament may have entered (an entry beyond it is a 409)"),
    _var("TRUCO_BOT_MAX_MATCHES", "worker.bot_max_matches", _whole(1, 1000), "4",
         "matches one bot may play at the same time"),
    _var("TRUCO_HEALTH_FAILURES", "worker.health_failures", _whole(1, 1000), "3",
         "failed health checks in a row that make a bot unavailable"),
    _var("TRUCO_PROBE_IDLE_EVERY_S", "worker.probe_idle_every_s", _seconds(60, 604800), "3600",
         "how often an idle bot is probed (a busy one: every minute)"),
    _var("TRUCO_PROBE_IDLE_AFTER_S", "worker.probe_idle_after_s", _seconds(60, 864000),
         "86400", "a bot with no match for this long, in no open tournament, ladder or test, "
         "is idle"),
    _var("TRUCO_PROBES_PER_ACCOUNT_PER_MINUTE", "worker.probes_per_account_per_minute",
         _whole(1, 100_000), "20", "health probes a minute on one account's bots"),
    _var("TRUCO_SWEEP_EVERY_S", "sweep.every_s", _seconds(0.5, 3600), "30",
         "how often beat runs the recovery sweeper"),
    _var("TRUCO_SWEEP_PENDING_AFTER_S", "sweep.pending_after_s", _seconds(0.5, 86400), "60",
         "a `pending` match older than this was never sent: send it"),
    _var("TRUCO_SWEEP_QUEUED_AFTER_S", "sweep.queued_after_s", _seconds(0.5, 86400),
         "each match's hard time limit + the margin",
         "a sent match without a result after this is sent again"),
    _var("TRUCO_SWEEP_MARGIN_S", "sweep.margin_s", _seconds(0, 86400), "60",
         "added to a match's hard time limit before the sweeper acts"),
    _var("TRUCO_SWEEP_MAX_ATTEMPTS", "sweep.max_attempts", _whole(1, 1000), "5",
         "sends of one match before the sweeper gives up on it"),
    _var("TRUCO_LADDER_EVERY_S", "ladder.every_s", _seconds(0.5, 3600), "5",
         "how often beat runs the ladders' matchmaker"),
    _var("TRUCO_LADDER_IN_FLIGHT", "ladder.in_flight", _whole(0, 100_000), "50",
         "ladder matches playing at once, over all ladders (0 stops the ladders)"),
    _var("TRUCO_LADDER_ENTRIES_PER_ACCOUNT", "ladder.entries_per_account", _whole(1, 10_000),
         "5", "bots one account may have on one ladder"),
    _var("TRUCO_LADDER_HOURLY_CAP", "ladder.hourly_cap", _whole(1, 3600), "60",
         "ladder matches a bot may start in an hour (its owner may set it lower)"),
    _var("TRUCO_LADDER_PLACING_AT_ONCE", "ladder.placing_at_once", _whole(1, 100), "2",
         "ladder matches a bot still placing may play at once (placed bots, and bots whose "
         "owner lowered the hourly cap, play one at a time)"),
    _var("TRUCO_LADDER_PAIR_PER_DAY", "ladder.pair_per_day", _whole(1, 1000), "3",
         "how often two bots may meet in one ladder day"),
    _var("TRUCO_LADDER_PAUSE_AFTER", "ladder.pause_after", _whole(1, 1000), "3",
         "walkovers or forfeits in a row that pause a bot on a ladder"),
    _var("TRUCO_METRICS_TOKEN", "metrics.token",
         (_secret, f"at least {MIN_SECRET_LENGTH} characters"), "none",
         "a bearer token that may read the API's `GET /metrics` from any address "
         "(docs/operations.md)", private=True),
    _var("TRUCO_METRICS_ALLOW", "metrics.allow",
         (_networks, "IP addresses or networks separated by commas (10.0.0.7,10.1.0.0/16)"),
         "`127.0.0.0/8,::1/128` (this machine)",
         "client addresses that may read the API's `GET /metrics` without the token"),
    _var("TRUCO_METRICS_PORT", "metrics.port", _whole(0, 65535), "0",
         "the port a Celery worker serves its `/metrics` on (0: none; `make run` gives its "
         "workers `PORT`+1000 and `PORT`+2000)"),
    _var("TRUCO_METRICS_ADDRESS", "metrics.address", (_ip_text, "an IP address"), "127.0.0.1",
         "the address a Celery worker's metrics port listens on"),
    _var("PROMETHEUS_MULTIPROC_DIR", "metrics.multiproc_dir", (_folder, "a folder"),
         "none (one process: metrics in memory)",
         "the folder where the processes of one API or one Celery worker (a prefork pool) "
         "keep their metrics; one folder per API or worker, emptied before it starts (the "
         "Prometheus client reads it too; `make run` sets one per child)"),
    _var("TRUCO_LOG_FORMAT", "logs.format", _word(("json", "text")),
         "`json` in production, `text` in local mode",
         "log lines: JSON lines with a request id and a match id where there is one, or the "
         "human format"),
    _var("TRUCO_REPORTS_PER_HOUR", "moderation.reports_per_hour", _whole(1, 10_000), "10",
         "reports of a bot or a name one client address (an IPv6 /64) may send in an hour; "
         "the same for one account"),
    _var("TRUCO_LADDER_PAIR_PER_DAY_PLACING", "ladder.pair_per_day_placing", _whole(1, 1000),
         "16", "the most meetings in one ladder day of two bots while one of them is placing "
         "in a small pool (docs/ladder.md, \"Small pools\")"),
    _var("TRUCO_LADDER_RESUME_COOLDOWN_S", "ladder.resume_cooldown_s", _seconds(0, 604800),
         "600", "how long after a pause a bot may be resumed, doubled for each earlier pause "
         "on that ladder within a week"),
    _var("TRUCO_LADDER_RESUME_COOLDOWN_MAX_S", "ladder.resume_cooldown_max_s",
         _seconds(0, 604800), "86400", "the longest wait before a paused bot may be resumed"),
    _var("TRUCO_LADDER_LINK_WINDOW_S", "ladder.link_window_s", _seconds(0, 864000),
         "604800", "accounts made from one address (IPv6: one /64) within this of each other "
         "never meet on a ladder"),
    _var("TRUCO_LADDER_COLLUSION_SIGMAS", "ladder.collusion_sigmas", _whole(2, 100), "3",
         "standard errors between a bot's results against one opponent or owner and against "
         "the others that flag the pair for an admin"),
    _var("TRUCO_LADDER_COLLUSION_MIN_MATCHES", "ladder.collusion_min_matches",
         _whole(2, 10000), "6", "ladder matches against one opponent or owner before the "
         "collusion detector judges them"),
)  # fmt: skip

PLATFORM_NEEDS = ("DATABASE_URL", "REDIS_URL", "TRUCO_SECRET_KEY")
"""What the API and ``make run`` need from the environment in production."""
WORKER_NEEDS = ("REDIS_URL",)
"""What every Celery process needs in production (the trusted worker's tasks also need
DATABASE_URL and TRUCO_SECRET_KEY: they say so when they run without them)."""
DATABASE_NEEDS = ("DATABASE_URL",)
"""What the migrations need."""

_GROUPS: dict[str, type[msgspec.Struct]] = {
    field.name: field.type
    for field in msgspec.structs.fields(Settings)
    if isinstance(field.type, type) and issubclass(field.type, msgspec.Struct)
}


def _raw(environ: Mapping[str, str], name: str) -> str | None:
    value = environ.get(name)
    if value is None:
        return None
    value = value.strip()
    return value or None


def local_secret_key(data_dir: Path) -> Secret:
    """The local mode's secret: read ``<data_dir>/secret_key``, creating it (0600) if missing."""
    path = data_dir / "secret_key"
    data_dir.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(48) + "\n")
    key = path.read_text().strip()
    if len(key) < MIN_SECRET_LENGTH:
        raise ConfigError(f"{path} must hold at least {MIN_SECRET_LENGTH} characters")
    return Secret(key)


def secret_key(settings: Settings) -> Secret:
    """The master key: ``TRUCO_SECRET_KEY``, or in local mode ``<data dir>/secret_key`` (made
    on first use). Production without the variable is a :class:`ConfigError`."""
    if settings.secrets.key is not None:
        return settings.secrets.key
    if settings.production:
        raise ConfigError("TRUCO_ENV=production requires TRUCO_SECRET_KEY in the environment")
    return local_secret_key(Path(settings.data_dir))


def load_settings(
    environ: Mapping[str, str] | None = None, *, needs: Iterable[str] = PLATFORM_NEEDS
) -> Settings:
    """Read and check every variable of :data:`VARIABLES` (``os.environ`` by default).

    In production each variable named in ``needs`` must be set. When ``needs`` names
    TRUCO_SECRET_KEY, local mode without it reads (or first makes) ``<data dir>/secret_key``.
    Raises :class:`ConfigError` naming the first bad variable.
    """
    env_vars = os.environ if environ is None else environ
    top: dict[str, Any] = {}
    groups: dict[str, dict[str, Any]] = {name: {} for name in _GROUPS}
    for variable in VARIABLES:
        raw = _raw(env_vars, variable.name)
        if raw is None:
            continue
        value = variable.read(raw)
        if variable.field is None:
            top[variable.group] = value
        else:
            groups[variable.group][variable.field] = value
    top.setdefault("data_dir", str(default_data_dir({})))
    for name, fields in groups.items():
        top[name] = _GROUPS[name](**fields)
    settings = Settings(**top)
    wanted = tuple(needs)
    if settings.production:
        missing = [name for name in wanted if _raw(env_vars, name) is None]
        if missing:
            raise ConfigError(
                f"TRUCO_ENV=production requires {', '.join(missing)} in the environment "
                "(production never starts embedded servers or makes up secrets)"
            )
    elif "TRUCO_SECRET_KEY" in wanted and settings.secrets.key is None:
        key = local_secret_key(Path(settings.data_dir))
        settings = msgspec.structs.replace(
            settings, secrets=msgspec.structs.replace(settings.secrets, key=key)
        )
    return settings
