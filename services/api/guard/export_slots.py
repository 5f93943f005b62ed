"""Export slots bounded by time as well as by rate (issue 33, 7).

16 readers from 8 addresses reading 1.1 KB/s (above the write floor, so never cut) held every
export slot: another address got 503s for 136 s, and at that rate would have for 100 minutes
(gzip) to 19 hours (plain); ``truco verify`` downloads the same export, so verification was
blocked too.

A download counts against two caps of its API process:

* its **address's** (``TRUCO_EXPORTS_PER_ADDRESS``, 2): for as long as it lasts, so one address
  never downloads more than that at once (a 429 past it);
* the **process's** (``TRUCO_EXPORTS_TOTAL``, 16): only while it is making its export (reading
  the database, encoding) and for its first ``TRUCO_EXPORT_SLOT_S`` (30) seconds of sending. A
  download still going after that goes on in overtime, a file copied at its reader's pace under
  the write floor (``services.api.serve``), and its place in the total is given to the next (a
  503 only while 16 downloads are in their first seconds).

So slow readers can hold their own address's places, never everyone's. Bookkeeping on plain
data; the timer is armed by :meth:`ExportSlot.start_sending` on the running event loop.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field


@dataclass(slots=True)
class ExportSlot:
    """One download's places; :meth:`release` is idempotent (a response ends by two paths)."""

    slots: ExportSlots
    address: str
    counted: bool = True
    """Still in the process's total (not yet in overtime)."""
    released: bool = False
    _timer: asyncio.TimerHandle | None = None

    def start_sending(self) -> None:
        """The first byte goes out: the process's place is held :attr:`ExportSlots.slot_s`
        more at most."""
        if self._timer is None and self.counted and not self.released:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.slots.slot_s, self.overtime)

    def overtime(self) -> None:
        """Leave the process's total; the address's place stays until :meth:`release`."""
        if self.counted and not self.released:
            self.counted = False
            self.slots.in_slots -= 1
            self.slots.overtimes += 1

    def release(self) -> None:
        if self.released:
            return
        if self._timer is not None:
            self._timer.cancel()
        if self.counted:
            self.slots.in_slots -= 1
        self.released = True
        self.slots._leave(self.address)


@dataclass(slots=True)
class ExportSlots:
    per_address: int
    total: int
    slot_s: float
    in_slots: int = 0
    """Downloads counted in the total (making, or in their first :attr:`slot_s` of sending)."""
    by_address: dict[str, int] = field(default_factory=dict)
    overtimes: int = 0
    """Downloads that went into overtime since the process started."""

    def address_full(self, address: str) -> bool:
        return self.by_address.get(address, 0) >= self.per_address

    def acquire(self, address: str) -> ExportSlot | None:
        """Places for a new download from ``address``, or None past a cap."""
        if self.address_full(address) or self.in_slots >= self.total:
            return None
        self.in_slots += 1
        self.by_address[address] = self.by_address.get(address, 0) + 1
        return ExportSlot(self, address)

    def _leave(self, address: str) -> None:
        left = self.by_address.get(address, 0) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)
