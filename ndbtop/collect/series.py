"""The time series the hub keeps for sparklines and trends, and rates between readings.

Every series is a bounded deque of values, one per refresh. The snapshot gets
them as a :class:`~ndbtop.model.series.SeriesSet`; only the series that changed
since the last snapshot are copied, and the whole is kept until one changes.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from ndbtop.collect.thread_history import ThreadHistory
from ndbtop.model.ndbinfo import NdbinfoSample, ThreadCpu
from ndbtop.model.series import SeriesSet

V = TypeVar("V")
R = TypeVar("R")

HISTORY_POINTS = 120
"""Points kept per time series (sparklines)."""
THREAD_HISTORY_POINTS = 24
"""Points kept per thread's CPU series (``thread.cpu.<node>.<thr_no>``): twice what the
Threads view's sparklines show (``TREND_WIDTH``, 12), because the largest clusters have
thousands of threads (see :mod:`ndbtop.collect.thread_history`)."""


class SeriesRecorder:
    """Named series of values, and the threads' CPU series."""

    def __init__(self) -> None:
        self._history: dict[str, deque[float | None]] = {}
        self._tuples: dict[str, tuple[str, tuple[float | None, ...]]] = {}
        self._stale: dict[str, None] = {}
        self._all: Sequence[tuple[str, tuple[float | None, ...]]] | None = ()
        self._threads = ThreadHistory(THREAD_HISTORY_POINTS)

    def record(self, key: str, value: float | None, points: int = HISTORY_POINTS) -> None:
        """Append ``value`` to the series ``key`` (created with room for ``points``)."""
        series = self._history.get(key)
        if series is None:
            series = self._history[key] = deque(maxlen=points)
        series.append(value)
        self._stale[key] = None
        self._all = None

    def add_threads(self, threads: Sequence[ThreadCpu]) -> None:
        """Append every thread's CPU to its series."""
        self._threads.add(threads)
        self._all = None

    def gap_threads(self) -> None:
        """No point for any thread at this sample (the threads were not read)."""
        self._threads.gap()
        self._all = None

    def series(self) -> Sequence[tuple[str, tuple[float | None, ...]]]:
        """Every series, for the snapshot."""
        if self._all is None:
            cache, history = self._tuples, self._history
            for key in self._stale:
                cache[key] = (key, tuple(history[key]))
            self._stale.clear()
            threads = self._threads
            self._all = SeriesSet(tuple(cache.values()), threads.later(), threads.finder())
        return self._all


class BetweenReadings(Generic[V, R]):
    """Rates from a panel read in rotation, over the time between its last two readings
    (the panel's values stay the same in the samples in between)."""

    def __init__(
        self, panel: str, derive: Callable[[tuple[V, ...] | None, tuple[V, ...], float],
                                           tuple[R, ...]]
    ) -> None:
        self.panel = panel
        self.derive = derive
        self.rates: tuple[R, ...] = ()
        self._last: tuple[V, ...] = ()
        self._at: float | None = None

    def update(self, sample: NdbinfoSample, values: tuple[V, ...]) -> None:
        """Take a sample's values of the panel; rates change when it was read again."""
        at = sample.panel_read_at(self.panel)
        if at is None or at == self._at:
            return
        if self._at is None:
            self.rates = self.derive(None, values, 0.0)
        else:
            self.rates = self.derive(self._last, values, at - self._at)
        self._last, self._at = values, at
