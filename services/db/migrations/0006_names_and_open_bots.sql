-- 0006: names unique under confusable folding; bots open to others' tournaments; bots closed
-- to challenges from others.
--
-- name_key is services/domain/names.py's name_key(name): NFKC, confusable classes (Unicode's
-- confusables.txt through the confusable_homoglyphs package), casefold. It cannot be computed
-- in SQL, so the rows that exist now get theirs from services/db/name_keys.py, which
-- migrate() runs after the migrations (a row whose key collides with an older row's keeps a
-- NULL key and is logged; NULL keys never conflict). New and renamed rows always carry one.
-- The lower(name) indexes of 0001 stay: names are still unique ignoring case.

ALTER TABLE accounts ADD COLUMN name_key text;
CREATE UNIQUE INDEX accounts_name_key_unique ON accounts (name_key);

ALTER TABLE bots ADD COLUMN name_key text;
CREATE UNIQUE INDEX bots_name_key_unique ON bots (name_key) WHERE status <> 'deleted';

-- open: anyone may enter the bot into their tournaments (the house bots are open).
-- challenges: 'open' (anyone may challenge it) or 'owner_only' (only its owner's bots may).
ALTER TABLE bots ADD COLUMN open boolean NOT NULL DEFAULT false;
ALTER TABLE bots ADD COLUMN challenges text NOT NULL DEFAULT 'open';
ALTER TABLE bots ADD CONSTRAINT bots_challenges_check CHECK (challenges IN ('open', 'owner_only'));

-- Open challenges (pending, queued or running matches outside tournaments) are counted per
-- challenger and per challenged bot on every new challenge.
CREATE INDEX matches_open_challenges ON matches (id)
    WHERE tournament_id IS NULL AND status IN ('pending', 'queued', 'running');
