-- 0023: which attempt at a match was the one stored (issue 21).
--
-- A match begun more than once (a killed worker, the sweeper sending it again) is dealt afresh
-- at every beginning (arena/game/deals.py); the replay records its attempt, and this column keeps
-- the stored one's for the export and the API without decoding replays. NULL: not played (a
-- bye, a withdrawal, a cancelled or open match); rows stored before are attempt 0.
ALTER TABLE matches ADD COLUMN played_attempt integer;
UPDATE matches SET played_attempt = 0
    WHERE id IN (SELECT match_id FROM replays);
ALTER TABLE matches ADD CONSTRAINT matches_played_attempt_nonnegative
    CHECK (played_attempt >= 0);
