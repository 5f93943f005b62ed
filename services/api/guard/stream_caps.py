"""Caps on open live streams, per API process: so many per client address, so many in all.

A stream holds a :class:`Slot` from the moment it is accepted until it closes (the client
went away, the match or tournament ended, the server stops); past either cap a new stream is
refused (the API answers 429). Pure bookkeeping on plain data: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Slot:
    """One open stream; :meth:`release` is idempotent (a stream may close by two paths)."""

    caps: StreamCaps
    address: str
    released: bool = False

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        self.caps._drop(self.address)


@dataclass(slots=True)
class StreamCaps:
    per_address: int
    total: int
    open: int = 0
    by_address: dict[str, int] = field(default_factory=dict)

    def acquire(self, address: str) -> Slot | None:
        """A slot for a new stream from ``address``, or None past a cap."""
        held = self.by_address.get(address, 0)
        if self.open >= self.total or held >= self.per_address:
            return None
        self.open += 1
        self.by_address[address] = held + 1
        return Slot(self, address)

    def _drop(self, address: str) -> None:
        self.open -= 1
        left = self.by_address.get(address, 0) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)
