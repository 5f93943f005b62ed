-- 0004: how a match's games are dealt (arena/deals.py).
--
-- * matches.deals: 'independent' (every game from its own seed; the default from now on) or
--   'mirrored' (each pair of games deals the same cards with the seats swapped; only between
--   bots of one owner). Matches stored before this migration were played as mirrored pairs
--   and are labelled so; those not yet played (pending, queued) will be dealt independently.
-- * tournaments.settings.deals: what the tournament's matches get. Finished and cancelled
--   tournaments were mirrored; the others deal their remaining matches independently (a
--   settings document without the key reads as 'independent').

ALTER TABLE matches ADD COLUMN deals text NOT NULL DEFAULT 'mirrored';
ALTER TABLE matches ALTER COLUMN deals SET DEFAULT 'independent';
ALTER TABLE matches ADD CONSTRAINT matches_deals_check CHECK (deals IN ('independent', 'mirrored'));
UPDATE matches SET deals = 'independent' WHERE status IN ('pending', 'queued');

UPDATE tournaments SET settings = settings || '{"deals": "mirrored"}'::jsonb
    WHERE status IN ('finished', 'cancelled');
UPDATE tournaments SET settings = settings || '{"deals": "independent"}'::jsonb
    WHERE status IN ('registering', 'running');
