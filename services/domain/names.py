"""Names people choose (accounts, bots, tournaments): what is refused, and when two are the same.

**Refused**: every character that does not show as itself (:mod:`arena.wire.visible_text`, the
table a bot's ``say`` is cleaned with too): Unicode control, format and line-separator
characters (general categories ``Cc``, ``Cf``, ``Cs``, ``Zl``, ``Zp``: ESC, CR, LF, TAB, NUL,
the bidirectional overrides and isolates, zero-width spaces and joiners, soft hyphens...),
every default-ignorable code point (U+034F, the variation selectors, U+17B4, the Hangul
fillers U+115F, U+1160, U+3164, U+FFA0...), U+2800 BRAILLE PATTERN BLANK, U+1D159 MUSICAL
SYMBOL NULL NOTEHEAD; and private-use
and unassigned code points (``Co``, ``Cn``), which render as whatever a font makes of them.
They make a name display as another one, or as something else, or break logs.

**The same name** (:func:`name_key`): two names with the same key cannot both be taken.
The key is the name without its default-ignorable characters and blanks (so a name
stored before they were refused keys as the visible name it renders as), under NFKC
normalisation (``ﬁ`` is ``fi``, ``𝔘`` is ``U``, fullwidth
letters are ASCII), with every character replaced by the representative of its class of
confusable characters, then casefolded and folded again: Cyrillic ``а`` is Latin ``a``,
Greek ``Ο``, Latin ``O`` and ``0`` are one letter, and so are ``I``, ``l`` and ``1``; runs
of spaces count as one space. A key is for comparing only, never shown.

The confusables come from the ``confusable_homoglyphs`` package (its ``confusables.json``,
built from Unicode's ``confusables.txt``, the UTS #39 data; packaged by Debian and Ubuntu).
Its pairs are joined into classes, one representative each: a lowercase ASCII letter if
the class has one, else an ASCII digit, else any ASCII character, else the lowest code
point. Mappings to several characters (``rn`` for ``m``) are not used: a key maps
character to character.
"""

from __future__ import annotations

import functools
import json
import string
import unicodedata
from importlib import resources

from arena.wire.visible_text import is_hidden, label, without_invisible

UNRENDERED_CATEGORIES = frozenset({"Co", "Cn"})
"""Private use and unassigned (in this Python's Unicode): no agreed glyph."""
_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")


def refused_characters(name: str) -> list[str]:
    """The characters of ``name`` a name may not contain, as ``U+XXXX NAME`` strings."""
    return [
        label(char)
        for char in dict.fromkeys(name)
        if is_hidden(char) or unicodedata.category(char) in UNRENDERED_CATEGORIES
    ]


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a name, or None."""
    refused = refused_characters(name)
    if not refused:
        return None
    listed = ", ".join(refused[:5]) + (", ..." if len(refused) > 5 else "")
    return f"names cannot contain control, format or invisible characters ({listed})"


def _rank(char: str) -> tuple[int, int]:
    if char in string.ascii_lowercase:
        return (0, ord(char))
    if char in string.digits:
        return (1, ord(char))
    if char.isascii():
        return (2, ord(char))
    return (3, ord(char))


@functools.cache
def confusable_map() -> dict[str, str]:
    """Character -> the representative of its confusable class (classes of one are left out)."""
    raw = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    table: dict[str, list[dict[str, str]]] = json.loads(raw)
    parent: dict[str, str] = {}

    def find(char: str) -> str:
        root = char
        while parent.get(root, root) != root:
            root = parent[root]
        while parent.get(char, char) != root:  # path compression
            parent[char], char = root, parent[char]
        return root

    for char, homoglyphs in table.items():
        for entry in homoglyphs:
            other = entry["c"].translate(_DIRECTION_MARKS)
            if len(char) == 1 and len(other) == 1 and char != other:
                a, b = find(char), find(other)
                if a != b:
                    parent[a] = b
    classes: dict[str, list[str]] = {}
    for char in parent:
        classes.setdefault(find(char), []).append(char)
    mapping: dict[str, str] = {}
    for root, members in classes.items():
        members.append(root) if root not in members else None
        best = min(members, key=_rank)
        mapping.update({member: best for member in members if member != best})
    return mapping


def _fold(text: str) -> str:
    """NFKC, then every character to its confusable class's representative, with what is
    invisible taken out before and after each step (NFKC maps U+FFA0 to U+3164, for one)."""
    table = confusable_map()
    text = without_invisible(unicodedata.normalize("NFKC", without_invisible(text)))
    return without_invisible("".join(table.get(char, char) for char in text))


def name_key(name: str) -> str:
    """The key under which names are unique (see the module's description)."""
    text = _fold(_fold(name).casefold())
    return " ".join(text.split())
