-- 0056: the ladder pools' ratings on luck-adjusted outcomes (docs/luck.md, "Ratings and the
-- ladder"), stored beside the public fit on actual results. The trusted worker's fit of a
-- ladder pool (1v1, 2v2-individual) also estimates every bot from its one-game matches'
-- results minus their luck (services/domain/adjusted_fit.py); the ladder's matchmaker and
-- its placement read these when present. NULL: not fitted on adjusted outcomes (another
-- pool, or a fit from before this migration).

ALTER TABLE rating_intervals
    ADD COLUMN adjusted_rating double precision,
    ADD COLUMN adjusted_low double precision,
    ADD COLUMN adjusted_high double precision,
    ADD CONSTRAINT rating_intervals_adjusted_ordered CHECK (
        (adjusted_rating IS NULL AND adjusted_low IS NULL AND adjusted_high IS NULL)
        OR (adjusted_low <= adjusted_rating AND adjusted_rating <= adjusted_high)
    );
