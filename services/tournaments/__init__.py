"""Tournament formats as pure logic: Swiss pairing, standings, brackets, round robin, TRF export.

Every function here works on plain immutable data and performs no I/O; persistence and
scheduling live elsewhere (like Lichess's swiss module).
"""
