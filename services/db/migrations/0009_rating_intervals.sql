-- 0009: ratings that say how sure they are (issue 15, part 2).
--
-- The trusted worker fits Bradley-Terry over every rated match of a pool (services/domain/rating_fit.py)
-- off the request path, at most once per beat period and only when the pool changed, and
-- stores the result here; the leaderboard reads it with one join on the primary key.
--
-- * rating_fits: one row per pool. fitted_at and what the fit saw: the sum of the pool's
--   ratings.matches and its number of deleted bots (a new fit runs only when they differ now),
--   the number of games and bots, how long it took. lease_until: a worker fitting the pool
--   holds it until then (two workers never fit one pool at once; a crashed fit's lease lapses).
-- * rating_intervals: per bot and pool, the fit's rating (Elo scale, anchored so the fitted
--   bots' mean is their Elo mean), its 95% interval, and the likelihood of superiority over
--   next_bot_id, the bot right below it on the leaderboard when the fit ran (NULL for the
--   last one). The API shows los_next only while next_bot_id is still the entry below.

CREATE TABLE rating_fits (
    mode         text PRIMARY KEY,
    fitted_at    timestamptz,
    rated_seen   bigint NOT NULL DEFAULT 0,
    deleted_seen integer NOT NULL DEFAULT 0,
    games        integer NOT NULL DEFAULT 0,
    bots         integer NOT NULL DEFAULT 0,
    duration_ms  integer NOT NULL DEFAULT 0,
    lease_until  timestamptz,
    CONSTRAINT rating_fits_mode_check CHECK (mode IN ('1v1', '2v2', '2v2-individual')),
    CONSTRAINT rating_fits_counts_nonnegative
        CHECK (rated_seen >= 0 AND deleted_seen >= 0 AND games >= 0 AND bots >= 0
               AND duration_ms >= 0)
);

CREATE TABLE rating_intervals (
    bot_id      bigint NOT NULL,
    mode        text NOT NULL,
    rating      double precision NOT NULL,
    low         double precision NOT NULL,
    high        double precision NOT NULL,
    next_bot_id bigint REFERENCES bots (id),
    los_next    double precision,
    fitted_at   timestamptz NOT NULL,
    CONSTRAINT rating_intervals_pkey PRIMARY KEY (bot_id, mode),
    CONSTRAINT rating_intervals_rating FOREIGN KEY (bot_id, mode) REFERENCES ratings (bot_id, mode),
    CONSTRAINT rating_intervals_ordered CHECK (low <= rating AND rating <= high),
    CONSTRAINT rating_intervals_los_range CHECK (los_next IS NULL OR los_next BETWEEN 0 AND 1),
    CONSTRAINT rating_intervals_los_has_next CHECK (los_next IS NULL OR next_bot_id IS NOT NULL)
);
