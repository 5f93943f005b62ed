-- 0007: rotating a bot's signing secret with a grace period (POST /v1/bots/{id}/secret).
--
-- A rotation moves the current secret to previous_secret_enc (encrypted like the current one,
-- AES-256-GCM bound to the bot id, under the key named by previous_key_id) with an expiry:
-- until previous_secret_until the platform signs every request with both secrets, so the bot
-- may switch to the new one at any time in that window. There is one previous secret: a second
-- rotation replaces it. An expired previous secret is never used and is dropped at the next
-- rotation.

ALTER TABLE bots ADD COLUMN previous_secret_enc bytea;
ALTER TABLE bots ADD COLUMN previous_key_id text;
ALTER TABLE bots ADD COLUMN previous_secret_until timestamptz;
ALTER TABLE bots ADD COLUMN secret_rotated_at timestamptz;

ALTER TABLE bots ADD CONSTRAINT bots_previous_secret_complete
    CHECK ((previous_secret_enc IS NULL) = (previous_secret_until IS NULL)
           AND (previous_secret_enc IS NULL) = (previous_key_id IS NULL));
