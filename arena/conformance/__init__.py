"""``truco check``: the conformance check of a bot and the positions it explores."""
