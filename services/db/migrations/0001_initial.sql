-- 0001 initial schema of Truco Arena.
--
-- Ids are bigint identities: compact, ordered (keyset pagination by id), readable in URLs and
-- logs. Every resource is public except accounts' keys, so guessable ids reveal nothing.
-- Statuses are text with CHECK constraints (easier to evolve than enum types).
-- Rows that others refer to are never deleted: a deleted bot keeps its row (status 'deleted')
-- so its matches, ratings and replays still resolve.

CREATE TABLE accounts (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name         text NOT NULL,
    -- SHA-256 of the API key. Keys are 32 random bytes, so a fast hash is enough and lets the
    -- key be looked up by its hash. The key itself is shown once and never stored.
    api_key_hash bytea NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT accounts_name_length CHECK (char_length(name) BETWEEN 1 AND 64),
    CONSTRAINT accounts_api_key_hash_length CHECK (octet_length(api_key_hash) = 32),
    CONSTRAINT accounts_api_key_hash_unique UNIQUE (api_key_hash)
);
-- Names are unique regardless of case, so "Alice" cannot pose as "alice".
CREATE UNIQUE INDEX accounts_name_unique ON accounts (lower(name));

CREATE TABLE bots (
    id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner_id             bigint NOT NULL REFERENCES accounts (id),
    name                 text NOT NULL,
    url                  text NOT NULL,
    -- The platform signs its requests to the bot with this secret, so it needs the secret
    -- itself, not a hash: it is stored encrypted (AES-256-GCM under the key named by
    -- signing_key_id, which comes from the environment) and never logged.
    signing_secret_enc   bytea NOT NULL,
    signing_key_id       text NOT NULL,
    status               text NOT NULL DEFAULT 'active',
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now(),
    deleted_at           timestamptz,
    -- Health: a bot failing repeated checks becomes 'unavailable' and comes back when it
    -- answers again.
    last_check_at        timestamptz,
    last_ok_at           timestamptz,
    consecutive_failures integer NOT NULL DEFAULT 0,
    last_error           text,
    CONSTRAINT bots_status_check CHECK (status IN ('active', 'unavailable', 'deleted')),
    CONSTRAINT bots_name_length CHECK (char_length(name) BETWEEN 1 AND 64),
    CONSTRAINT bots_url_length CHECK (char_length(url) BETWEEN 1 AND 2048),
    CONSTRAINT bots_failures_nonnegative CHECK (consecutive_failures >= 0),
    CONSTRAINT bots_deleted_at_matches_status CHECK ((status = 'deleted') = (deleted_at IS NOT NULL))
);
-- Bot names are unique among live bots (leaderboards show names); a deleted bot frees its name.
CREATE UNIQUE INDEX bots_name_unique ON bots (lower(name)) WHERE status <> 'deleted';
CREATE INDEX bots_owner ON bots (owner_id, id);
-- Health checks walk the bots that are not deleted, least recently checked first.
CREATE INDEX bots_health_due ON bots (last_check_at NULLS FIRST) WHERE status <> 'deleted';

