-- 0020: the ladders (issue 25): one per rating pool (1v1, individual 2v2). A bot's owner enters
-- it; the matchmaker (services.ladder, run by beat under a lease) starts rated matches between
-- bots of different owners, chosen for what they teach about the ranking.

-- A bot on a ladder: its owner's hourly cap, and a pause with its cause (walkovers or
-- forfeits in a row pause it; its owner resumes it).
CREATE TABLE ladder_entries (
    pool              text NOT NULL,
    bot_id            bigint NOT NULL REFERENCES bots (id),
    joined_at         timestamptz NOT NULL DEFAULT now(),
    hourly_cap        integer NOT NULL,
    paused_at         timestamptz,
    pause_cause       text,
    failures_in_a_row integer NOT NULL DEFAULT 0,
    CONSTRAINT ladder_entries_pkey PRIMARY KEY (pool, bot_id),
    CONSTRAINT ladder_entries_pool_check CHECK (pool IN ('1v1', '2v2-individual')),
    CONSTRAINT ladder_entries_cap_positive CHECK (hourly_cap >= 1),
    CONSTRAINT ladder_entries_failures_nonnegative CHECK (failures_in_a_row >= 0),
    CONSTRAINT ladder_entries_cause_when_paused CHECK ((paused_at IS NULL) = (pause_cause IS NULL))
);
CREATE INDEX ladder_entries_bot ON ladder_entries (bot_id);

-- A ladder day (UTC): its master seed, committed when the day's first match is made and
-- revealed once the day is over and none of its matches is still playing.
CREATE TABLE ladder_days (
    pool        text NOT NULL,
    day         date NOT NULL,
    master_seed bytea NOT NULL,
    commitment  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revealed_at timestamptz,
    matches     integer NOT NULL DEFAULT 0,
    CONSTRAINT ladder_days_pkey PRIMARY KEY (pool, day),
    CONSTRAINT ladder_days_pool_check CHECK (pool IN ('1v1', '2v2-individual')),
    CONSTRAINT ladder_days_master_seed_length CHECK (octet_length(master_seed) = 32),
    CONSTRAINT ladder_days_matches_nonnegative CHECK (matches >= 0)
);

-- A ladder match: its pool, its day and its number in the day (its identity for the seed),
-- and why the matchmaker chose it.
ALTER TABLE matches ADD COLUMN ladder_pool text;
ALTER TABLE matches ADD COLUMN ladder_day date;
ALTER TABLE matches ADD COLUMN ladder_number integer;
ALTER TABLE matches ADD COLUMN ladder_reason text;
ALTER TABLE matches ADD COLUMN ladder_detail text;
ALTER TABLE matches ADD CONSTRAINT matches_ladder_fields
    CHECK ((ladder_pool IS NULL) = (ladder_day IS NULL)
           AND (ladder_pool IS NULL) = (ladder_number IS NULL)
           AND (ladder_pool IS NULL OR tournament_id IS NULL));
ALTER TABLE matches ADD CONSTRAINT matches_ladder_day
    FOREIGN KEY (ladder_pool, ladder_day) REFERENCES ladder_days (pool, day);
CREATE UNIQUE INDEX matches_ladder_identity ON matches (ladder_pool, ladder_day, ladder_number)
    WHERE ladder_pool IS NOT NULL;
CREATE INDEX matches_ladder_open ON matches (ladder_pool)
    WHERE ladder_pool IS NOT NULL AND status IN ('pending', 'queued', 'running');

-- A ladder match's seed derives from its day's master seed (kept in ladder_days, revealed
-- with the day), not from a master seed of its own.
ALTER TABLE matches DROP CONSTRAINT matches_derived_seed_has_master;
ALTER TABLE matches ADD CONSTRAINT matches_derived_seed_has_master
    CHECK (seed_scheme = 'legacy' OR tournament_id IS NOT NULL OR master_seed IS NOT NULL
           OR ladder_pool IS NOT NULL);
