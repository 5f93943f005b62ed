"""Every metric the platform exports: name, help, labels, buckets. One place, so the names
the dashboard and the alert rules use (``infra/``) can be checked against it, and so no two
modules make the same metric twice (the Prometheus client refuses a duplicate name).

Labels take few values, always: a route TEMPLATE (``/v1/bots/{bot_id}``), never a raw
path; a fault kind of :data:`arena.wire.faults.FAULT_KINDS`; a budget's slug; a queue's name.
Nothing a client chooses (an id, a name, an address) becomes a label value.

Counters are named without ``_total``: the client adds it (``truco_http_requests_total``).
A gauge says how it adds up over the processes of a prefork pool (``multiprocess_mode``):
``livesum``, the sum over the processes alive. What each metric means, and what to do when
its alert fires: docs/operations.md.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

# the HTTP side (the API process: every request, the pages' too)
HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
HTTP_REQUESTS = Counter(
    "truco_http_requests",
    "HTTP requests answered, by method, route template and status",
    ["method", "route", "status"],
)
HTTP_DURATION = Histogram(
    "truco_http_request_duration_seconds",
    "Seconds from a request's arrival to the first byte of its answer, by method and route "
    "template (a stream's whole life is not counted: only until its headers)",
    ["method", "route"],
    buckets=HTTP_BUCKETS,
)
RATE_LIMIT_REFUSALS = Counter(
    "truco_rate_limit_refusals",
    "Requests refused with 429, by budget: requests, accounts, auth_failures, address, "
    "health, pages, reports; a quota's or a cap's by its problem slug (too-many-streams, "
    "too-many-challenges, too-many-play-sessions, too-many-exports, ...)",
    ["budget"],
)
SSE_STREAMS_OPEN = Gauge(
    "truco_sse_streams_open",
    "Server-Sent Events streams open (live matches and tournaments)",
    multiprocess_mode="livesum",
)
SSE_STREAMS_CAPACITY = Gauge(
    "truco_sse_streams_capacity",
    "Streams the API processes may hold open at once (TRUCO_STREAMS_TOTAL each)",
    multiprocess_mode="livesum",
)
PAGE_CACHE = Counter(
    "truco_page_cache_lookups",
    "Page views looked up in the rendered-page cache, by result (hit or miss)",
    ["result"],
)

# the bot-calling worker
BOT_CALL_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 5.0, 10.0)
BOT_CALLS = Counter(
    "truco_bot_calls",
    "Decisions asked of bots (one /act call each), by outcome: ok or the fault kind",
    ["outcome"],
)
BOT_CALL_DURATION = Histogram(
    "truco_bot_call_duration_seconds",
    "Seconds a bot took to answer /act (its latency as the match recorded it), by result "
    "(ok or fault)",
    ["result"],
    buckets=BOT_CALL_BUCKETS,
)
FAULTS = Counter(
    "truco_faults",
    "Bots' faults by kind and stage: act (a decision's fault), walkover (a bot unreachable "
    "at the start), forfeit (a match lost to faults)",
    ["kind", "stage"],
)
MATCHES_PLAYING = Gauge(
    "truco_matches_playing",
    "Matches being played now by the bot-calling workers",
    multiprocess_mode="livesum",
)
MATCHES_WAITING = Gauge(
    "truco_matches_waiting",
    "Matches a bot-calling worker holds that wait at its admission gate",
    multiprocess_mode="livesum",
)
MATCHES_PLAYED = Counter(
    "truco_matches_played",
    "Matches a bot-calling worker finished, by end: result (sent to be stored), stopped "
    "(decided meanwhile), error",
    ["end"],
)

# the trusted worker
STORE_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
MATCHES_STORED = Counter(
    "truco_matches_stored",
    "Results the trusted worker handled, by kind: ladder or other (stored now), duplicate "
    "(stored before, or the match was decided without this play)",
    ["kind"],
)
STORE_DURATION = Histogram(
    "truco_store_duration_seconds",
    "Seconds the trusted worker took to verify and store one result (replay re-simulated, "
    "result, ratings and what follows, in one transaction)",
    buckets=STORE_BUCKETS,
)
STORE_REFUSED = Counter(
    "truco_store_refused",
    "Results refused by the trusted worker: the replay does not belong to its match or does "
    "not re-simulate",
)
LADDER_TICK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LADDER_TICKS = Counter(
    "truco_ladder_ticks",
    "Runs of the ladders' matchmaker, by trigger (beat or result) and outcome (ran, or busy: "
    "another worker held the lease)",
    ["trigger", "outcome"],
)
LADDER_MATCHES_CHOSEN = Counter(
    "truco_ladder_matches_chosen",
    "Ladder matches the matchmaker made and sent, by trigger (beat or result)",
    ["trigger"],
)
LADDER_TICK_DURATION = Histogram(
    "truco_ladder_tick_duration_seconds",
    "Seconds one matchmaker run took (the lease held), by trigger",
    ["trigger"],
    buckets=LADDER_TICK_BUCKETS,
)
PAIRING_BUCKETS = (0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0)
PAIRING_DURATION = Histogram(
    "truco_pairing_duration_seconds",
    "Seconds a tournament format took to plan its next step (a Swiss round's pairing, ...), "
    "by format",
    ["format"],
    buckets=PAIRING_BUCKETS,
)

# moderation (the API)
MODERATION_ACTIONS = Counter(
    "truco_moderation_actions",
    "Admins' actions written to the audit log, by action",
    ["action"],
)
REPORTS = Counter(
    "truco_reports",
    "Reports of a bot or a name received from users, by target (bot or account)",
    ["target"],
)

QUEUE_DEPTH = "truco_queue_depth"
"""Messages waiting in a broker queue, by queue: read from Redis at each scrape by the workers
(:mod:`services.metrics.queues`), not counted here."""
BROKER_UNACKED = "truco_broker_unacked"
"""Messages the workers took and have not acknowledged yet (playing, or held at the gate)."""
SCRAPE_TIME_METRICS = (QUEUE_DEPTH, BROKER_UNACKED)
