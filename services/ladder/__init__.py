"""The ladders' pure logic: the matchmaker (``matchmaker``), its words (``model``)."""
