"""Simulated time: a clock that runs ``speed`` times faster than real time."""

from __future__ import annotations

import time
from collections.abc import Callable


class SimClock:
    """Seconds since the simulation began, and the matching wall-clock time.

    ``speed`` 60 makes one simulated minute pass per real second. The speed can
    change while running without a jump in simulated time. ``start_at`` starts
    the clock at a later simulated time; the wall clock then reads the real
    time at that moment.
    """

    def __init__(
        self,
        speed: float = 1.0,
        epoch: float | None = None,
        real: Callable[[], float] = time.monotonic,
        start_at: float = 0.0,
    ) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self._real = real
        self._speed = speed
        self._base_real = real()
        self._base_sim = start_at
        self.epoch = (time.time() - start_at) if epoch is None else epoch

    @property
    def speed(self) -> float:
        """Simulated seconds per real second."""
        return self._speed

    def set_speed(self, speed: float) -> None:
        """Change the speed from now on."""
        if speed <= 0:
            raise ValueError("speed must be positive")
        self._base_sim = self.now()
        self._base_real = self._real()
        self._speed = speed

    def now(self) -> float:
        """Simulated seconds since the start."""
        return self._base_sim + (self._real() - self._base_real) * self._speed

    def wall(self, sim_seconds: float | None = None) -> float:
        """Epoch seconds of a simulated instant (now by default)."""
        return self.epoch + (self.now() if sim_seconds is None else sim_seconds)

    def monotonic(self) -> float:
        """Simulated seconds, for code that measures durations."""
        return self.now()
