"""Simulated time: a clock that runs ``speed`` times faster than real time, and the time
the simulator's clients are told."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol


class ServedTime(Protocol):
    """How the simulator tells its clients the time: durations, ages and timestamps."""

    def served(self, sim_seconds: float) -> float:
        """The simulated instant ``sim_seconds`` in the seconds clients are told."""

    def served_per_sim(self) -> float:
        """Seconds clients are told per simulated second now (for counters of seconds)."""


class SimulatedTime:
    """Clients are told simulated seconds: what a viewer on the simulated clock (the demo's
    hub) measures too."""

    def served(self, sim_seconds: float) -> float:
        """``sim_seconds`` itself."""
        return sim_seconds

    def served_per_sim(self) -> float:
        """1."""
        return 1.0


SIMULATED_TIME = SimulatedTime()


class SimClock:
    """Seconds since the simulation began, and the matching wall-clock time.

    ``speed`` 60 makes one simulated minute pass per real second. The speed can
    change while running without a jump in simulated time. ``start_at`` starts
    the clock at a later simulated time; the wall clock then reads the real
    time at that moment.

    With ``serve_real_time`` the clock tells clients real time (:meth:`served`): a
    simulated span since the clock began is the real seconds it took, whatever the
    speed, and the simulated past before ``start_at`` passes at real pace; the wall clock
    follows real time. A client on its own real clock (``ndbtop`` against ``ndbtop sim``)
    then measures the durations it is told: the cluster simply runs ``speed`` times faster.
    Without it, clients are told simulated seconds, as the demo's hub measures them.
    """

    def __init__(
        self,
        speed: float = 1.0,
        epoch: float | None = None,
        real: Callable[[], float] = time.monotonic,
        start_at: float = 0.0,
        serve_real_time: bool = False,
    ) -> None:
        if speed <= 0:
            raise ValueError("speed must be positive")
        self._real = real
        self._speed = speed
        self._base_real = real()
        self._base_sim = start_at
        self.epoch = (time.time() - start_at) if epoch is None else epoch
        self.serve_real_time = serve_real_time
        self._origin_real = self._base_real
        self._origin_sim = start_at
        self._segments: list[tuple[float, float, float]] = [(start_at, 0.0, speed)]
        """(simulated start, real seconds since the origin, speed) of each stretch at one
        speed, oldest first."""

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
        self._segments.append((self._base_sim, self._base_real - self._origin_real, speed))

    def now(self) -> float:
        """Simulated seconds since the start."""
        return self._base_sim + (self._real() - self._base_real) * self._speed

    def served(self, sim_seconds: float) -> float:
        """The simulated instant ``sim_seconds`` as clients are told it: itself, or with
        ``serve_real_time`` the real seconds since the origin (``start_at`` plus the real
        time elapsed since the clock began)."""
        if not self.serve_real_time or sim_seconds <= self._origin_sim:
            return sim_seconds
        for began, real_offset, speed in reversed(self._segments):
            if sim_seconds >= began:
                return self._origin_sim + real_offset + (sim_seconds - began) / speed
        return sim_seconds

    def served_per_sim(self) -> float:
        """Seconds clients are told per simulated second now: 1, or ``1 / speed`` with
        ``serve_real_time``."""
        return 1.0 / self._speed if self.serve_real_time else 1.0

    def wall(self, sim_seconds: float | None = None) -> float:
        """Epoch seconds of a simulated instant (now by default), as clients are told it."""
        return self.epoch + self.served(self.now() if sim_seconds is None else sim_seconds)

    def monotonic(self) -> float:
        """Simulated seconds, for code that measures durations."""
        return self.now()
