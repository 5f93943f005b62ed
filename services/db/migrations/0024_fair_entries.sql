-- 0024: fair entries of other owners' bots (issue 21, break 8): a bot's own minimum timeout.
--
-- An event that holds bots of other owners plays under settings those bots accept: another
-- owner's bot may not be entered into (nor start in) an event whose timeout_ms is below the
-- bot's min_timeout_ms. NULL: the bot states none (the platform's floor for rated play holds).
ALTER TABLE bots ADD COLUMN min_timeout_ms integer;
ALTER TABLE bots ADD CONSTRAINT bots_min_timeout_ms_range
    CHECK (min_timeout_ms BETWEEN 10 AND 60000);

-- Who entered a bot: closing a bot withdraws it from others' registering events only where
-- someone else than its owner entered it. NULL: entered before 0024 (not known).
ALTER TABLE tournament_entries ADD COLUMN entered_by bigint REFERENCES accounts (id);
