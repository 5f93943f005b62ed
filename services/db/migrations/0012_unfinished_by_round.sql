-- 0012: whether a round still has a match to finish, without reading the round (issue 14).
--
-- Every stored result of a Swiss or round-robin event asks whether it completed its round
-- (services.flow.advance). Reading every match of the event to answer made recording a round
-- of n matches cost n^2 rows; this index holds only the unfinished matches of each round, so
-- the question is one index probe and the whole event is read only when the round is done.
CREATE INDEX matches_unfinished_by_round ON matches (round_id)
    WHERE round_id IS NOT NULL AND status NOT IN ('done', 'forfeit');
