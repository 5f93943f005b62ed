-- 0033: a paused ladder bot's resume waits a cooldown that grows (issue 33, item 1: a bot that
-- walked over the matches it feared was paused and resumed 8 times without a wait). Kept per
-- bot and ladder in ladder_tallies, so leaving and joining again does not start the count
-- over: `pauses`, the pauses in a row each within a week of the one before; `last_paused_at`,
-- the latest (services/ladder/cooldown.py).
ALTER TABLE ladder_tallies ADD COLUMN pauses integer NOT NULL DEFAULT 0;
ALTER TABLE ladder_tallies ADD COLUMN last_paused_at timestamptz;
ALTER TABLE ladder_tallies ADD CONSTRAINT ladder_tallies_pauses_nonnegative CHECK (pauses >= 0);
