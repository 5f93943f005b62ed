-- 0034: collusion on the ladders (issue 33, item 2). The detector (services/ladder/collusion.py)
-- flags a bot whose results against one opponent or one owner's bots lie far outside its others;
-- a flag keeps its evidence for an admin, who annuls the pair's ladder results or dismisses it.
-- An annulled match keeps its result and replay (its day still verifies), but leaves the pool's
-- fit, which ranks the ladder, and its bots' counts.
CREATE TABLE ladder_flags (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pool          text NOT NULL,
    bot_id        bigint NOT NULL REFERENCES bots (id),
    against_kind  text NOT NULL,
    against_id    bigint NOT NULL,
    evidence      jsonb NOT NULL,
    status        text NOT NULL DEFAULT 'open',
    flagged_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    decided_at    timestamptz,
    decided_by    bigint REFERENCES accounts (id),
    note          text,
    CONSTRAINT ladder_flags_pool_check CHECK (pool IN ('1v1', '2v2-individual')),
    CONSTRAINT ladder_flags_kind_check CHECK (against_kind IN ('bot', 'owner')),
    CONSTRAINT ladder_flags_status_check CHECK (status IN ('open', 'annulled', 'dismissed')),
    CONSTRAINT ladder_flags_decided CHECK ((status = 'open') = (decided_at IS NULL)),
    CONSTRAINT ladder_flags_evidence_object CHECK (jsonb_typeof(evidence) = 'object')
);
CREATE UNIQUE INDEX ladder_flags_one_open ON ladder_flags (pool, bot_id, against_kind, against_id)
    WHERE status = 'open';
CREATE INDEX ladder_flags_by_status ON ladder_flags (status, pool, flagged_at DESC);

CREATE TABLE ladder_annulments (
    match_id     bigint PRIMARY KEY REFERENCES matches (id),
    flag_id      bigint REFERENCES ladder_flags (id),
    annulled_at  timestamptz NOT NULL DEFAULT now()
);

-- The fit refits a pool whose annulments changed, as it does one whose results changed.
ALTER TABLE rating_fits ADD COLUMN annulled_seen integer NOT NULL DEFAULT 0;
