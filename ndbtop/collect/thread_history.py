"""Every data node thread's recent CPU, one series per thread (``thread.cpu.<node>.<thr_no>``).

A large cluster has thousands of threads, and each gets a point at every refresh. The
points are kept as one column per sample, in the order of the sample's threads, and the
series are cut from the columns when a snapshot asks for them (``zip``, with no step in
Python per thread). A thread's percentage is worked out once per set of figures. When the
threads of a sample are not those of the last one (a node restarted, a thread appeared),
the series so far are kept per thread and the new points go on from there; a thread that
is gone keeps the series it had.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from operator import itemgetter

from ndbtop.model.ndbinfo import ThreadCpu

ThreadKey = tuple[int, int]
Series = tuple[float | None, ...]

_KEY = itemgetter(0, 1)
_WHOLE_PERCENTS = {float(i): float(i) for i in range(401)}
"""One float object per whole percentage: ``cpustat`` figures are whole numbers, and
series that share a few hundred objects, rather than hold a new one per point, take less
memory and are cheaper to copy into each snapshot (fewer cache misses)."""


def series_key(key: ThreadKey) -> str:
    """The history key of a thread's CPU series."""
    return f"thread.cpu.{key[0]}.{key[1]}"


class ThreadHistory:
    """The last ``points`` CPU percentages of every thread seen."""

    def __init__(self, points: int) -> None:
        self.points = points
        self._keys: list[ThreadKey] = []
        """The threads of the columns, in order."""
        self._names: list[str] = []
        self._columns: deque[list[float]] = deque(maxlen=points)
        self._before: dict[ThreadKey, Series] = {}
        """Series as they stood when the threads of the samples last changed."""
        self._pcts: dict[ThreadCpu, float] = {}
        """The percentage of each thread reading of the last samples."""
        self._all: tuple[tuple[str, Series], ...] | None = ()

    def add(self, threads: Sequence[ThreadCpu]) -> None:
        """A point for every thread of a sample."""
        if not threads:
            return
        keys = list(map(_KEY, threads))
        if keys != self._keys:
            self._realign(keys)
        # A thread that reads as it did (most do from one second to the next) is not asked
        # for its percentage again.
        known = self._pcts
        pcts = list(map(known.get, threads))
        if None in pcts:
            if len(known) > 2 * len(threads):
                known.clear()
            shared = _WHOLE_PERCENTS
            for i, pct in enumerate(pcts):
                if pct is None:
                    thread = threads[i]
                    value = thread.cpu_pct
                    pcts[i] = known[thread] = shared.get(value, value)
        self._columns.append(pcts)  # type: ignore[arg-type]
        self._all = None

    def _realign(self, keys: list[ThreadKey]) -> None:
        # The series so far, per thread, before the columns start over in the new order.
        self._before.update((key, values) for (_, values), key in zip(self._current(),
                                                                        self._keys,
                                                                        strict=True))
        self._keys = keys
        self._names = [series_key(key) for key in keys]
        self._columns.clear()

    def _current(self) -> list[tuple[str, Series]]:
        """The series of the threads of the columns."""
        if not self._keys:
            return []
        columns = self._columns
        cut = zip(*columns, strict=True) if columns else iter([()] * len(self._keys))
        before = self._before
        if not before:
            return list(zip(self._names, cut, strict=True))
        points = self.points
        out = []
        for name, key, values in zip(self._names, self._keys, cut, strict=True):
            earlier = before.get(key)
            if earlier:
                values = (earlier + values)[-points:]
            out.append((name, values))
        return out

    def series(self) -> tuple[tuple[str, Series], ...]:
        """Every thread's series, as ``(key, values)`` pairs (the same tuple until a point
        is added)."""
        if self._all is None:
            current = self._current()
            if len(self._columns) == self.points and self._before:
                # Every thread of the columns has its whole series in them now.
                for key in self._keys:
                    self._before.pop(key, None)
            gone = []
            if self._before:
                shown = set(self._keys)
                gone = [(series_key(key), values) for key, values in self._before.items()
                        if key not in shown]
            self._all = (*current, *gone)
        return self._all
