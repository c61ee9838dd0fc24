"""Where time comes from: the real clocks, or a simulation's compressed ones."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """A monotonic clock for durations and a wall clock for display."""

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin; never goes back."""

    def wall(self) -> float:
        """Epoch seconds."""


class RealClock:
    """The machine's clocks."""

    def monotonic(self) -> float:
        """``time.monotonic()``."""
        return time.monotonic()

    def wall(self) -> float:
        """``time.time()``."""
        return time.time()
