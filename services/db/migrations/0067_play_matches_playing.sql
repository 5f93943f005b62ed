-- 0067: the /play sweeper finds play matches left `playing` with no session behind them (an
-- API process that died between storing the row and making its session in Redis: no worker
-- ever hears of it, nothing else would end it). Only the few rows still playing are indexed.

CREATE INDEX play_matches_playing ON play_matches (created_at) WHERE status = 'playing';
