"""Rows of the transactions and locks queries (:data:`ndbtop.ndbinfo.queries_triage.TRANSACTIONS`,
:data:`~ndbtop.ndbinfo.queries_triage.LOCKS`) turned into model values.

The columns are those of ndbinfo.md §2.7: ``transid`` is a ``BIGINT UNSIGNED`` (all 64 bits
may be set), the node and counts ``INT UNSIGNED``, ``waiting_for`` NULL for a held lock, and
``mysql_connection_id`` / ``fq_name`` NULL where the LEFT JOIN found no row. A row whose
numbers cannot be read is left out rather than shown wrong.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndbtop.model.locks import LockRow, Transaction
from ndbtop.ndbinfo.rows import Row, to_text
from ndbtop.sanitise import sanitise
from ndbtop.textnum import U64, int_or_none

_U32 = (1 << 32) - 1
_BAD = -1


def _number(value: object, high: int = _U32) -> int:
    """A whole number in 0..high from an int, text or bytes; ``_BAD`` otherwise (NULL too)."""
    if type(value) is int:
        return value if 0 <= value <= high else _BAD  # type: ignore[operator, return-value]
    if isinstance(value, (str, bytes)):
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        number = int_or_none(text, 0, high)
        return _BAD if number is None else number
    if value is not None and not isinstance(value, (bool, float)):
        # A DECIMAL from an expression: read through its text, digits only.
        number = int_or_none(str(value), 0, high)
        return _BAD if number is None else number
    return _BAD


def _optional(value: object, high: int = U64) -> int | None:
    if value is None:
        return None
    number = _number(value, high)
    return None if number == _BAD else number


def _text(value: object, limit: int) -> str:
    return sanitise(to_text(value)[:limit])


def parse_transactions(rows: Sequence[Row]) -> tuple[Transaction, ...]:
    """``node_id, block_instance, transid, state, count_operations, outstanding_operations,
    inactive_seconds, client_node_id, mysql_connection_id``, the oldest first."""
    out = []
    for row in rows:
        if len(row) < 9:
            continue
        numbers = (_number(row[0]), _number(row[1]), _number(row[2], U64), _number(row[4]),
                   _number(row[5]), _number(row[6]), _number(row[7], U64))
        if _BAD in numbers:
            continue
        node, instance, transid, ops, outstanding, inactive, client = numbers
        out.append(Transaction(node, instance, transid, _text(row[3], 64), ops, outstanding,
                               inactive, client, _optional(row[8])))
    out.sort(key=lambda t: (-t.inactive_s, t.transid))
    return tuple(out)


def parse_locks(rows: Sequence[Row]) -> tuple[LockRow, ...]:
    """``node_id, block_instance, tableid, fragmentid, rowid, transid, mode, state, op,
    duration_millis, lock_num, waiting_for, fq_name``, the longest first."""
    out = []
    for row in rows:
        if len(row) < 13:
            continue
        numbers = (_number(row[0]), _number(row[1]), _number(row[2]), _number(row[3]),
                   _number(row[4], U64), _number(row[5], U64), _number(row[9]),
                   _number(row[10]))
        if _BAD in numbers:
            continue
        node, instance, table, fragment, rowid, transid, millis, num = numbers
        state = _text(row[7], 1).upper()
        if state not in ("W", "H"):
            continue
        out.append(LockRow(node, instance, table, fragment, rowid, transid,
                           _text(row[6], 1).upper(), state, _text(row[8], 16), millis, num,
                           _optional(row[11], _U32), _text(row[12], 512)))
    out.sort(key=lambda lk: (-lk.duration_ms, lk.node_id, lk.lock_num))
    return tuple(out)
