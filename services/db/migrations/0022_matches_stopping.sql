-- 0022: a match decided while a worker may still be playing it (issue 21).
--
-- Cancelling a tournament or an SPRT test, or withdrawing a bot, decides its open matches at
-- once; a match that was already sent (queued or running) may still be played by a
-- bot-calling worker until that worker sees the stop (services/worker/stops.py). Until then
-- stopping_since holds when it was decided, and nothing that derives its cards (its seed, its
-- master seed, its tournament's master seed) is shown. The worker's acknowledgement
-- (truco.match_stopped), a late result, or the recovery sweeper once no worker can still be
-- playing it (the match's hard time limit) set it back to NULL.
ALTER TABLE matches ADD COLUMN stopping_since timestamptz;
CREATE INDEX matches_stopping ON matches (tournament_id) WHERE stopping_since IS NOT NULL;
