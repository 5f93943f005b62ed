"""Fillers (issue 33, 11): U+16FE4 KHITAN SMALL SCRIPT FILLER, a nonspacing mark meant to render
as nothing and not default-ignorable, was accepted in names and a bot's ``say``. Every code
point Unicode names a filler is now hidden (arena/wire/visible_text.py ``FILLERS``); the list is
checked here against Python's ``unicodedata`` and the newest Unicode data (``unicodedata2``), and
property tests insert fillers and default-ignorable code points into names and ``say``."""

from __future__ import annotations

import functools
import sys
import unicodedata

import regex
import unicodedata2
from hypothesis import given
from hypothesis import strategies as st

from arena.wire.visible_text import FILLERS, clean_say, is_hidden, is_invisible
from services.domain.names import name_key, name_problem


def _fillers(names: object) -> set[str]:
    name = names.name  # type: ignore[attr-defined]
    return {chr(c) for c in range(sys.maxunicode + 1) if "FILLER" in name(chr(c), "")}


def test_the_fillers_are_every_filler_of_current_unicode() -> None:
    known = _fillers(unicodedata) | _fillers(unicodedata2)
    assert set(FILLERS) == known, sorted(f"U+{ord(c):04X}" for c in known ^ set(FILLERS))
    assert "\U00016fe4" in known  # KHITAN SMALL SCRIPT FILLER
    # the newest data is newer than this Python's, and the check used it
    assert unicodedata2.unidata_version >= unicodedata.unidata_version


def test_khitan_small_script_filler_is_refused_in_names_and_dropped_from_say() -> None:
    problem = name_problem("house\U00016fe4")
    assert problem is not None and "U+16FE4 KHITAN SMALL SCRIPT FILLER" in problem
    assert name_key("house\U00016fe4") == name_key("house")
    assert clean_say("gg\U00016fe4") == "gg"


_DEFAULT_IGNORABLE = regex.compile(r"\p{Default_Ignorable_Code_Point}", regex.V1)


@functools.cache
def hidden_code_points() -> list[str]:
    """The fillers and every default-ignorable code point: a scan of all of Unicode, made when a
    test first draws (at import it ran in every xdist worker while collecting)."""
    return sorted(
        set(FILLERS)
        | {c for c in map(chr, range(sys.maxunicode + 1)) if _DEFAULT_IGNORABLE.match(c)}
    )


HIDDEN = st.deferred(lambda: st.sampled_from(hidden_code_points()))
NAMES = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=20
)


@given(NAMES, HIDDEN, st.integers(min_value=0, max_value=20))
def test_a_filler_or_default_ignorable_anywhere_is_refused_and_keys_as_without_it(
    name: str, hidden: str, at: int
) -> None:
    spelled = name[:at] + hidden + name[at:]
    assert is_invisible(hidden) and is_hidden(hidden)
    assert name_problem(spelled) is not None
    assert name_key(spelled) == name_key(name)


@given(st.text(max_size=30), HIDDEN, st.integers(min_value=0, max_value=30))
def test_a_say_keeps_no_filler_or_default_ignorable(text: str, hidden: str, at: int) -> None:
    cleaned = clean_say(text[:at] + hidden + text[at:])
    assert cleaned is not None and hidden not in cleaned
    assert not any(is_hidden(c) for c in cleaned)
