"""The thread reads of ``ndbinfo`` turned into :class:`~ndbtop.model.ndbinfo.ThreadCpu`
values: the thread layout (``threads``, ``threadblocks``, ``threads.os_tid``) cached by
thread, joined with each refresh's ``cpustat`` text rows or, before 7.5.2, with the
difference of two ``threadstat`` readings.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from operator import itemgetter
from typing import Optional

from ndbtop.compat import SLOTS, zip_strict
from ndbtop.model.ndbinfo import ThreadCpu
from ndbtop.ndbinfo.rows import Row, sorted_rows, to_int, to_pct, to_text

ThreadKey = tuple[int, int]
"""``(node_id, thr_no)``."""


def thread_names(rows: Sequence[Row]) -> dict[ThreadKey, str]:
    """``node_id, thr_no, thread_name`` by thread."""
    return {(to_int(r[0]), to_int(r[1])): to_text(r[2]) for r in rows if len(r) >= 3}


def thread_blocks(rows: Sequence[Row]) -> dict[ThreadKey, tuple[str, ...]]:
    """``node_id, thr_no, block_name, block_instance``: each thread's block names, in
    the order the server lists them, each name once."""
    blocks: dict[ThreadKey, list[str]] = {}
    for r in rows:
        if len(r) < 3:
            continue
        names = blocks.setdefault((to_int(r[0]), to_int(r[1])), [])
        name = to_text(r[2])
        if name and name not in names:
            names.append(name)
    return {key: tuple(names) for key, names in blocks.items()}


def thread_os_ids(rows: Sequence[Row]) -> dict[ThreadKey, int]:
    """``node_id, thr_no, os_tid``: the OS thread ids that are known (non-zero)."""
    tids = {}
    for r in rows:
        if len(r) >= 3 and to_int(r[2]) > 0:
            tids[(to_int(r[0]), to_int(r[1]))] = to_int(r[2])
    return tids


ThreadLayout = tuple[str, tuple[str, ...], Optional[int]]
"""A thread's name, block names and OS thread id."""

_NO_LAYOUT: ThreadLayout = ("", (), None)


def thread_layout(
    names: Mapping[ThreadKey, str],
    blocks: Mapping[ThreadKey, tuple[str, ...]],
    tids: Mapping[ThreadKey, int],
) -> dict[ThreadKey, ThreadLayout]:
    """The three layout reads joined by thread: every thread at least one of them describes."""
    return {
        key: (names.get(key, ""), blocks.get(key, ()), tids.get(key))
        for key in names.keys() | blocks.keys() | tids.keys()
    }


_PERCENTS = {str(i): float(i) for i in range(101)}
"""The text of every whole percentage, and its value: cpustat's figures are whole numbers."""
_IDS = {str(i): i for i in range(1024)}
"""The text of every node id and thread number, and its value."""
_BY_THREAD = itemgetter(0, 1)
"""A :class:`ThreadCpu`'s ``(node_id, thr_no)``."""
_new_thread = tuple.__new__
"""What ``ThreadCpu._make`` does, without its check of the number of fields (a Python
call): for the fields of a thread already read once."""


def _thread_from_cpustat(text: str, layout: Mapping[ThreadKey, ThreadLayout]) -> ThreadCpu | None:
    parts = text.split()
    if len(parts) < 8:
        return None
    node_text, thr_text, user, system, exec_, spin, send, full = parts[:8]
    percent = _PERCENTS
    try:
        key = (_IDS[node_text], _IDS[thr_text])
        pcts = (percent[user], percent[system], percent[exec_], percent[spin],
                percent[send], percent[full])
    except (KeyError, ValueError):
        key = (to_int(node_text), to_int(thr_text))
        pcts = tuple(to_pct(p) for p in parts[2:8])
    name, blocks, tid = layout.get(key, _NO_LAYOUT)
    return ThreadCpu._make((*key, name, blocks, *pcts, tid))


