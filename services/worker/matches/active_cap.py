"""How many matches one bot-calling process lets play at once: a cap that follows the loop's lag.

Pure arithmetic on plain numbers (no clock, no threads): :class:`ActiveCap` is fed one sample at a
time (how late the process's event loop ran a timer, how many matches play, how many wait) and
answers with the cap. It is additive-increase, multiplicative-decrease (AIMD), as TCP's
congestion window:

- **grow** while the loop is on time (at most ``target_ms`` late) and the cap is what holds
  matches back (some wait, and as many play as the cap allows): by a small share of the cap,
  at least one match, per sample;
- **cut** when the loop runs more than ``cut_ms`` late: to ``keep_share`` of the matches playing
  (never below ``floor``). A match in flight is never stopped, so a cut takes effect only as
  matches end; until the matches playing are down to the cap, the lag is the cut's own echo and
  no second cut follows (once per drain, as TCP cuts once per round trip);
- between the two thresholds, hold.

A match that plays at all plays at its bots' pace: the cap keeps the loop's lag (the platform's
delay, which a bot's measured time would include) near ``target_ms``, far under any per-call
deadline, and the matches beyond the cap wait before they start.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class CapSettings:
    start: int = 16
    """The cap before the first sample."""
    floor: int = 4
    """A cut never goes below this: matches always make progress, however busy the machine."""
    ceiling: int = 100_000
    target_ms: float = 20.0
    """Grow only while the loop runs at most this late."""
    cut_ms: float = 40.0
    """Cut when the loop runs later than this."""
    grow_share: float = 0.02
    """A growing cap adds this share of itself (at least one match) per sample."""
    keep_share: float = 0.75
    """A cut keeps this share of the matches playing."""
    window: int = 3
    """The cap moves on the last this many samples: a cut when all were late, growth when all
    were on time. One late sample alone (a garbage collection, another process taking the core
    for a moment) is a pause, not a load the cap could lower."""

    def __post_init__(self) -> None:
        if not 1 <= self.floor <= self.start <= self.ceiling:
            raise ValueError("the cap needs 1 <= floor <= start <= ceiling")
        if not 0.0 <= self.target_ms < self.cut_ms:
            raise ValueError("the cap needs 0 <= target_ms < cut_ms")
        if not (0.0 < self.keep_share < 1.0 and self.grow_share >= 0.0):
            raise ValueError("the cap needs 0 < keep_share < 1 and grow_share >= 0")
        if self.window < 1:
            raise ValueError("the cap needs a window of at least one sample")


@dataclass(slots=True)
class ActiveCap:
    """The cap on matches playing at once in one process (see the module docstring)."""

    settings: CapSettings = CapSettings()
    cap: float = 0.0
    draining: bool = False
    """A cut was made and the matches playing are still above it."""
    cuts: int = 0
    peak: int = 0
    recent: list[float] = field(default_factory=list)
    """The last ``settings.window`` samples, oldest first."""

    def __post_init__(self) -> None:
        if self.cap <= 0.0:
            self.cap = float(self.settings.start)
        self.peak = max(self.peak, self.limit)

    @property
    def limit(self) -> int:
        """How many matches may play at once now."""
        return int(self.cap)

    def update(self, late_ms: float, playing: int, waiting: int) -> int:
        """One sample: the loop ran ``late_ms`` late; ``playing`` matches play, ``waiting``
        wait to start. The cap after it."""
        s = self.settings
        self.recent.append(late_ms)
        del self.recent[: -s.window]
        if self.draining and playing <= self.limit:
            self.draining = False
        if len(self.recent) < s.window:
            return self.limit
        if min(self.recent) > s.cut_ms:
            if not self.draining:
                self.cap = max(float(s.floor), min(self.cap, float(playing)) * s.keep_share)
                self.draining = playing > self.limit
                self.cuts += 1
        elif max(self.recent) <= s.target_ms and waiting > 0 and playing >= self.limit:
            self.cap = min(float(s.ceiling), self.cap + max(1.0, self.cap * s.grow_share))
            self.peak = max(self.peak, self.limit)
        return self.limit
