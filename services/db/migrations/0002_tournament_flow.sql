-- 0002: what the tournament workflow (services/flow.py) needs on matches.
--
-- * bracket_match: the pure bracket's match id (W1-2, L3-1, 3P, GF, GF2) of an elimination
--   match, so the bracket is rebuilt from the rows; NULL for Swiss, round robin and challenges.
--   One row per bracket match and tournament.
-- * bye: a Swiss pairing bye is a match row with one entrant (side 0), status 'done', won by
--   that side and never rated. Standings count it as a win without games or tantos.

ALTER TABLE matches ADD COLUMN bracket_match text;
ALTER TABLE matches ADD COLUMN bye boolean NOT NULL DEFAULT false;

ALTER TABLE matches ADD CONSTRAINT matches_bracket_match_length
    CHECK (bracket_match IS NULL OR char_length(bracket_match) BETWEEN 1 AND 16);
ALTER TABLE matches ADD CONSTRAINT matches_bracket_match_in_tournament
    CHECK (bracket_match IS NULL OR tournament_id IS NOT NULL);
ALTER TABLE matches ADD CONSTRAINT matches_bye_is_a_won_unrated_match
    CHECK (NOT bye OR (status = 'done' AND winner_side = 0 AND NOT rated AND tournament_id IS NOT NULL));

CREATE UNIQUE INDEX matches_bracket_match_unique ON matches (tournament_id, bracket_match)
    WHERE bracket_match IS NOT NULL;
