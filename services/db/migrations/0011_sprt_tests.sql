-- 0011: SPRT head-to-head tests on the platform (POST /v1/tests, docs/sprt.md).
--
-- A test plays unrated matches of two games (a pair, seats swapped) between bot_a and bot_b;
-- each stored pair's score (games bot_a won: 0, 1 or 2) is appended to `scores` in the order
-- the results were stored, in the transaction that stores the match (services/flow/sprt.py).
-- The counts, the LLR and the Elo estimate are computed from `scores` (arena/sprt.py).
-- `started` counts the pairs created so far (at most max_games / 2).

CREATE TABLE sprt_tests (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    owner_id    bigint NOT NULL REFERENCES accounts (id),
    bot_a       bigint NOT NULL REFERENCES bots (id),
    bot_b       bigint NOT NULL REFERENCES bots (id),
    mode        text NOT NULL,
    rules       jsonb NOT NULL,
    deals       text NOT NULL DEFAULT 'independent',
    elo0        double precision NOT NULL,
    elo1        double precision NOT NULL,
    alpha       double precision NOT NULL,
    beta        double precision NOT NULL,
    max_games   integer NOT NULL,
    concurrency integer NOT NULL,
    status      text NOT NULL DEFAULT 'running',
    result      text,
    scores      smallint[] NOT NULL DEFAULT '{}',
    started     integer NOT NULL DEFAULT 0,
    error       text,
    created_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    CONSTRAINT sprt_tests_status_check
        CHECK (status IN ('running', 'finished', 'cancelled', 'failed')),
    CONSTRAINT sprt_tests_result_check CHECK (result IN ('H0', 'H1', 'inconclusive')),
    CONSTRAINT sprt_tests_mode_check CHECK (mode IN ('1v1', '2v2')),
    CONSTRAINT sprt_tests_deals_check CHECK (deals IN ('independent', 'mirrored')),
    CONSTRAINT sprt_tests_elo_order CHECK (elo0 < elo1),
    CONSTRAINT sprt_tests_max_games CHECK (max_games >= 2),
    CONSTRAINT sprt_tests_concurrency CHECK (concurrency >= 1)
);

-- Running tests are counted per owner and per opponent bot for quotas.
CREATE INDEX sprt_tests_running_owner ON sprt_tests (owner_id) WHERE status = 'running';
CREATE INDEX sprt_tests_running_bot_b ON sprt_tests (bot_b) WHERE status = 'running';
CREATE INDEX sprt_tests_bot_a ON sprt_tests (bot_a);

-- The pair matches of a test (NULL: any other match). They are not challenges: the
-- challenge quotas leave them out.
ALTER TABLE matches ADD COLUMN sprt_test_id bigint REFERENCES sprt_tests (id);
CREATE INDEX matches_sprt_test ON matches (sprt_test_id) WHERE sprt_test_id IS NOT NULL;
