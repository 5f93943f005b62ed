"""A time given on the command line: an ISO 8601 instant (``2026-12-24T18:00:00Z``; without a
zone, this machine's local time) or a delay from now (``+30m``, ``+2h``, ``+90s``, ``+1d``),
as the UTC instant the API takes (``start_at``)."""

from __future__ import annotations

import argparse
import re
from datetime import UTC, datetime, timedelta

_DELAY = re.compile(r"\+(\d{1,6})([smhd])")
_UNIT = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}


def instant(text: str, now: datetime | None = None) -> datetime:
    """``text`` as an aware UTC datetime; an ``argparse.ArgumentTypeError`` saying what is
    accepted otherwise."""
    value = text.strip()
    delay = _DELAY.fullmatch(value)
    if delay is not None:
        base = now if now is not None else datetime.now(UTC)
        return base + timedelta(**{_UNIT[delay[2]]: int(delay[1])})
    try:
        found = datetime.fromisoformat(value.replace("z", "Z"))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a time: give an ISO 8601 instant (2026-12-24T18:00:00Z; "
            "without a zone, this machine's local time) or a delay from now (+30m, +2h, +1d)"
        ) from None
    if found.tzinfo is None:
        found = found.astimezone()  # this machine's local time
    return found.astimezone(UTC)