CREATE TABLE tournaments (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    organiser_id  bigint NOT NULL REFERENCES accounts (id),
    name          text NOT NULL,
    format        text NOT NULL,
    mode          text NOT NULL,
    status        text NOT NULL DEFAULT 'registering',
    -- rules (the engine's rules object), rounds, games_per_match, fault limits, per-call
    -- timeout: everything the formats and the match runner read, as one validated document.
    settings      jsonb NOT NULL DEFAULT '{}'::jsonb,
    -- The scheduled start is a column rather than a settings key so beat can find due
    -- tournaments through an index.
    start_at      timestamptz,
    current_round integer NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL DEFAULT now(),
    started_at    timestamptz,
    finished_at   timestamptz,
    CONSTRAINT tournaments_name_length CHECK (char_length(name) BETWEEN 1 AND 100),
    CONSTRAINT tournaments_format_check
        CHECK (format IN ('swiss', 'single_elimination', 'double_elimination', 'round_robin')),
    CONSTRAINT tournaments_mode_check CHECK (mode IN ('1v1', '2v2')),
    CONSTRAINT tournaments_status_check
        CHECK (status IN ('registering', 'running', 'finished', 'cancelled')),
    CONSTRAINT tournaments_settings_object CHECK (jsonb_typeof(settings) = 'object'),
    CONSTRAINT tournaments_current_round_nonnegative CHECK (current_round >= 0),
    CONSTRAINT tournaments_started CHECK (status NOT IN ('running', 'finished') OR started_at IS NOT NULL),
    CONSTRAINT tournaments_finished CHECK (status <> 'finished' OR finished_at IS NOT NULL)
);
CREATE INDEX tournaments_by_status ON tournaments (status, id DESC);
CREATE INDEX tournaments_by_organiser ON tournaments (organiser_id, id DESC);
CREATE INDEX tournaments_due ON tournaments (start_at)
    WHERE status = 'registering' AND start_at IS NOT NULL;

CREATE TABLE tournament_entries (
    tournament_id bigint NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    bot_id        bigint NOT NULL REFERENCES bots (id),
    seed          integer,
    entered_at    timestamptz NOT NULL DEFAULT now(),
    -- Set when the bot leaves the event (unavailable, deleted): it forfeits what is left.
    withdrawn_at  timestamptz,
    CONSTRAINT tournament_entries_pkey PRIMARY KEY (tournament_id, bot_id)
);
CREATE INDEX tournament_entries_by_bot ON tournament_entries (bot_id, tournament_id);

CREATE TABLE rounds (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tournament_id bigint NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    number        integer NOT NULL,
    status        text NOT NULL DEFAULT 'pending',
    created_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz,
    CONSTRAINT rounds_number_positive CHECK (number >= 1),
    CONSTRAINT rounds_status_check CHECK (status IN ('pending', 'running', 'done')),
    CONSTRAINT rounds_number_unique UNIQUE (tournament_id, number)
);

CREATE TABLE matches (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- A casual challenge has neither; a tournament match has both.
    tournament_id   bigint REFERENCES tournaments (id),
    round_id        bigint REFERENCES rounds (id),
    bracket         text NOT NULL DEFAULT 'main',
    board           integer NOT NULL DEFAULT 0,
    mode            text NOT NULL,
    status          text NOT NULL DEFAULT 'pending',
    seed            bigint NOT NULL,
    rated           boolean NOT NULL DEFAULT true,
    games_per_match integer NOT NULL DEFAULT 1,
    rules           jsonb NOT NULL DEFAULT '{}'::jsonb,
    -- Side (0 or 1) of match_entrants that won; NULL while unfinished, or a draw.
    winner_side     smallint,
    attempts        integer NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL DEFAULT now(),
    queued_at       timestamptz,
    started_at      timestamptz,
    finished_at     timestamptz,
    CONSTRAINT matches_status_check
        CHECK (status IN ('pending', 'queued', 'running', 'done', 'forfeit', 'error')),
    CONSTRAINT matches_mode_check CHECK (mode IN ('1v1', '2v2')),
    CONSTRAINT matches_bracket_check CHECK (bracket IN ('main', 'winners', 'losers', 'final')),
    CONSTRAINT matches_games_positive CHECK (games_per_match >= 1),
    CONSTRAINT matches_attempts_nonnegative CHECK (attempts >= 0),
    CONSTRAINT matches_rules_object CHECK (jsonb_typeof(rules) = 'object'),
    CONSTRAINT matches_winner_side_check CHECK (winner_side IN (0, 1)),
    CONSTRAINT matches_winner_only_when_over
        CHECK (winner_side IS NULL OR status IN ('done', 'forfeit')),
    CONSTRAINT matches_round_needs_tournament CHECK ((tournament_id IS NULL) = (round_id IS NULL))
);
CREATE INDEX matches_by_round ON matches (round_id, board) WHERE round_id IS NOT NULL;
CREATE INDEX matches_by_tournament ON matches (tournament_id, id) WHERE tournament_id IS NOT NULL;
CREATE INDEX matches_open ON matches (status, id) WHERE status IN ('pending', 'queued', 'running');
CREATE INDEX matches_recent ON matches (id DESC) WHERE status IN ('done', 'forfeit');

-- Who plays in a match: one row per bot, with its side (0 or 1) and seat order.
CREATE TABLE match_entrants (
    match_id bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    slot     smallint NOT NULL,
    bot_id   bigint NOT NULL REFERENCES bots (id),
    side     smallint NOT NULL,
    CONSTRAINT match_entrants_pkey PRIMARY KEY (match_id, slot),
    CONSTRAINT match_entrants_slot_check CHECK (slot BETWEEN 0 AND 3),
    CONSTRAINT match_entrants_side_check CHECK (side IN (0, 1)),
    CONSTRAINT match_entrants_bot_once UNIQUE (match_id, bot_id)
);
-- A bot's match history, newest first.
CREATE INDEX match_entrants_by_bot ON match_entrants (bot_id, match_id DESC);

-- The result of a match, stored exactly once: a match task that runs twice finds the row there
-- (INSERT ... ON CONFLICT ON CONSTRAINT match_results_one_per_match DO NOTHING) and leaves
-- ratings alone. The row, the match's status and the Elo update share one transaction.
CREATE TABLE match_results (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    match_id    bigint NOT NULL REFERENCES matches (id),
    winner_side smallint,
    -- Per game score and winner, fault counts, forfeit reason: what GET /v1/matches/{id} shows.
    result      jsonb NOT NULL,
    task_id     text,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT match_results_one_per_match UNIQUE (match_id),
    CONSTRAINT match_results_winner_side_check CHECK (winner_side IN (0, 1)),
    CONSTRAINT match_results_result_object CHECK (jsonb_typeof(result) = 'object')
);

-- The whole replay document (seed, rules, every deal and event), compressed by the
-- application; fetched by primary key in one query.
CREATE TABLE replays (
    match_id    bigint PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    compression text NOT NULL DEFAULT 'zlib',
    data        bytea NOT NULL,
    size_bytes  integer NOT NULL,
    stored_size integer GENERATED ALWAYS AS (octet_length(data)) STORED,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT replays_compression_check CHECK (compression IN ('zlib', 'none')),
    CONSTRAINT replays_size_nonnegative CHECK (size_bytes >= 0)
);
-- The data is compressed already: keep PostgreSQL from trying again.
ALTER TABLE replays ALTER COLUMN data SET STORAGE EXTERNAL;

-- Current rating per bot and mode; leaderboards read this table only.
CREATE TABLE ratings (
    bot_id     bigint NOT NULL REFERENCES bots (id),
    mode       text NOT NULL,
    rating     double precision NOT NULL DEFAULT 1500,
    matches    integer NOT NULL DEFAULT 0,
    wins       integer NOT NULL DEFAULT 0,
    losses     integer NOT NULL DEFAULT 0,
    draws      integer NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT ratings_pkey PRIMARY KEY (bot_id, mode),
    CONSTRAINT ratings_mode_check CHECK (mode IN ('1v1', '2v2')),
    CONSTRAINT ratings_counts_nonnegative CHECK (matches >= 0 AND wins >= 0 AND losses >= 0 AND draws >= 0),
    CONSTRAINT ratings_counts_add_up CHECK (wins + losses + draws = matches)
);
CREATE INDEX ratings_leaderboard ON ratings (mode, rating DESC, bot_id);

-- Every rating change, once per bot, mode and match (the unique key makes a second Elo update
-- for the same match an error).
CREATE TABLE rating_history (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    bot_id        bigint NOT NULL,
    mode          text NOT NULL,
    match_id      bigint NOT NULL REFERENCES matches (id),
    rating_before double precision NOT NULL,
    rating_after  double precision NOT NULL,
    at            timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT rating_history_rating FOREIGN KEY (bot_id, mode) REFERENCES ratings (bot_id, mode),
    CONSTRAINT rating_history_once_per_match UNIQUE (bot_id, mode, match_id)
);
CREATE INDEX rating_history_by_bot ON rating_history (bot_id, mode, at DESC);
CREATE INDEX rating_history_by_match ON rating_history (match_id);
