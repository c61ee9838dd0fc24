"""SQLite's errors told as the MySQL errors a real SQL node gives for the same statement.

The message names the clause an unknown or ambiguous column stands in, as
MySQL's does (``Unknown column 'x' in 'where clause'``).
"""

from __future__ import annotations

import re
import sqlite3

from sqlglot import exp

from ndbtop.sim.sqlnode import errors

_NO_SUCH_COLUMN = re.compile(r"no such column: (.+)")
_AMBIGUOUS = re.compile(r"ambiguous column name: (.+)")
_NO_SUCH_FUNCTION = re.compile(r"no such function: (.+)")

_CLAUSES = {
    "expressions": "field list",
    "where": "where clause",
    "group": "group statement",
    "having": "having clause",
    "order": "order clause",
    "joins": "on clause",
}


def _clause_of(statement: exp.Expression, column_text: str) -> str:
    wanted = column_text.lower()
    for column in statement.find_all(exp.Column):
        text = f"{column.table}.{column.name}" if column.table else column.name
        if text.lower() != wanted:
            continue
        node: exp.Expression = column
        while node.parent is not None and not isinstance(node.parent, exp.Select):
            node = node.parent
        return _CLAUSES.get(node.arg_key, "field list")
    return "field list"


def translate_sqlite_error(error: sqlite3.Error, statement: exp.Expression) -> errors.SqlNodeError:
    """The MySQL error a failed SQLite statement stands for (1105 when there is none)."""
    message = str(error)
    match = _NO_SUCH_COLUMN.match(message)
    if match:
        column = match.group(1)
        return errors.unknown_column(column, _clause_of(statement, column))
    match = _AMBIGUOUS.match(message)
    if match:
        column = match.group(1)
        return errors.ambiguous_column(column, _clause_of(statement, column))
    match = _NO_SUCH_FUNCTION.match(message)
    if match:
        return errors.SqlNodeError(1305, f"FUNCTION ndbinfo.{match.group(1)} does not exist")
    if "misuse of aggregate" in message:
        return errors.SqlNodeError(1111, "Invalid use of group function")
    return errors.SqlNodeError(1105, message)
