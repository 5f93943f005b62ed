-- 0031: a ladder table's LOS (issue 32, item 3). The fit stored each bot's LOS over the next
-- entry of the Elo leaderboard, which may be a bot off the ladder; a ladder's table is in the
-- fit's own order, and its LOS is over the next bot of that table: stored beside the other,
-- computed in the same fit (services/domain/rating_fit.py `ladder`).
ALTER TABLE rating_intervals ADD COLUMN ladder_next_bot_id bigint;
ALTER TABLE rating_intervals ADD COLUMN ladder_los double precision;
ALTER TABLE rating_intervals ADD CONSTRAINT rating_intervals_ladder_los_range
    CHECK (ladder_los IS NULL OR (ladder_los >= 0 AND ladder_los <= 1));

-- The rated games the fit saw of each bot: a placement estimate extrapolates from the interval
-- at the fit and the games played since (services/ladder/placement.py).
ALTER TABLE rating_intervals ADD COLUMN games integer;
