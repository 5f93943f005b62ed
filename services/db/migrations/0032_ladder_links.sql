-- 0032: linked accounts (issue 33, item 2). An account keeps a keyed digest (HMAC-SHA256 under
-- the platform's secret key) of the address it was made from: the IPv4 address, or the /64 of an
-- IPv6 one. Never the address itself. Two accounts made from one such address within
-- TRUCO_LADDER_LINK_WINDOW_S of each other are linked, and the ladder never pairs their bots.
-- Accounts made before this migration have none and are linked to nobody.
ALTER TABLE accounts ADD COLUMN created_from bytea;
CREATE INDEX accounts_created_from ON accounts (created_from, created_at)
    WHERE created_from IS NOT NULL;
