"""Result rows of the ``ndbinfo`` queries turned into model values.

A server may send the same column as an ``int``, a :class:`~decimal.Decimal` (a
``SUM()``), a ``str`` or ``bytes`` (depending on how it types the expression), or
NULL: every value goes through :func:`to_int`, :func:`to_pct` or :func:`to_text`.
Each ``parse_*`` function takes the rows of the matching query of
:mod:`ndbtop.ndbinfo.queries`, in that query's column order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from operator import itemgetter
from typing import Optional

from ndbtop.compat import SLOTS, zip_strict
from ndbtop.model.ndbinfo import (
    ApiProcess,
    DiskPageBuffer,
    DiskStat,
    DiskWriteSpeed,
    LogSpace,
    MemoryUse,
    NdbinfoNode,
    NodeActivity,
    NodeLinks,
    RestartInfo,
    ThreadCpu,
)
from ndbtop.textnum import MAX_FLOAT, MAX_WHOLE, float_or_none, int_or_none, is_digits

Row = Sequence[object]
_LOG_TYPE_ORDER = {"REDO": 0, "DD-UNDO": 1, "BACKUP-DATA": 2, "BACKUP-LOG": 3}
"""Log types in the order of the kernel's log_type numbers."""
ThreadKey = tuple[int, int]
"""``(node_id, thr_no)``."""


INT_HIGH = MAX_WHOLE
"""The largest integer taken from a row (and ``-INT_HIGH`` the smallest): a ``SUM()`` of a
``BIGINT UNSIGNED`` column is a ``DECIMAL(41,0)``."""


def to_int(value: object, default: int = 0) -> int:
    """An integer from whatever the server sent; ``default`` for NULL, non-numbers and
    numbers beyond :data:`INT_HIGH`. Text is read by :mod:`ndbtop.textnum` (ASCII digits, with a
    fraction for a ``SUM()`` sent as text)."""
    kind = type(value)
    if kind is int:
        return value if -INT_HIGH <= value <= INT_HIGH else default  # type: ignore[operator, return-value]
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if isinstance(value, str):
        number = int_or_none(value, -INT_HIGH, INT_HIGH)
        if number is not None:
            return number
        if float_or_none(value) is None:
            return default
        value = Decimal(value.strip())
    if isinstance(value, Decimal):
        if not value.is_finite() or not -INT_HIGH <= value <= INT_HIGH:
            return default
        return int(value)
    if isinstance(value, int):
        return value if -INT_HIGH <= value <= INT_HIGH else default
    if isinstance(value, float) and math.isfinite(value) and -INT_HIGH <= value <= INT_HIGH:
        return int(value)
    return default


def to_pct(value: object) -> float | None:
    """A percentage as float; None for NULL or a value that is not a finite number (text is
    read by :mod:`ndbtop.textnum`)."""
    kind = type(value)
    if kind is float or kind is int or (kind is Decimal and value.is_finite()):  # type: ignore[attr-defined]
        return float(value) if -MAX_FLOAT <= value <= MAX_FLOAT else None  # type: ignore[arg-type, operator]
    if kind is Decimal:
        return None
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return float_or_none(value) if isinstance(value, str) else None


def to_text(value: object) -> str:
    """A string; ``""`` for NULL."""
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def _sorted(rows: Sequence[Row], width: int) -> list[Row]:
    good = [r for r in rows if len(r) >= width]
    return sorted(good, key=lambda r: tuple(to_int(v) for v in r[:2]))


def parse_nodes(rows: Sequence[Row]) -> tuple[NdbinfoNode, ...]:
    """``node_id, uptime, status, start_phase, config_generation``."""
    return tuple(
        NdbinfoNode(to_int(r[0]), to_int(r[1]), to_text(r[2]), to_int(r[3]), to_int(r[4]))
        for r in _sorted(rows, 5)
    )


def parse_disk_page_buffer(rows: Sequence[Row]) -> tuple[DiskPageBuffer, ...]:
    """``node_id`` then the seven sums, in the order of :class:`DiskPageBuffer`."""
    return tuple(DiskPageBuffer(*(to_int(v) for v in r[:8])) for r in _sorted(rows, 8))


def parse_disk_write_speed(rows: Sequence[Row]) -> tuple[DiskWriteSpeed, ...]:
    """``node_id`` then the six speeds, in the order of :class:`DiskWriteSpeed`, and the
    seconds slowed down for I/O lag when read (NULL: not known)."""
    return tuple(
        DiskWriteSpeed(*(to_int(v) for v in r[:7]),
                       slowdowns_io_lag=None if len(r) < 8 or r[7] is None else to_int(r[7]))
        for r in _sorted(rows, 7)
    )


def parse_config_values(rows: Sequence[Row]) -> tuple[tuple[int, int, str], ...]:
    """``node_id, config_param, config_value``: the value as the data node prints it."""
    out = []
    for row in rows:
        if len(row) < 3 or row[0] is None or row[1] is None:
            continue
        value = row[2]
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
        out.append((to_int(row[0]), to_int(row[1]), text[:512]))
    return tuple(sorted(out))


