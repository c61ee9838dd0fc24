"""Every data node thread's recent CPU, one series per thread (``thread.cpu.<node>.<thr_no>``).

A large cluster has thousands of threads, and each gets a point at every refresh. The
points are kept as one column per sample, in the order of the sample's threads, and the
series are cut from the columns only when something reads them (``zip``, with no step in
Python per thread): most screens never do. A thread's percentage is worked out once per
reading. When the threads of a sample are not those of the last one (a node restarted, a
thread appeared), the series so far are kept per thread and the new points go on from
there; a thread that is gone keeps the series it had.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from operator import itemgetter

from ndbtop.compat import zip_strict
from ndbtop.model.ndbinfo import ThreadCpu
from ndbtop.model.series import Pair, Series

ThreadKey = tuple[int, int]

_NODE = itemgetter(0)
_THR_NO = itemgetter(1)
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
        self._nodes: list[int] = []
        self._numbers: list[int] = []
        self._names: list[str] = []
        self._columns: deque[list[float]] = deque(maxlen=points)
        self._before: dict[ThreadKey, Series] = {}
        """Series as they stood when the threads of the samples last changed."""
        self._index_of: tuple[list[str], dict[str, int]] | None = None
        """Each thread's place in the columns, by series key (for the names it was made of)."""
        self._pcts: dict[ThreadCpu, float] = {}
        """The percentage of each thread reading of the last samples."""
        self._gap: list[float | None] = []
        """The column of a sample without threads (one list, shared by every such column)."""

    def add(self, threads: Sequence[ThreadCpu]) -> None:
        """A point for every thread of a sample."""
        if not threads:
            return
        # The threads are those of the last sample when their numbers are (small ints are
        # shared objects: the lists cost no object per thread).
        nodes = list(map(_NODE, threads))
        numbers = list(map(_THR_NO, threads))
        if nodes != self._nodes or numbers != self._numbers:
            self._realign(list(zip_strict(nodes, numbers)))
            self._nodes, self._numbers = nodes, numbers
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
        if self._before and len(self._columns) == self.points:
            # Every thread of the columns has its whole series in them now.
            for key in self._keys:
                self._before.pop(key, None)

    def gap(self) -> None:
        """No point for any thread at this sample (the threads were not read): a series
        shows the seconds it was not read as such, not as the seconds before."""
        if self._keys:
            if len(self._gap) != len(self._keys):
                self._gap = [None] * len(self._keys)
            self._columns.append(self._gap)  # type: ignore[arg-type]

    def _realign(self, keys: list[ThreadKey]) -> None:
        # The series so far, per thread, before the columns start over in the new order.
        current = _cut(self._names, self._keys, tuple(self._columns), self._before, self.points)
        self._before.update(zip_strict(self._keys, (values for _, values in current)))
        self._keys = keys
        self._names = [series_key(key) for key in keys]
        self._columns.clear()

    def finder(self) -> Callable[[str], Series | None]:
        """Looks one series up as it stands now, without cutting out the others."""
        names, points = self._names, self.points
        columns = tuple(self._columns)
        before = dict(self._before) if self._before else {}
        if self._index_of is None or self._index_of[0] is not names:
            self._index_of = (names, {name: i for i, name in enumerate(names)})
        index_of = self._index_of[1]
        keys = self._keys

        def find(name: str) -> Series | None:
            i = index_of.get(name)
            if i is None:
                earlier = next((v for k, v in before.items() if series_key(k) == name), None)
                return earlier
            values = tuple([column[i] for column in columns])
            earlier = before.get(keys[i])
            return (earlier + values)[-points:] if earlier else values

        return find

    def later(self) -> Callable[[], tuple[Pair, ...]]:
        """Every thread's series as they stand now, as ``(key, values)`` pairs, cut out
        when the function returned is called (once; points added meanwhile are not in
        them)."""
        names, keys, points = self._names, self._keys, self.points
        columns = tuple(self._columns)
        before = dict(self._before) if self._before else {}

        def cut() -> tuple[Pair, ...]:
            current = _cut(names, keys, columns, before, points)
            if not before:
                return tuple(current)
            shown = set(keys)
            gone = [(series_key(key), values) for key, values in before.items()
                    if key not in shown]
            return (*current, *gone)

        return cut


def _cut(
    names: list[str],
    keys: list[ThreadKey],
    columns: tuple[list[float], ...],
    before: dict[ThreadKey, Series],
    points: int,
) -> list[Pair]:
    """The series of the threads of the columns."""
    if not keys:
        return []
    cut = zip_strict(*columns) if columns else iter([()] * len(keys))
    if not before:
        return list(zip_strict(names, cut))
    out = []
    for name, key, values in zip_strict(names, keys, cut):
        earlier = before.get(key)
        if earlier:
            values = (earlier + values)[-points:]
        out.append((name, values))
    return out
