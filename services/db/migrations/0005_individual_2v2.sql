-- 0005: individual 2v2 (issue 11, point 5).
--
-- * tournaments.partnership / matches.partnership: how a 2v2 side is filled.
--   'team': one bot fills both seats of its side (what 2v2 meant before: that bot may combine
--   what both seats see); 'individual': every seat is its own bot, each entered alone, and the
--   event forms partnerships each round. 1v1 is always 'team' (one bot a side).
-- * An individual 2v2 match has four match_entrants rows: slot 0..3 is the seat in the first
--   game and side = slot % 2 (slots 0 and 2 are partners). Team and 1v1 matches keep slot = side.
-- * Ratings of individual 2v2 are their own pool, '2v2-individual': a bot that plays one seat
--   is not rated against bots that play both.

ALTER TABLE tournaments ADD COLUMN partnership text NOT NULL DEFAULT 'team';
ALTER TABLE tournaments ADD CONSTRAINT tournaments_partnership_check
    CHECK (partnership IN ('team', 'individual'));
ALTER TABLE tournaments ADD CONSTRAINT tournaments_individual_is_2v2
    CHECK (partnership = 'team' OR mode = '2v2');

ALTER TABLE matches ADD COLUMN partnership text NOT NULL DEFAULT 'team';
ALTER TABLE matches ADD CONSTRAINT matches_partnership_check
    CHECK (partnership IN ('team', 'individual'));
ALTER TABLE matches ADD CONSTRAINT matches_individual_is_2v2
    CHECK (partnership = 'team' OR mode = '2v2');

ALTER TABLE match_entrants ADD CONSTRAINT match_entrants_side_is_slot_parity
    CHECK (side = slot % 2);

ALTER TABLE ratings DROP CONSTRAINT ratings_mode_check;
ALTER TABLE ratings ADD CONSTRAINT ratings_mode_check
    CHECK (mode IN ('1v1', '2v2', '2v2-individual'));