def parse_processes(rows: Sequence[Row]) -> tuple[ApiProcess, ...]:
    """``node_id, node_version, process_id, angel_process_id, process_name, service_URI``."""
    out = []
    for row in rows:
        if len(row) < 6 or row[0] is None:
            continue
        pid, angel = (to_int(v) if v is not None else None for v in row[2:4])
        out.append(ApiProcess(to_int(row[0]), to_text(row[1])[:512], pid or None, angel or None,
                              to_text(row[4])[:512], to_text(row[5])[:512]))
    return tuple(sorted(out, key=lambda p: p.node_id))


def parse_disk_stat(rows: Sequence[Row]) -> tuple[DiskStat, ...]:
    """``node_id`` then the four per-second sums, in the order of :class:`DiskStat`."""
    return tuple(DiskStat(*(to_int(v) for v in r[:5])) for r in _sorted(rows, 5))


def parse_logs(rows: Sequence[Row]) -> tuple[LogSpace, ...]:
    """``node_id, log_type, log_id, log_part, total, used`` (logspaces or logbuffers)."""
    good = [r for r in rows if len(r) >= 6]
    good.sort(
        key=lambda r: (
            to_int(r[0]),
            _LOG_TYPE_ORDER.get(to_text(r[1]), len(_LOG_TYPE_ORDER)),
            to_int(r[2]),
            to_int(r[3]),
        )
    )
    return tuple(
        LogSpace(
            to_int(r[0]), to_text(r[1]), to_int(r[2]), to_int(r[3]), to_int(r[4]), to_int(r[5])
        )
        for r in good
    )


def parse_memory(rows: Sequence[Row]) -> tuple[MemoryUse, ...]:
    """``node_id, memory_type, used, used_pages, total, total_pages``."""
    good = [r for r in rows if len(r) >= 6]
    good.sort(key=lambda r: (to_int(r[0]), to_text(r[1])))
    return tuple(MemoryUse(to_int(r[0]), to_text(r[1]), *(to_int(v) for v in r[2:6])) for r in good)


def parse_restart_info(rows: Sequence[Row], columns: Sequence[str]) -> tuple[RestartInfo, ...]:
    """``SELECT *`` rows: every ``secs_*`` column is a phase, ``total_restart_secs`` the total."""
    index = {name.lower(): i for i, name in enumerate(columns)}
    needed = ("node_id", "node_restart_status", "node_restart_status_int")
    if not all(n in index for n in needed):
        return ()
    phases = [
        (name, i)
        for i, name in enumerate(columns)
        if name.lower().startswith("secs_") and name.lower() != "total_restart_secs"
    ]
    total = index.get("total_restart_secs")
    out = []
    for r in rows:
        out.append(
            RestartInfo(
                node_id=to_int(r[index["node_id"]]),
                status=to_text(r[index["node_restart_status"]]),
                status_int=to_int(r[index["node_restart_status_int"]]),
                phases=tuple((name, to_int(r[i])) for name, i in phases),
                total_s=to_int(r[total]) if total is not None else 0,
            )
        )
    return tuple(sorted(out, key=lambda x: x.node_id))


def _node_ids(value: object) -> tuple[int, ...]:
    """``GROUP_CONCAT`` of node ids (``3,4``) as sorted ids; none for NULL."""
    text = to_text(value)
    return tuple(sorted({to_int(part) for part in text.split(",") if part.strip()}))


def _pressure(value: object) -> tuple[tuple[int, int, int], ...]:
    """``GROUP_CONCAT`` of ``remote:overload_count:slowdown_count`` by remote node; a part
    that is not three numbers is left out."""
    out: dict[int, tuple[int, int, int]] = {}
    for part in to_text(value).split(","):
        fields = part.strip().split(":")
        if len(fields) == 3 and all(is_digits(f) for f in fields):
            remote, overloads, slowdowns = (int(f) for f in fields)
            out[remote] = (remote, overloads, slowdowns)
    return tuple(out[k] for k in sorted(out))


def parse_links(rows: Sequence[Row]) -> tuple[NodeLinks, ...]:
    """``node_id, links, connects, bytes_sent, bytes_received, down``, then ``overloaded,
    slowdown, pressure`` where the version has them
    (:data:`~ndbtop.ndbinfo.queries.TRANSPORTERS`)."""
    return tuple(
        NodeLinks(
            *(to_int(v) for v in r[:5]),
            *(_node_ids(v) for v in r[5:8]),
            pressure=_pressure(r[8]) if len(r) > 8 else (),
        )
        for r in _sorted(rows, 6)
    )


def parse_activity(rows: Sequence[Row]) -> tuple[NodeActivity, ...]:
    """``node_id`` then the seven sums of :data:`~ndbtop.ndbinfo.queries.COUNTERS`."""
    return tuple(NodeActivity(*(to_int(v) for v in r[:8])) for r in _sorted(rows, 8))


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
    for r in _sorted(rows, 7):
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
