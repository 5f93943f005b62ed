-- 0065: moderation (issue 37, docs/moderation.md): admins, the audit log of their actions
-- (append-only, enforced here), users' reports, and what admins change: a bot disqualified,
-- an account suspended, a name set by an admin, ladder results annulled.

-- Admins. Granted only by `truco admin grant` on a machine with the database's credentials:
-- no API operation writes this table.
CREATE TABLE admins (
    account_id bigint PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
    granted_at timestamptz NOT NULL DEFAULT now()
);

-- Every admin action: who (the admin's account, or NULL for the server's command line, with
-- a name either way), what, on what, why and when, and what it did (detail).
CREATE TABLE moderation_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    actor_id    bigint,
    actor       text NOT NULL,
    action      text NOT NULL,
    target_kind text NOT NULL,
    target_id   bigint NOT NULL,
    reason      text NOT NULL,
    detail      jsonb NOT NULL DEFAULT '{}'::jsonb,
    CONSTRAINT moderation_log_action_check CHECK (action IN (
        'grant_admin', 'revoke_admin', 'disqualify_bot', 'suspend_account', 'reinstate_account',
        'rename_bot', 'hide_bot_name', 'rename_account', 'hide_account_name', 'resolve_report',
        'annul_pair')),
    CONSTRAINT moderation_log_target_check CHECK (target_kind IN ('bot', 'account', 'report')),
    CONSTRAINT moderation_log_actor_length CHECK (char_length(actor) BETWEEN 1 AND 200),
    CONSTRAINT moderation_log_reason_length CHECK (char_length(reason) BETWEEN 1 AND 1000),
    CONSTRAINT moderation_log_detail_object CHECK (jsonb_typeof(detail) = 'object')
);
CREATE INDEX moderation_log_by_target ON moderation_log (target_kind, target_id, id);

-- Append-only: a row once written is never changed or removed, whoever asks (the
-- application's own role included). Only a superuser who turns triggers off gets past this.
CREATE FUNCTION moderation_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'moderation_log is append-only: % refused', TG_OP
        USING ERRCODE = 'prohibited_sql_statement_attempted',
              HINT = 'an admin action is corrected by another action, never by editing the log';
END;
$$;
CREATE TRIGGER moderation_log_no_update_or_delete BEFORE UPDATE OR DELETE ON moderation_log
    FOR EACH ROW EXECUTE FUNCTION moderation_log_append_only();
CREATE TRIGGER moderation_log_no_truncate BEFORE TRUNCATE ON moderation_log
    FOR EACH STATEMENT EXECUTE FUNCTION moderation_log_append_only();

-- Users' reports of a bot or a name. The reporter's address is kept as the rate limits count
-- it (an IPv6 /64) for the admins' eyes only; one open report per target and address.
CREATE TABLE reports (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    created_at       timestamptz NOT NULL DEFAULT now(),
    target_kind      text NOT NULL,
    target_id        bigint NOT NULL,
    category         text NOT NULL,
    text             text NOT NULL DEFAULT '',
    reporter_id      bigint REFERENCES accounts (id) ON DELETE SET NULL,
    reporter_address text NOT NULL,
    status           text NOT NULL DEFAULT 'open',
    resolved_at      timestamptz,
    resolved_by      bigint,
    CONSTRAINT reports_target_check CHECK (target_kind IN ('bot', 'account')),
    CONSTRAINT reports_category_check CHECK (category IN ('cheating', 'name', 'abuse', 'other')),
    CONSTRAINT reports_text_length CHECK (char_length(text) <= 1000),
    CONSTRAINT reports_address_length CHECK (char_length(reporter_address) BETWEEN 1 AND 64),
    CONSTRAINT reports_status_check CHECK (status IN ('open', 'actioned', 'dismissed')),
    CONSTRAINT reports_resolved CHECK ((status = 'open') = (resolved_at IS NULL))
);
CREATE INDEX reports_open ON reports (id) WHERE status = 'open';
CREATE UNIQUE INDEX reports_one_open_per_address
    ON reports (target_kind, target_id, reporter_address) WHERE status = 'open';

-- What admins change on bots and accounts.
ALTER TABLE bots ADD COLUMN disqualified_at timestamptz;
ALTER TABLE bots ADD COLUMN name_locked boolean NOT NULL DEFAULT false;
ALTER TABLE bots ADD CONSTRAINT bots_disqualified_is_deleted
    CHECK (disqualified_at IS NULL OR status = 'deleted');
ALTER TABLE accounts ADD COLUMN suspended_at timestamptz;
ALTER TABLE accounts ADD COLUMN name_locked boolean NOT NULL DEFAULT false;

-- Ladder matches whose results count for nobody (a disqualified bot's, a colluding pair's):
-- their rating changes are gone and the pool was refitted without them; the match, its
-- result and its replay stay (an export shows it annulled; `truco verify` expects no change).
CREATE TABLE annulled_matches (
    match_id   bigint PRIMARY KEY REFERENCES matches (id),
    annulled_at timestamptz NOT NULL DEFAULT now(),
    log_id     bigint NOT NULL REFERENCES moderation_log (id)
);
