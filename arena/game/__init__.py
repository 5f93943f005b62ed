"""The game boundary (:mod:`arena.game.boundary`) and the games behind it: Truco, its deals and words."""
