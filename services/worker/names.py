"""Queue and task names: stable, shared by senders and workers (no imports, no cycles)."""

from __future__ import annotations

MATCHES = "matches"
"""The bot-calling worker's queue: matches and health probes; no database."""
RESULTS = "results"
"""The trusted worker's queue: results, tournaments, health records; no bot calls."""
LADDER = "ladder"
"""The bot-calling worker's second queue: ladder matches (the matchmaker starts none while
tournament, challenge or test matches wait, so they come first)."""
BOT_CALLING_QUEUES = f"{MATCHES},{LADDER}"
"""The queues a bot-calling worker consumes."""

PLAY_MATCH = "truco.play_match"
STORE_RESULT = "truco.store_result"
START_DUE_TOURNAMENTS = "truco.start_due_tournaments"
CHECK_BOT_HEALTH = "truco.check_bot_health"
PROBE_BOTS = "truco.probe_bots"
RECORD_BOT_HEALTH = "truco.record_bot_health"
MATCH_STARTED = "truco.match_started"
MATCH_STOPPED = "truco.match_stopped"
MATCH_REFUSED = "truco.match_refused"
REQUEUE_STALE = "truco.requeue_stale_matches"
FIT_RATINGS = "truco.fit_ratings"
LADDER_TICK = "truco.ladder_tick"
PLAY_PERSON = "truco.play_person"
"""A /play session: a person against bots (the bot-calling worker; docs/play.md)."""
STORE_PLAY_RESULT = "truco.store_play_result"
SWEEP_PLAY_SESSIONS = "truco.sweep_play_sessions"

TASK_QUEUES: dict[str, str] = {
    PLAY_MATCH: MATCHES,
    PROBE_BOTS: MATCHES,
    STORE_RESULT: RESULTS,
    START_DUE_TOURNAMENTS: RESULTS,
    CHECK_BOT_HEALTH: RESULTS,
    RECORD_BOT_HEALTH: RESULTS,
    MATCH_STARTED: RESULTS,
    MATCH_STOPPED: RESULTS,
    MATCH_REFUSED: RESULTS,
    REQUEUE_STALE: RESULTS,
    FIT_RATINGS: RESULTS,
    LADDER_TICK: RESULTS,
    PLAY_PERSON: MATCHES,
    STORE_PLAY_RESULT: RESULTS,
    SWEEP_PLAY_SESSIONS: RESULTS,
}
"""Every task's queue: its routing and the queue its ``platform_task`` declares."""
