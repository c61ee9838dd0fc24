"""Result rows of the ``ndbinfo`` queries turned into model values.

A server may send the same column as an ``int``, a :class:`~decimal.Decimal` (a
``SUM()``), a ``str`` or ``bytes`` (depending on how it types the expression), or
NULL: every value goes through :func:`to_int`, :func:`to_pct` or :func:`to_text`.
Each ``parse_*`` function takes the rows of the matching query of
:mod:`ndbtop.ndbinfo.queries`, in that query's column order; the thread reads are
joined in :mod:`ndbtop.ndbinfo.rows_threads`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from decimal import Decimal

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
)
from ndbtop.textnum import MAX_FLOAT, MAX_WHOLE, float_or_none, int_or_none, is_digits

Row = Sequence[object]
_LOG_TYPE_ORDER = {"REDO": 0, "DD-UNDO": 1, "BACKUP-DATA": 2, "BACKUP-LOG": 3}
"""Log types in the order of the kernel's log_type numbers."""


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


def sorted_rows(rows: Sequence[Row], width: int) -> list[Row]:
    """The rows of at least ``width`` columns, by their first two as numbers."""
    good = [r for r in rows if len(r) >= width]
    return sorted(good, key=lambda r: tuple(to_int(v) for v in r[:2]))


def parse_nodes(rows: Sequence[Row]) -> tuple[NdbinfoNode, ...]:
    """``node_id, uptime, status, start_phase, config_generation``."""
    return tuple(
        NdbinfoNode(to_int(r[0]), to_int(r[1]), to_text(r[2]), to_int(r[3]), to_int(r[4]))
        for r in sorted_rows(rows, 5)
    )


def parse_disk_page_buffer(rows: Sequence[Row]) -> tuple[DiskPageBuffer, ...]:
    """``node_id`` then the seven sums, in the order of :class:`DiskPageBuffer`."""
    return tuple(DiskPageBuffer(*(to_int(v) for v in r[:8])) for r in sorted_rows(rows, 8))


def parse_disk_write_speed(rows: Sequence[Row]) -> tuple[DiskWriteSpeed, ...]:
    """``node_id`` then the six speeds, in the order of :class:`DiskWriteSpeed`, and the
    seconds slowed down for I/O lag when read (NULL: not known)."""
    return tuple(
        DiskWriteSpeed(*(to_int(v) for v in r[:7]),
                       slowdowns_io_lag=None if len(r) < 8 or r[7] is None else to_int(r[7]))
        for r in sorted_rows(rows, 7)
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
    return tuple(DiskStat(*(to_int(v) for v in r[:5])) for r in sorted_rows(rows, 5))


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
        for r in sorted_rows(rows, 6)
    )


def parse_activity(rows: Sequence[Row]) -> tuple[NodeActivity, ...]:
    """``node_id`` then the seven sums of :data:`~ndbtop.ndbinfo.queries.COUNTERS`."""
    return tuple(NodeActivity(*(to_int(v) for v in r[:8])) for r in sorted_rows(rows, 8))