class CpustatJoin:
    """Joins :data:`~ndbtop.ndbinfo.queries.CPUSTAT` rows with the cached thread layout
    (:func:`thread_layout`), as ``ndb_top`` joins ``cpustat`` with ``threads``.

    Each row is the text ``node_id thr_no`` then the six percentages in
    :class:`ThreadCpu`'s field order (OS user, system, then exec, spinning, send, buffer
    full); a row with too few is skipped. Most rows read the same as a second earlier:
    while the layout is the same object, such a row gives the same :class:`ThreadCpu`.
    A row that changed is read from the thread it names and its six figures, each part
    looked up as read before (threads keep their names, and few figures recur); a row
    of any other shape is read field by field.
    """

    MAX_FIGURES = 50_000
    """Different sets of six figures remembered before starting over."""

    def __init__(self) -> None:
        self._layout: Mapping[ThreadKey, ThreadLayout] | None = None
        self._known: dict[str, ThreadCpu] = {}
        self._heads: dict[str, tuple[tuple[object, ...], tuple[int | None], bool]] = {}
        """``node_id thr_no`` as read: the thread's first fields (id, name, blocks), its
        OS thread id, and whether the layout describes it."""
        self._figures: dict[str, tuple[float, ...]] = {}
        """Six percentages as read, and their values."""

    def __call__(
        self, rows: Sequence[str], layout: Mapping[ThreadKey, ThreadLayout]
    ) -> tuple[tuple[ThreadCpu, ...], frozenset[ThreadKey]]:
        """The threads of ``rows`` sorted by node and thread, and those the layout does not
        describe (they have no name)."""
        if layout is not self._layout:
            self._known = {}
            self._heads = {}
            self._layout = layout
        # Rows that read as a second ago are looked up without a step in Python each.
        found: list[ThreadCpu | None] = list(map(self._known.get, rows))
        unknown = []
        dropped = []
        if None in found:
            for i, thread in enumerate(found):
                if thread is not None:
                    continue
                text = rows[i]
                thread, described = self._read(text, layout)
                if thread is None:
                    dropped.append(text)
                    continue
                found[i] = thread
                if not described:
                    unknown.append((thread.node_id, thread.thr_no))
                    dropped.append(text)
        kept = dict(zip_strict(rows, found))
        for text in dropped:
            kept.pop(text, None)
        self._known = kept  # type: ignore[assignment]
        out = [t for t in found if t is not None] if len(kept) < len(found) else found
        out.sort(key=_BY_THREAD)
        return tuple(out), frozenset(unknown)  # type: ignore[arg-type]

    def _read(
        self, text: str, layout: Mapping[ThreadKey, ThreadLayout]
    ) -> tuple[ThreadCpu | None, bool]:
        cut = text.find(" ", text.find(" ") + 1)
        if cut > 0:
            head = self._heads.get(text[:cut])
            figures = self._figures.get(text[cut + 1 :])
            if head is not None and figures is not None:
                return _new_thread(ThreadCpu, head[0] + figures + head[1]), head[2]
        thread = _thread_from_cpustat(text, layout)
        if thread is None:
            return None, False
        described = (thread.node_id, thread.thr_no) in layout
        parts = text.split(" ")
        if cut > 0 and len(parts) == 8 and all(p in _PERCENTS for p in parts[2:]):
            # A row of the usual shape: its parts are remembered as read.
            self._heads[text[:cut]] = (thread[:4], (thread.os_tid,), described)
            if len(self._figures) >= self.MAX_FIGURES:
                self._figures.clear()
            self._figures[text[cut + 1 :]] = thread[4:10]
        return thread, described


@dataclass(frozen=True, **SLOTS)
class CpuCounters:
    """One ``threadstat`` reading of a thread: OS clock (ms) and CPU times (µs)."""

    now_ms: int
    user_us: int
    system_us: int


def threadstat_counters(rows: Sequence[Row]) -> dict[ThreadKey, CpuCounters]:
    """``node_id, thr_no, thr_nm, os_tid, os_now, os_ru_utime, os_ru_stime`` by thread."""
    return {
        (to_int(r[0]), to_int(r[1])): CpuCounters(to_int(r[4]), to_int(r[5]), to_int(r[6]))
        for r in rows
        if len(r) >= 7
    }


def threads_from_threadstat(
    rows: Sequence[Row],
    previous: Mapping[ThreadKey, CpuCounters],
    blocks: Mapping[ThreadKey, tuple[str, ...]],
) -> tuple[ThreadCpu, ...]:
    """Per-thread CPU from two ``threadstat`` readings: ``100 * Δcpu_µs / (1000 * Δnow_ms)``.

    A thread without a previous reading, or whose counters went back (a restart),
    has no percentages.
    """
    current = threadstat_counters(rows)
    out = []
    for r in sorted_rows(rows, 7):
        key = (to_int(r[0]), to_int(r[1]))
        now, before = current[key], previous.get(key)
        user = system = None
        if (
            before is not None
            and now.now_ms > before.now_ms
            and now.user_us >= before.user_us
            and now.system_us >= before.system_us
        ):
            span_us = 1000.0 * (now.now_ms - before.now_ms)
            user = 100.0 * (now.user_us - before.user_us) / span_us
            system = 100.0 * (now.system_us - before.system_us) / span_us
        tid = to_int(r[3])
        out.append(
            ThreadCpu(
                node_id=key[0],
                thr_no=key[1],
                thread_name=to_text(r[2]),
                blocks=blocks.get(key, ()),
                os_user_pct=user,
                os_system_pct=system,
                os_tid=tid if tid > 0 else None,
            )
        )
    return tuple(out)
