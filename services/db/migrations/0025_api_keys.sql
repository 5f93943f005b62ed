-- 0025: API keys as objects (issue 21): an account may hold several keys, rotate one and
-- revoke one; a revoked key stops working at once.
--
-- Only a key's SHA-256 is stored (as before), with its last four characters to tell keys
-- apart in a list. The account's key of accounts.api_key_hash moves here; the column stays
-- (nullable) as the way to give a new account its first key in the INSERT itself: the
-- trigger below moves a hash given there into api_keys and clears the column, so a key is
-- only ever looked up in api_keys.
CREATE TABLE api_keys (
    id          bigserial PRIMARY KEY,
    account_id  bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    key_hash    bytea NOT NULL,
    hint        text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz,
    CONSTRAINT api_keys_hash_length CHECK (octet_length(key_hash) = 32),
    CONSTRAINT api_keys_hash_unique UNIQUE (key_hash),
    CONSTRAINT api_keys_hint_length CHECK (char_length(hint) <= 8)
);
CREATE INDEX api_keys_live_of_account ON api_keys (account_id) WHERE revoked_at IS NULL;

INSERT INTO api_keys (account_id, key_hash, created_at)
    SELECT id, api_key_hash, created_at FROM accounts WHERE api_key_hash IS NOT NULL;

ALTER TABLE accounts ALTER COLUMN api_key_hash DROP NOT NULL;
UPDATE accounts SET api_key_hash = NULL;

CREATE FUNCTION accounts_first_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.api_key_hash IS NOT NULL THEN
        INSERT INTO api_keys (account_id, key_hash) VALUES (NEW.id, NEW.api_key_hash);
        UPDATE accounts SET api_key_hash = NULL WHERE id = NEW.id;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER accounts_first_key AFTER INSERT ON accounts
    FOR EACH ROW EXECUTE FUNCTION accounts_first_key();
