"""The platform's settings: :class:`Settings`, in groups (database, redis, web, ladder, ...),
the one value every platform process is given at its edge and passes down.

Where the values come from is :mod:`services.base.environment`: every environment variable a
platform process reads, parsed once at start-up by its ``load_settings``. A bad value is a
:class:`ConfigError` whose message is one line naming the variable and what it accepts.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Literal

import msgspec

Env = Literal["local", "production"]
ENVIRONMENTS: tuple[Env, ...] = ("local", "production")
MIN_SECRET_LENGTH = 32
DEFAULT_SECRET_GRACE_S = 24 * 3600
MAX_SECRET_GRACE_S = 30 * 24 * 3600
LOCAL_REDIS_URL = "redis://127.0.0.1:6379/0"
"""The Redis a worker started by hand in local mode uses when ``REDIS_URL`` is unset."""


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


# --- the groups -------------------------------------------------------------------------------


class DatabaseSettings(msgspec.Struct, frozen=True, kw_only=True):
    url: str | None = None
    """None: the embedded PostgreSQL of ``make run`` (local mode only)."""


class RedisSettings(msgspec.Struct, frozen=True, kw_only=True):
    url: str | None = None
    """None: the embedded Redis of ``make run``; a worker started by hand uses
    :data:`LOCAL_REDIS_URL` (local mode only)."""
    prefix: str = ""
    """Put before every Redis key the platform writes (the broker's, slots, live feeds)."""

    @property
    def url_or_local(self) -> str:
        return self.url or LOCAL_REDIS_URL


class SecretSettings(msgspec.Struct, frozen=True, kw_only=True):
    key: Secret | None = None
    """The master key: bots' signing secrets are encrypted under keys derived from it."""
    grace_s: int = DEFAULT_SECRET_GRACE_S
    """Seconds a bot's rotated-out signing secret keeps signing beside the new one."""


class WebSettings(msgspec.Struct, frozen=True, kw_only=True):
    port: int = 8000
    trusted_proxies: tuple[str, ...] = ()
    """Networks (``ipaddress`` strings) whose ``X-Forwarded-For`` the API believes."""
    connections_per_address: int = 32
    """Connections one client address may hold open to an API process
    (``services.api.guard.address_caps``; trusted proxies are not capped)."""
    heads_per_address: int = 8
    """Connections of one client address that may hold an unfinished request head at once."""
    write_deadline_s: float = 30.0
    """The period in which a client whose send buffers are full must read ``write_floor_bytes``."""
    write_floor_bytes: int = 16 * 1024
    """While a response's send buffers are full, its client must read this many bytes every
    ``write_deadline_s`` or the connection is reset (``services.api.serve``)."""
    page_cache_bytes: int = 32 * 1024 * 1024
    """Rendered pages one API process keeps (``services.web.pages.page_cache``); 0: none."""
    page_max_age_s: int = 300
    """How long a finished event's page is kept: by browsers and proxies (``Cache-Control``)
    and by this process's cache of rendered pages."""
    reads_at_once: int = 6
    """Reads (GET, HEAD) one API process serves at once (``services.api.guard.read_lane``): at
    most this many of the database pool's 10 connections are reads', the rest writes'."""
    reads_per_address: int = 3
    """Of those, the reads of one client address at once (more wait their turn)."""


class StreamSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Caps on open Server-Sent Events streams, per API process (``services.api.routes.streams``)."""

    per_address: int = 8
    """Streams one client address may hold open at once."""
    total: int = 2000
    """Streams one API process holds open at once (every address together)."""


class LaunchSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The ports of ``make run``'s own servers on this machine (``services.launch.local``).
    A port already in use is replaced by a free one (the banner prints where each listens);
    0 asks for any free port at once."""

    house_ports: tuple[int, int] = (8101, 8102)
    """The house bots' ports (house-heuristic, house-random)."""
    postgres_port: int | None = None
    """The embedded PostgreSQL's; None: the last run's, else 54329."""
    redis_port: int | None = None
    """The embedded Redis's; None: the last run's, else 56379."""


class ExportSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Tournament exports (``services.api.routes.tournament_export``, ``services.flow.export_cache``)."""

    per_address: int = 2
    """Exports one client address may be downloading at once from one API process."""
    total: int = 16
    """Exports one API process makes or serves in their first ``slot_s`` at once (every
    address together; ``services.api.guard.export_slots``)."""
    slot_s: float = 30.0
    """How long a download keeps its place in ``total`` once it sends (then: overtime)."""
    cache_dir: str | None = None
    """Where a finished event's export is kept once made; None: ``<data dir>/exports``."""
    cache_bytes: int = 4 * 1024**3
    """The size the export folder is kept to (``services.flow.export_cache``)."""


class PlaySettings(msgspec.Struct, frozen=True, kw_only=True):
    """People playing bots at ``/play`` (``services.api.routes.play``, docs/play.md)."""

    clock_s: float = 60.0
    """Seconds a person has for each decision (no answer: a timeout fault, the fallback)."""
    bank_s: float = 300.0
    """Seconds of thinking a person has for one game in all (``services.api.guard.play_limits``)."""
    per_address: int = 2
    """Play sessions one client address may have going at once on one API process."""
    total: int = 1000
    """Play sessions one API process runs at once (every address together)."""
    starts_per_hour: int = 30
    """Play sessions one client address may start in an hour."""


class RateLimits(msgspec.Struct, frozen=True, kw_only=True):
    """The API's budgets, a minute each (``services.api.guard.ratelimit``)."""

    per_key_per_minute: int = 600
    per_address_per_minute: int = 1200
    """Every ``/v1`` request of one client address, whatever keys it carries (so many
    accounts of one address cannot multiply its budget)."""
    accounts_per_minute: int = 60
    accounts_per_hour: int = 5
    """Account creations per client address in an hour."""
    auth_failures_per_minute: int = 20
    health_per_minute: int = 300
    pages_per_minute: int = 120
    """Page views (HTML) per client address (``services.web.pages.budget``)."""
    polls_per_minute: int = 240
    """A live page's ``/live`` polls per client address (``services.web.pages.budget``)."""
    enabled: bool = True


class ChallengeQuota(msgspec.Struct, frozen=True, kw_only=True):
    """Open challenges (``services.flow.challenge_quota``)."""

    per_account: int = 8
    per_bot: int = 4
    """From other accounts than the bot's owner."""


class SprtQuota(msgspec.Struct, frozen=True, kw_only=True):
    """Running SPRT tests (``services.flow.sprt_quota``)."""

    per_account: int = 2
    per_bot: int = 2
    """Tests of other accounts than the bot's owner with the bot as ``bot_b``."""


class FairPlaySettings(msgspec.Struct, frozen=True, kw_only=True):
    """What an event holding bots of other owners must accept (``services.flow.fair_play``):
    floors for rated play, and a quota on entering others' open bots."""

    rated_min_timeout_ms: int = 200
    """The least per-call timeout of a rated event that holds another owner's bot."""
    rated_min_fault_limit: int = 3
    """The least fault limit of such an event."""
    rated_min_games_per_match: int = 2
    """The least games per match of such an event."""
    open_entries_per_account: int = 16
    """Bots of other owners an account may have entered into its registering and running
    events (bots their owners entered themselves are not counted)."""


class KeySettings(msgspec.Struct, frozen=True, kw_only=True):
    """API keys (``services.api.routes.api_keys``)."""

    per_account: int = 5
    """Live API keys one account may hold."""


class SizeLimits(msgspec.Struct, frozen=True, kw_only=True):
    """How much one account may register and one event may hold (``services.flow.size_limits``)."""

    bots_per_account: int = 50
    """Live (not deleted) bots one account may have."""
    entries_per_event: int = 1024
    """Bots one tournament may have entered."""


class WorkerSettings(msgspec.Struct, frozen=True, kw_only=True):
    bot_max_matches: int = 4
    """Matches one bot may play at the same time (a Redis semaphore, ``worker.slots``)."""
    health_failures: int = 3
    """Failed health checks in a row that make a bot unavailable."""
    probe_idle_every_s: float = 3600.0
    """How often an idle bot is probed (a busy one: every minute; ``services.domain.probe_plan``)."""
    probe_idle_after_s: float = 86400.0
    """A bot with no match for this long, in no open event, ladder or test, is idle."""
    probes_per_account_per_minute: int = 20
    """Health probes a minute on one account's bots, however many it has."""


class SweepSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The recovery sweeper's thresholds (``services.worker.results.sweep``)."""

    every_s: float = 30.0
    pending_after_s: float = 60.0
    queued_after_s: float | None = None
    """None: each match's hard time limit + ``margin_s``; a number: that, for every match."""
    margin_s: float = 60.0
    max_attempts: int = 5


class LadderSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The ladders (``services.flow.ladder``, docs/ladder.md)."""

    every_s: float = 5.0
    """How often beat runs the matchmaker."""
    in_flight: int = 50
    """Ladder matches playing at once, over all ladders."""
    entries_per_account: int = 5
    """Bots one account may have on one ladder."""
    hourly_cap: int = 60
    """Ladder matches a bot may start in an hour (its owner may set it lower)."""
    placing_at_once: int = 2
    """Ladder matches a bot still placing may play at once (a placed bot plays one at a time,
    and so does a bot whose owner lowered its hourly cap)."""
    pair_per_day: int = 3
    """How often two bots may meet in one ladder day."""
    pause_after: int = 3
    """Walkovers or forfeits in a row that pause a bot on a ladder."""
    pair_per_day_placing: int = 16
    """The most meetings a day of a pair while one of its bots is placing in a small pool (the
    limit grows from ``pair_per_day`` as the pool shrinks: ``services.ladder.placement``)."""
    resume_cooldown_s: float = 600.0
    """How long after a pause its owner may resume a bot; doubled for each earlier pause of
    the bot on that ladder within a week."""
    resume_cooldown_max_s: float = 86400.0
    """The longest wait before a resume, however many pauses."""
    link_window_s: float = 604800.0
    """Accounts made from one address (one IPv6 /64) within this of each other are linked:
    the ladder never pairs their bots."""
    collusion_sigmas: int = 3
    """How far (in standard errors) a bot's results against one opponent or one owner must lie
    from its results against the others for the detector to flag the pair."""
    collusion_min_matches: int = 6
    """Ladder matches of a bot against one opponent (or owner) before the detector judges them."""


LogFormat = Literal["json", "text"]
LOOPBACK_NETWORKS = ("127.0.0.0/8", "::1/128")


class MetricsSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Prometheus metrics (``services.metrics``, docs/operations.md)."""

    token: Secret | None = None
    """A bearer token that may read the API's ``GET /metrics`` from any address."""
    allow: tuple[str, ...] = LOOPBACK_NETWORKS
    """Client addresses (networks) that may read ``GET /metrics`` without the token."""
    port: int = 0
    """The port a Celery worker serves its metrics on (0: none)."""
    address: str = "127.0.0.1"
    """The address a Celery worker's metrics port listens on."""
    multiproc_dir: str | None = None
    """``PROMETHEUS_MULTIPROC_DIR``: the folder where the processes of one API or Celery
    worker (a prefork pool, several uvicorn workers) keep their metrics for one scrape; the
    library reads the variable too. None: one process, metrics in its memory."""


class LogSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The processes' log lines (``services.base.log_format``)."""

    format: LogFormat | None = None
    """None: JSON lines in production, the human format in local mode."""


class ModerationSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Users' reports and the admins' actions (``services.flow.moderation``, docs/moderation.md)."""

    reports_per_hour: int = 10
    """Reports one client address (an IPv6 /64) may make in an hour; the same for one account."""


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    """Everything the platform's processes read from the environment, by group."""

    env: Env = "local"
    data_dir: str = ".data"
    database: DatabaseSettings = DatabaseSettings()
    redis: RedisSettings = RedisSettings()
    secrets: SecretSettings = SecretSettings()
    web: WebSettings = WebSettings()
    launch: LaunchSettings = LaunchSettings()
    rate_limits: RateLimits = RateLimits()
    streams: StreamSettings = StreamSettings()
    keys: KeySettings = KeySettings()
    exports: ExportSettings = ExportSettings()
    play: PlaySettings = PlaySettings()
    challenges: ChallengeQuota = ChallengeQuota()
    sprt: SprtQuota = SprtQuota()
    fair_play: FairPlaySettings = FairPlaySettings()
    sizes: SizeLimits = SizeLimits()
    worker: WorkerSettings = WorkerSettings()
    sweep: SweepSettings = SweepSettings()
    ladder: LadderSettings = LadderSettings()
    metrics: MetricsSettings = MetricsSettings()
    logs: LogSettings = LogSettings()
    moderation: ModerationSettings = ModerationSettings()

    @property
    def log_format(self) -> LogFormat:
        """``TRUCO_LOG_FORMAT``, else JSON lines in production and the human format locally."""
        if self.logs.format is not None:
            return self.logs.format
        return "json" if self.production else "text"

    @property
    def export_cache_dir(self) -> Path:
        """The folder of finished events' exports (``TRUCO_EXPORT_CACHE_DIR``)."""
        configured = self.exports.cache_dir
        return Path(configured) if configured else Path(self.data_dir) / "exports"

    @property
    def production(self) -> bool:
        return self.env == "production"

    @property
    def allow_loopback_bots(self) -> bool:
        """Local mode lets bots run on this machine; production refuses such URLs."""
        return self.env == "local"
