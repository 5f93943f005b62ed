"""A match: the runner, the judge of an answer, the replay document and its verifier."""
