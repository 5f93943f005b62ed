"""Names people choose (accounts, bots, tournaments): what is refused, and when two are the same.

**Refused**: Unicode control, format and separator characters (general categories ``Cc``,
``Cf``, ``Cs``, ``Zl``, ``Zp``): ESC, CR, LF, TAB, NUL, the bidirectional overrides and
isolates (U+202A-U+202E, U+2066-U+2069), zero-width spaces and joiners (U+200B-U+200D,
U+2060, U+FEFF), soft hyphens... They make a name display as something else, or break logs.

**The same name** (:func:`name_key`): two names with the same key cannot both be taken.
The key is the name under NFKC normalisation (``ﬁ`` is ``fi``, ``𝔘`` is ``U``, fullwidth
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

REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
_DIRECTION_MARKS = str.maketrans("", "", "\u200e\u200f")


def refused_characters(name: str) -> list[str]:
    """The characters of ``name`` a name may not contain, as ``U+XXXX NAME`` strings."""
    found = []
    for char in dict.fromkeys(name):
        if unicodedata.category(char) in REFUSED_CATEGORIES:
            label = unicodedata.name(char, "")
            found.append(f"U+{ord(char):04X}" + (f" {label}" if label else ""))
    return found


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a name, or None."""
    refused = refused_characters(name)
    if not refused:
        return None
    listed = ", ".join(refused[:5]) + (", ..." if len(refused) > 5 else "")
    return f"names cannot contain control or format characters ({listed})"


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
    table = confusable_map()
    return "".join(table.get(char, char) for char in text)


def name_key(name: str) -> str:
    """The key under which names are unique (see the module's description)."""
    text = _fold(unicodedata.normalize("NFKC", name))
    text = _fold(unicodedata.normalize("NFKC", text.casefold()))
    return " ".join(text.split())
