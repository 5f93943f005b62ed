-- 0027: a match keeps the time limits it is played under (issue 34).
--
-- Like its rules, games and deals, a match now holds its per-call timeout, its time bank and
-- its fault limit, so the order sent to a worker and the sweeper's thresholds come from the
-- match's own row, not from its tournament's settings (one read of the tournament between
-- POST /start and the queued matches). A tournament's matches take their event's; challenges,
-- SPRT pairs and ladder matches the defaults (services/domain/tournament_settings.py, whose
-- defaults these are: a test compares them).
ALTER TABLE matches
    ADD COLUMN timeout_ms integer NOT NULL DEFAULT 1000,
    ADD COLUMN time_bank_ms integer NOT NULL DEFAULT 30000,
    ADD COLUMN fault_limit integer NOT NULL DEFAULT 5;
UPDATE matches m SET
    timeout_ms = coalesce((t.settings ->> 'timeout_ms')::integer, 1000),
    time_bank_ms = coalesce((t.settings ->> 'time_bank_ms')::integer, 30000),
    fault_limit = coalesce((t.settings ->> 'fault_limit')::integer, 5)
FROM tournaments t
WHERE t.id = m.tournament_id;
ALTER TABLE matches ADD CONSTRAINT matches_time_limits CHECK (
    timeout_ms BETWEEN 10 AND 60000
    AND time_bank_ms BETWEEN 10 AND 3600000
    AND fault_limit BETWEEN 1 AND 1000
);
