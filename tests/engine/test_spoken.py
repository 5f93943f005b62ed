"""Every action word but ``play`` has a phrase and a name, and nothing else has one."""

from __future__ import annotations

from engine.actions import WORDS
from engine.spoken import NAMED, SAID, named, said


def test_every_call_is_said_and_named() -> None:
    calls = set(WORDS) - {"play"}
    assert set(SAID) == calls
    assert set(NAMED) == calls
    assert said("retruco") == "¡Quiero retruco!" and named("retruco") == "Retruco"
    assert said("play") == "play" and named("unknown") == "unknown"
    for word in calls:  # a name is a label: no punctuation around it
        assert NAMED[word][0].isupper() and NAMED[word][-1].isalpha(), word
