"""The SQLite database a statement runs in, made to behave like MySQL where they differ.

Tables are created with the column affinities of their MySQL types and with
case-insensitive strings (ndbinfo's collation is ``latin1_swedish_ci``); values
SQLite cannot bind are made bindable. ``GROUP_CONCAT`` as MySQL cuts it,
``TRUNCATE``, ``REGEXP`` and ``UNIX_TIMESTAMP`` are provided as functions.
"""

from __future__ import annotations

import decimal
import re
import sqlite3
import time
from collections.abc import Sequence

from ndbtop.sim.sqlnode import errors
from ndbtop.sim.sqlnode.exprtypes import GROUP_CONCAT_MAX_LEN_DEFAULT
from ndbtop.sim.sqlnode.provider import Row
from ndbtop.sim.sqlnode.schema import Table
from ndbtop.sim.sqlnode.sqltypes import Kind

_MAX_SQLITE_INT = (1 << 63) - 1


def _mysql_truncate(value: object, decimals: object) -> object:
    if value is None or decimals is None:
        return None
    places = int(decimals)  # type: ignore[call-overload]
    if isinstance(value, int):
        if places >= 0:
            return value
        factor = 10**-places
        magnitude = abs(value) // factor * factor
        return magnitude if value >= 0 else -magnitude
    number = decimal.Decimal(repr(float(value)))  # type: ignore[arg-type]
    quantum = decimal.Decimal(1).scaleb(-places)
    return float(number.quantize(quantum, rounding=decimal.ROUND_DOWN))


def _regexp(pattern: object, value: object) -> object:
    if pattern is None or value is None:
        return None
    return 1 if re.search(str(pattern), str(value), re.IGNORECASE) else 0


def _unix_timestamp(*args: object) -> object:
    return int(time.time()) if not args else None


def _as_text(value: object) -> str:
    return value.decode("utf-8", errors="replace") if isinstance(value, bytes) else str(value)


def _group_concat_aggregate(max_len: int) -> type:
    """MySQL's ``GROUP_CONCAT`` for SQLite: NULLs skipped, NULL when nothing is left, the
    result cut to ``max_len`` bytes on a character boundary."""

    class GroupConcat:
        def __init__(self) -> None:
            self.parts: list[str] = []

        def step(self, value: object, separator: object = ",") -> None:
            if value is None:
                return
            if self.parts:
                self.parts.append("" if separator is None else _as_text(separator))
            self.parts.append(_as_text(value))

        def finalize(self) -> str | None:
            if not self.parts:
                return None
            data = "".join(self.parts).encode("utf-8")
            if len(data) <= max_len:
                return data.decode("utf-8")
            return data[:max_len].decode("utf-8", errors="ignore")

    return GroupConcat


class _ExactSum:
    """MySQL's ``SUM()``: exact past 64 bits (a ``DECIMAL`` there), where SQLite's fails
    with "integer overflow". A sum beyond SQLite's integers is its digits as text."""

    def __init__(self) -> None:
        self.total: int | float | None = None

    def step(self, value: object) -> None:
        if value is None:
            return
        if isinstance(value, (bytes, str)):
            text = _as_text(value).strip()
            try:
                value = int(text)
            except ValueError:
                try:
                    value = float(text)
                except ValueError:
                    value = 0
        self.total = (self.total or 0) + value  # type: ignore[operator]

    def finalize(self) -> int | float | str | None:
        total = self.total
        if isinstance(total, int) and not -_MAX_SQLITE_INT - 1 <= total <= _MAX_SQLITE_INT:
            return str(total)
        return total


def register_exact_sum(connection: sqlite3.Connection) -> None:
    """Make ``SUM()`` on ``connection`` exact past 64 bits, as MySQL's is (slower: for a
    statement whose sum overflowed)."""
    connection.create_aggregate("sum", 1, _ExactSum)  # type: ignore[arg-type]


def register_functions(
    connection: sqlite3.Connection, group_concat_max_len: int = GROUP_CONCAT_MAX_LEN_DEFAULT
) -> None:
    """Give ``connection`` the MySQL functions SQLite lacks or has otherwise."""
    concat = _group_concat_aggregate(group_concat_max_len)
    connection.create_aggregate("group_concat", 1, concat)  # type: ignore[arg-type]
    connection.create_aggregate("group_concat", 2, concat)  # type: ignore[arg-type]
    connection.create_function("mysql_truncate", 2, _mysql_truncate, deterministic=True)
    connection.create_function("regexp", 2, _regexp, deterministic=True)
    connection.create_function("unix_timestamp", -1, _unix_timestamp)


_AFFINITY = {
    Kind.INT: "INTEGER",
    Kind.DECIMAL: "NUMERIC",
    Kind.DOUBLE: "REAL",
    Kind.STRING: "TEXT COLLATE NOCASE",
    Kind.NULL: "",
}


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def load_table(connection: sqlite3.Connection, table: Table, rows: Sequence[Row]) -> None:
    """Create ``table`` in ``connection`` with MySQL's affinities and collation, and fill it."""
    definition = ", ".join(f"{_quote(c.name)} {_AFFINITY[c.type.kind]}" for c in table.columns)
    connection.execute(f"CREATE TABLE {_quote(table.name)} ({definition})")
    if not rows:
        return
    width = len(table.columns)
    insert = f"INSERT INTO {_quote(table.name)} VALUES ({', '.join('?' * width)})"
    decimal_columns = [i for i, c in enumerate(table.columns) if c.type.kind is Kind.DECIMAL]
    prepared: Sequence[Row] = rows
    if decimal_columns:
        prepared = [_bindable_decimals(row, decimal_columns) for row in rows]
    try:
        connection.executemany(insert, prepared)
    except OverflowError:
        connection.execute(f"DELETE FROM {_quote(table.name)}")
        connection.executemany(insert, [_bindable_big_ints(row) for row in prepared])
    except sqlite3.ProgrammingError as e:
        bad = next((len(r) for r in prepared if len(r) != width), None)
        if bad is None:
            raise errors.SqlNodeError(1105, f"bad value in table '{table.name}': {e}") from e
        raise errors.SqlNodeError(
            1105, f"provider row of {bad} values for table '{table.name}' of {width} columns"
        ) from e


def _bindable_decimals(row: Row, columns: Sequence[int]) -> Row:
    values = list(row)
    for i in columns:
        value = values[i]
        if isinstance(value, decimal.Decimal):
            values[i] = int(value) if value == value.to_integral_value() else float(value)
        elif value is not None and not isinstance(value, (int, float)):
            values[i] = float(value)  # type: ignore[arg-type]
    return values


def _bindable_big_ints(row: Row) -> Row:
    return [
        float(v) if isinstance(v, int) and not -_MAX_SQLITE_INT - 1 <= v <= _MAX_SQLITE_INT else v
        for v in row
    ]
