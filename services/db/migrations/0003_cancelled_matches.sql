-- 0003: a match of a cancelled tournament is 'cancelled' (POST /v1/tournaments/{id}/cancel).
--
-- Its pending, queued and running matches stop there: nothing queues them again, and a result
-- that a worker sends later is not stored (services/flow.py, record_result).

ALTER TABLE matches DROP CONSTRAINT matches_status_check;
ALTER TABLE matches ADD CONSTRAINT matches_status_check
    CHECK (status IN ('pending', 'queued', 'running', 'done', 'forfeit', 'error', 'cancelled'));
