"""The ladders' pure logic: the matchmaker (``matchmaker``) and its words (``model``), a pool's
table as the matchmaker sees it (``table``: who may be given a match now) and a ladder match's
verdict on a bot's health (``health``). The workflow around them is ``services.flow.ladder``."""
