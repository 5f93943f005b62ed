-- 0055: SPRT tests on luck-adjusted pair scores (docs/sprt.md, docs/luck.md).
--
-- `statistic` says which test decides: 'adjusted' (new tests by default: the normal test on
-- each pair's luck-adjusted score) or 'raw' (the trinomial test on games won; every test
-- created before this migration). `adjusted` holds each stored pair's adjusted score per game
-- for bot A, in the order of `scores` (the two arrays grow together in the transaction that
-- stores the pair); tests from before it have none.

ALTER TABLE sprt_tests ADD COLUMN statistic text NOT NULL DEFAULT 'raw';
ALTER TABLE sprt_tests ADD CONSTRAINT sprt_tests_statistic_check
    CHECK (statistic IN ('raw', 'adjusted'));
ALTER TABLE sprt_tests ADD COLUMN adjusted double precision[] NOT NULL DEFAULT '{}';
