-- 0066: one annulment (docs/moderation.md "Annulled ladder matches"). 0034 (the ladder's
-- collusion flags) and 0065 (moderation) each made a table of ladder matches annulled by a
-- moderator, with different rules (0034: out of the fit only; 0065: out of Elo and the fit).
-- One concept, one table, one rule: `annulled_matches` is kept (every annulment has its line
-- in the audit log), and it says which collusion flag, if any, an annulment decided.
-- `ladder_annulments` is dropped once its rows are moved. A moved match still has its rating
-- changes (0034 kept them): the trusted worker takes them out of Elo and recomputes the pool
-- before its next fit (services.flow.rating_refit.settle_moved).

ALTER TABLE annulled_matches ADD COLUMN flag_id bigint REFERENCES ladder_flags (id);

-- A flag dismissed is an admin's action too: it goes to the audit log.
ALTER TABLE moderation_log DROP CONSTRAINT moderation_log_action_check;
ALTER TABLE moderation_log ADD CONSTRAINT moderation_log_action_check CHECK (action IN (
    'grant_admin', 'revoke_admin', 'disqualify_bot', 'suspend_account', 'reinstate_account',
    'rename_bot', 'hide_bot_name', 'rename_account', 'hide_account_name', 'resolve_report',
    'annul_pair', 'dismiss_flag'));

-- Move 0034's rows: an annulment made before the audit log knew flags gets its line now
-- (annul_pair on the flagged bot, by the admin who decided the flag, or by this migration),
-- dated when it was made; one line per flag, and one per match annulled without a flag.
CREATE TEMPORARY TABLE moved_annulments ON COMMIT DROP AS
SELECT a.match_id, a.flag_id, a.annulled_at,
       coalesce(f.bot_id, (SELECT e.bot_id FROM match_entrants e WHERE e.match_id = a.match_id
                           ORDER BY e.slot LIMIT 1)) AS bot_id,
       f.decided_by, f.note, f.decided_at
FROM ladder_annulments a
LEFT JOIN ladder_flags f ON f.id = a.flag_id
WHERE NOT EXISTS (SELECT 1 FROM annulled_matches m WHERE m.match_id = a.match_id);

CREATE TEMPORARY TABLE moved_lines (
    flag_id  bigint,
    match_id bigint,
    log_id   bigint NOT NULL
) ON COMMIT DROP;

WITH groups AS (
    SELECT flag_id, CASE WHEN flag_id IS NULL THEN match_id END AS match_id,
           min(bot_id) AS bot_id, min(decided_by) AS decided_by, min(note) AS note,
           coalesce(min(decided_at), min(annulled_at)) AS at,
           jsonb_agg(match_id ORDER BY match_id) AS matches
    FROM moved_annulments
    GROUP BY flag_id, CASE WHEN flag_id IS NULL THEN match_id END
),
written AS (
    INSERT INTO moderation_log (at, actor_id, actor, action, target_kind, target_id, reason,
                                detail)
    SELECT g.at, g.decided_by,
           left(coalesce(acc.name, 'server:migration-0066'), 200),
           'annul_pair', 'bot', g.bot_id,
           left(coalesce(nullif(g.note, ''), 'ladder results annulled on a collusion flag'), 1000),
           jsonb_build_object('flag_id', g.flag_id, 'annulled_ladder_matches', g.matches,
                              'moved_by', '0066')
    FROM groups g LEFT JOIN accounts acc ON acc.id = g.decided_by
    RETURNING id, target_id, detail
)
INSERT INTO moved_lines (flag_id, match_id, log_id)
SELECT (w.detail->>'flag_id')::bigint,
       CASE WHEN w.detail->>'flag_id' IS NULL
            THEN (w.detail->'annulled_ladder_matches'->>0)::bigint END,
       w.id
FROM written w;

INSERT INTO annulled_matches (match_id, annulled_at, log_id, flag_id)
SELECT m.match_id, m.annulled_at, l.log_id, m.flag_id
FROM moved_annulments m
JOIN moved_lines l ON (l.flag_id = m.flag_id)
                   OR (l.flag_id IS NULL AND m.flag_id IS NULL AND l.match_id = m.match_id);

DROP TABLE ladder_annulments;

CREATE INDEX annulled_matches_by_flag ON annulled_matches (flag_id) WHERE flag_id IS NOT NULL;
