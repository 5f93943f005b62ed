"""Text people read on the platform (names, a bot's ``say``): which characters do not show as
themselves.

Three kinds, one table each:

* **Controls, formats and line breaks** (general categories ``Cc``, ``Cf``, ``Cs``, ``Zl``,
  ``Zp``): NUL, ESC, CR, LF, TAB, the bidirectional overrides and isolates (U+202A-U+202E,
  U+2066-U+2069), which reorder the rest of a line, zero-width spaces and joiners...
* **Default-ignorable code points** (Unicode's ``Default_Ignorable_Code_Point`` property, as
  the ``regex`` module knows it): characters a renderer shows as nothing when it has no special
  use for them, such as U+034F COMBINING GRAPHEME JOINER, the variation selectors (U+FE0F), the
  Khmer inherent vowels (U+17B4), the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0), the
  tag characters, and the code points reserved to be default-ignorable.
* **Blanks**: U+2800 BRAILLE PATTERN BLANK and U+1D159 MUSICAL SYMBOL NULL NOTEHEAD, symbols
  that render as an empty space (they are not default-ignorable, so they are named here; the
  Hangul fillers, often listed with them, are in the property already).
* **Fillers**: every code point Unicode names a ``FILLER`` (:data:`FILLERS`): the Hangul
  fillers, U+16FE4 KHITAN SMALL SCRIPT FILLER (a nonspacing mark meant to render as nothing,
  and not default-ignorable: issue 33 found it accepted in names and ``say``), and the gap and
  line fillers of scripts (punctuation that stands for an empty place). The list is checked
  against Python's ``unicodedata`` and against the newest Unicode data (``unicodedata2``) by
  ``tests/arena/wire/test_fillers.py``, so a filler a new Unicode version adds fails the test
  until it is listed.

:func:`hidden_characters` lists them (names refuse them: services/domain/names.py);
:func:`clean_say` takes them out of a bot's ``say`` (docs/protocol.md).
"""

from __future__ import annotations

import unicodedata
from typing import Final

import regex

BLANKS: Final = "\u2800\U0001d159\u115f\u1160\u3164\uffa0"
"""Characters that render blank although they are letters or symbols (the Hangul ones are
default-ignorable too; listed for the reader)."""

FILLERS: Final = (
    "\u115f\u1160\u3164\ua8f9\uffa0\U00010af6\U0001144e\U00011945\U00011c44\U00011c45"
    "\U00011f48\U00016fe4"
)
"""Every code point whose Unicode name holds ``FILLER`` (Unicode 18.0)."""

CONTROL_CATEGORIES: Final = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})

_INVISIBLE = regex.compile(r"[\p{Default_Ignorable_Code_Point}" + BLANKS + FILLERS + "]", regex.V1)


def is_invisible(char: str) -> bool:
    """Default-ignorable, a blank that renders as nothing, or a filler (one character)."""
    return _INVISIBLE.match(char) is not None


def is_hidden(char: str) -> bool:
    """A control, format or line-break character, or an invisible one (one character)."""
    return unicodedata.category(char) in CONTROL_CATEGORIES or is_invisible(char)


def label(char: str) -> str:
    """``U+XXXX NAME`` (the name when Unicode has one)."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


def hidden_characters(text: str) -> list[str]:
    """The hidden characters of ``text`` (each once, in order), labelled ``U+XXXX NAME``."""
    return [label(char) for char in dict.fromkeys(text) if is_hidden(char)]


def without_invisible(text: str) -> str:
    """``text`` with its default-ignorable characters, blanks and fillers taken out."""
    return _INVISIBLE.sub("", text)


def clean_say(say: str | None) -> str | None:
    """A bot's ``say`` as the replay keeps it: line breaks and other controls become a space,
    format and invisible characters (bidi overrides, zero-width joiners, variation selectors)
    are taken out. None stays None."""
    if say is None:
        return None
    kept = []
    for char in say:
        category = unicodedata.category(char)
        if category in ("Cc", "Zl", "Zp"):
            kept.append(" ")
        elif category not in CONTROL_CATEGORIES and not is_invisible(char):
            kept.append(char)
    return "".join(kept)
