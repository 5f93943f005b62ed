-- 0027: matches a person plays against a bot at /play (issue 23, docs/play.md).
--
-- Kept apart from `matches` on purpose: nothing here is ever read by the ratings, the ladders or
-- the tournaments, so a match against a person never changes a bot's rating in the bot pools;
-- the bot page shows its record against people from this table. The replay is the runner's,
-- zlib-compressed JSON as in `replays`, stored once the match is over. `token_hash` is SHA-256
-- of the session's token (the token itself is shown once); `address_key` a keyed digest of
-- the client address, to count the sessions an address starts in an hour (no address stored).
CREATE TABLE play_matches (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    bot_id       bigint NOT NULL REFERENCES bots (id),
    account_id   bigint REFERENCES accounts (id),
    person_side  smallint NOT NULL,
    rules        jsonb NOT NULL,
    games        integer NOT NULL,
    seed         bigint NOT NULL,
    token_hash   bytea NOT NULL,
    address_key  bytea NOT NULL,
    status       text NOT NULL DEFAULT 'playing',
    winner_side  smallint,
    result       jsonb,
    replay       bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz,
    CONSTRAINT play_matches_person_side CHECK (person_side IN (0, 1)),
    CONSTRAINT play_matches_status CHECK (status IN ('playing', 'finished', 'abandoned')),
    CONSTRAINT play_matches_winner_side CHECK (winner_side IN (0, 1)),
    CONSTRAINT play_matches_games CHECK (games BETWEEN 1 AND 100)
);
CREATE INDEX play_matches_bot ON play_matches (bot_id, finished_at);
CREATE INDEX play_matches_address ON play_matches (address_key, created_at);
