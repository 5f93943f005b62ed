-- 0008: match seeds nobody chose (services/domain/seeds.py, docs/verify.md).
--
-- * tournaments.master_seed: 32 secret bytes drawn at creation; the API publishes their
--   commitment (SHA-256) at once and the bytes themselves once the tournament is finished or
--   cancelled. Every match seed of the event is derived from it (HMAC-SHA256 of the match's
--   place in the event).
-- * matches.master_seed: a challenge's own master seed, the same way (tournament matches use
--   their tournament's and leave this NULL).
-- * matches.seed_scheme: 'derived-v1' for a seed derived as above, 'legacy' for a seed drawn
--   at random before this migration. Every existing match is 'legacy': it keeps the seed it was
--   (or will be) played with, and exports say it cannot be verified. The default stays
--   'legacy', so a row that does not say how its seed was made never claims to be verifiable.
-- * Tournaments still registering get their master seed now (they have no match yet): SHA-256
--   over three version-4 UUIDs, i.e. 366 bits from PostgreSQL's strong random source. Running,
--   finished and cancelled tournaments have none; a running one deals its remaining matches
--   from random seeds, marked 'legacy'.

ALTER TABLE tournaments ADD COLUMN master_seed bytea;
ALTER TABLE tournaments ADD CONSTRAINT tournaments_master_seed_length
    CHECK (master_seed IS NULL OR octet_length(master_seed) = 32);

ALTER TABLE matches ADD COLUMN master_seed bytea;
ALTER TABLE matches ADD CONSTRAINT matches_master_seed_length
    CHECK (master_seed IS NULL OR octet_length(master_seed) = 32);
ALTER TABLE matches ADD CONSTRAINT matches_master_seed_only_challenges
    CHECK (master_seed IS NULL OR tournament_id IS NULL);

ALTER TABLE matches ADD COLUMN seed_scheme text NOT NULL DEFAULT 'legacy';
ALTER TABLE matches ADD CONSTRAINT matches_seed_scheme_check
    CHECK (seed_scheme IN ('legacy', 'derived-v1'));
ALTER TABLE matches ADD CONSTRAINT matches_derived_seed_has_master
    CHECK (seed_scheme = 'legacy' OR tournament_id IS NOT NULL OR master_seed IS NOT NULL);

UPDATE tournaments
SET master_seed = sha256(decode(replace(
        gen_random_uuid()::text || gen_random_uuid()::text || gen_random_uuid()::text,
        '-', ''), 'hex'))
WHERE status = 'registering';
