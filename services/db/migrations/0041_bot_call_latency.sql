-- 0041: each bot's call latency in each match it played (issue 33, 3). A rated event that holds
-- another owner's bot plays at least at the timeout that bot has shown it needs
-- (services/flow/fair_play.py): the highest 95th percentile of its calls over its recent
-- matches, read from here (the result document keeps no latency; the replays are compressed).
-- Written with the result, in its transaction, from the replay's latency by entrant; matches
-- played before this migration are not measured.
CREATE TABLE bot_call_latency (
    bot_id   bigint NOT NULL REFERENCES bots (id),
    match_id bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    calls    integer NOT NULL,
    p95_ms   real NOT NULL,
    max_ms   real NOT NULL,
    CONSTRAINT bot_call_latency_pkey PRIMARY KEY (bot_id, match_id),
    CONSTRAINT bot_call_latency_calls_positive CHECK (calls > 0)
);
