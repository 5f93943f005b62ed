-- 0030: a ladder's per-bot counts kept as matches happen (issue 33, item 4), so that neither the
-- ladder's table nor the matchmaker's tick recounts every ladder match a bot ever played: at
-- 1,011 ladder matches the table read took 250 ms (212,825 buffer hits for 31 rows) and the
-- tick 0.43 s median.
--
-- One row per bot and ladder, kept when the bot leaves the ladder (its count and rating stay):
-- `rated` counts its rated ladder matches (the `matches` the table shows and placement counts),
-- `last_started` its latest ladder match's creation, `last_paced` its latest one not chosen to
-- place a bot (the hourly pace: services/flow/ladder.py `ladder_bot`), `first_about` its placement
-- estimate at its 10th rated match, which the estimate shown stays near (services/ladder/placement.py).
CREATE TABLE ladder_tallies (
    pool          text NOT NULL,
    bot_id        bigint NOT NULL REFERENCES bots (id),
    rated         integer NOT NULL DEFAULT 0,
    last_started  timestamptz,
    last_paced    timestamptz,
    first_about   integer,
    CONSTRAINT ladder_tallies_pkey PRIMARY KEY (pool, bot_id),
    CONSTRAINT ladder_tallies_pool_check CHECK (pool IN ('1v1', '2v2-individual')),
    CONSTRAINT ladder_tallies_rated_nonnegative CHECK (rated >= 0)
);

INSERT INTO ladder_tallies (pool, bot_id, rated, last_started, last_paced)
SELECT m.ladder_pool, e.bot_id,
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM rating_history h
                                      WHERE h.match_id = m.id AND h.bot_id = e.bot_id)),
       max(m.created_at),
       max(m.created_at) FILTER (WHERE m.ladder_reason IS DISTINCT FROM 'placing')
FROM matches m JOIN match_entrants e ON e.match_id = m.id
WHERE m.ladder_pool IS NOT NULL
GROUP BY m.ladder_pool, e.bot_id;

-- The last hour's ladder matches of a pool (each bot's hourly cap), found without reading the
-- pool's older history.
CREATE INDEX matches_ladder_recent ON matches (ladder_pool, created_at)
    WHERE ladder_pool IS NOT NULL;
