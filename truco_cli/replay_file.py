"""Where `truco play` writes its replay: never over an existing file unless told to.

Without ``--out`` the replay goes to ``match-SEED.replay.json`` or, when that exists, the first
free ``match-SEED-N.replay.json`` (N = 2, 3, ...), and the command says so. An explicit
``--out FILE`` that exists is refused before the match is played, unless ``--force``.
"""

from __future__ import annotations

import os
from pathlib import Path


class ReplayFileExists(Exception):
    """``--out`` names an existing file and ``--force`` was not given."""


def default_path(seed: int) -> Path:
    return Path(f"match-{seed}.replay.json")


def free_path(path: Path) -> Path:
    """``path`` if nothing is there, else the first free ``STEM-N.SUFFIXES`` beside it."""
    if not path.exists():
        return path
    stem, dot, suffixes = path.name.partition(".")
    n = 2
    while (candidate := path.with_name(f"{stem}-{n}{dot}{suffixes}")).exists():
        n += 1
    return candidate


def choose(out: Path | None, seed: int, *, force: bool) -> Path:
    """The replay's path; raises ReplayFileExists for an existing ``out`` without ``force``."""
    if out is None:
        return free_path(default_path(seed))
    if out.exists() and not force:
        raise ReplayFileExists(f"{out} exists; pass --force to replace it, or another --out")
    return out


def write(path: Path, data: bytes, *, replace: bool) -> Path:
    """Write ``data`` to ``path`` and return where it went. Without ``replace`` only as a new
    file (O_EXCL): if ``path`` appeared while the match was played, the next free name."""
    while True:
        flags = os.O_WRONLY | os.O_CREAT | (os.O_TRUNC if replace else os.O_EXCL)
        try:
            fd = os.open(path, flags, 0o644)
        except FileExistsError:
            path = free_path(path)
            continue
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        return path
