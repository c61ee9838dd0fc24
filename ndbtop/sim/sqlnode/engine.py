"""Running a SELECT over ``ndbinfo`` rows: MySQL SQL in, typed MySQL results out.

Each statement gets a fresh in-memory SQLite database holding only the tables it
reads. The MySQL statement is transpiled with sqlglot (which already turns
MySQL's decimal division into SQLite's real division), run there, and the
result is described with MySQL's types and column names
(:mod:`~ndbtop.sim.sqlnode.resulttypes`, :mod:`~ndbtop.sim.sqlnode.selectlist`).
The SQLite side is :mod:`~ndbtop.sim.sqlnode.sqlitedb` and
:mod:`~ndbtop.sim.sqlnode.sqliteerrors`.
This was measured against sqlglot's own Python executor: 9 ms against 330 ms
for a join of two 1536-row tables.

SQLite is told what MySQL would do where the two differ: string columns compare
case-insensitively (ndbinfo's collation is ``latin1_swedish_ci``), ``LIKE``
escapes with a backslash, and ``TRUNCATE``/``REGEXP`` are provided as functions.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from sqlglot import exp
from sqlglot.dialects.sqlite import SQLite
from sqlglot.errors import ErrorLevel, SqlglotError

from ndbtop.compat import SLOTS, zip_strict
from ndbtop.sim.sqlnode import errors
from ndbtop.sim.sqlnode.exprtypes import GROUP_CONCAT_MAX_LEN_DEFAULT
from ndbtop.sim.sqlnode.provider import Row
from ndbtop.sim.sqlnode.resulttypes import OutputColumn, describe_query
from ndbtop.sim.sqlnode.schema import Table
from ndbtop.sim.sqlnode.selectlist import select_item_texts
from ndbtop.sim.sqlnode.sqlitedb import load_table, register_exact_sum, register_functions
from ndbtop.sim.sqlnode.sqliteerrors import translate_sqlite_error
from ndbtop.sim.sqlnode.sqltypes import (
    NULL,
    Kind,
    SqlType,
    format_decimal,
    to_float,
    to_int,
    to_text,
    type_of_value,
)

_AGGREGATE_ORDER_SINCE = (3, 44, 0)


class _SQLiteBackticks(SQLite):
    """SQLite with backtick-quoted identifiers.

    SQLite reads an unknown ``"name"`` as the string 'name'; a backtick-quoted
    unknown name is an error, as an unknown column must be.
    """

    class Tokenizer(SQLite.Tokenizer):
        IDENTIFIERS: ClassVar[list[str | tuple[str, str]]] = ["`", '"', ("[", "]")]


@dataclass(frozen=True, **SLOTS)
class ResultColumnInfo:
    """A result column: MySQL name, type, and where it comes from if it is a plain column."""

    name: str
    type: SqlType
    table: str = ""
    org_table: str = ""
    org_name: str = ""


@dataclass(frozen=True, **SLOTS)
class QueryResult:
    """The outcome of a SELECT: described columns and rows of wire-ready values."""

    columns: tuple[ResultColumnInfo, ...]
    rows: list[tuple[object, ...]]


def referenced_tables(statement: exp.Expression) -> list[exp.Table]:
    """The stored tables a statement reads, one entry per reference.

    Common table expressions and ``DUAL`` are not stored tables.
    """
    cte_names = {cte.alias for cte in statement.find_all(exp.CTE)}
    found = []
    for table in statement.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            continue
        if not table.args.get("db") and (table.name in cte_names or table.name.lower() == "dual"):
            continue
        found.append(table)
    return found


def run_select(
    statement: exp.Expression,
    sql: str | None,
    tables: Mapping[str, Table],
    rows: Mapping[str, Sequence[Row]],
    group_concat_max_len: int = GROUP_CONCAT_MAX_LEN_DEFAULT,
) -> QueryResult:
    """Run a SELECT (or UNION) whose tables are ``tables``, filled with ``rows``.

    ``statement`` is changed in place. ``sql`` is the client's text, used for
    the names of unaliased columns; ``tables`` maps the bare table names the
    statement uses to their schema entries. ``GROUP_CONCAT`` results are cut
    to ``group_concat_max_len`` bytes, as the session variable makes MySQL do.
    """
    for derived in statement.find_all(exp.Subquery):
        if isinstance(derived.parent, (exp.From, exp.Join)) and not derived.alias:
            raise errors.derived_table_without_alias()
    _strip_databases(statement)
    _name_unaliased_items(statement, sql)
    outputs = describe_query(statement, tables, group_concat_max_len)
    origins = _origins(statement, tables)
    _adapt_for_sqlite(statement)
    try:
        sqlite_sql = statement.sql(
            dialect=_SQLiteBackticks, identify=True, unsupported_level=ErrorLevel.RAISE
        )
    except SqlglotError as e:
        raise errors.not_supported(str(e).splitlines()[0]) from e

    connection = sqlite3.connect(":memory:")
    try:
        register_functions(connection, group_concat_max_len)
        for name, table in tables.items():
            load_table(connection, table, rows.get(name, ()))
        try:
            cursor, fetched = _execute(connection, sqlite_sql)
        except sqlite3.Error as e:
            raise translate_sqlite_error(e, statement) from e
        description = [d[0] for d in cursor.description or ()]
    finally:
        connection.close()

    if outputs is None or len(outputs) != len(description):
        outputs = [OutputColumn(name, None) for name in description]
    columns = []
    for index, output in enumerate(outputs):
        column_type = output.type or _type_from_values(fetched, index)
        table, org_table, org_name = origins[index] if index < len(origins) else ("", "", "")
        columns.append(ResultColumnInfo(output.name, column_type, table, org_table, org_name))
    # Plain columns come back from SQLite with their declared affinity already applied.
    trusted = {i for i, c in enumerate(columns) if c.org_name and c.type.kind is not Kind.DECIMAL}
    converted = _convert(fetched, [c.type for c in columns], trusted)
    return QueryResult(tuple(columns), converted)


def _execute(
    connection: sqlite3.Connection, sql: str
) -> tuple[sqlite3.Cursor, list[tuple[object, ...]]]:
    """``sql`` run; again with MySQL's ``SUM()`` where SQLite's overflowed 64 bits."""
    try:
        cursor = connection.execute(sql)
        return cursor, cursor.fetchall()
    except sqlite3.OperationalError as e:
        if str(e) != "integer overflow":
            raise
    register_exact_sum(connection)
    cursor = connection.execute(sql)
    return cursor, cursor.fetchall()


def _strip_databases(statement: exp.Expression) -> None:
    for table in statement.find_all(exp.Table):
        table.set("db", None)
        table.set("catalog", None)
    for column in statement.find_all(exp.Column):
        column.set("db", None)
        column.set("catalog", None)
    for select in statement.find_all(exp.Select):
        from_ = select.args.get("from_")
        if (
            isinstance(from_, exp.From)
            and isinstance(from_.this, exp.Table)
            and from_.this.name.lower() == "dual"
            and not select.args.get("joins")
        ):
            select.set("from_", None)


def _leftmost_select(statement: exp.Expression) -> exp.Select | None:
    node: exp.Expression | None = statement
    while node is not None and not isinstance(node, exp.Select):
        if isinstance(node, exp.SetOperation):
            node = node.left
        elif isinstance(node, exp.Subquery):
            node = node.this
        else:
            return None
    return node


def _name_unaliased_items(statement: exp.Expression, sql: str | None) -> None:
    select = _leftmost_select(statement)
    if select is None or sql is None:
        return
    texts = select_item_texts(sql)
    if texts is None or len(texts) != len(select.expressions):
        return
    named = []
    for item, text in zip_strict(select.expressions, texts):
        text = text.strip()
        if isinstance(item, exp.Alias) and not _ends_with_alias(text, item.alias):
            # An alias mysql-mimic gave a value it substituted, as in DATABASE().
            named.append(exp.alias_(item.this, exp.to_identifier(text, quoted=True)))
        elif isinstance(item, (exp.Alias, exp.Column, exp.Star)) or (
            isinstance(item, exp.Literal) and item.is_string
        ):
            named.append(item)
        else:
            named.append(exp.alias_(item, exp.to_identifier(text, quoted=True)))
    select.set("expressions", named)


def _ends_with_alias(text: str, alias: str) -> bool:
    return text.rstrip("`\"' ").endswith(alias)


def _origins(statement: exp.Expression, tables: Mapping[str, Table]) -> list[tuple[str, str, str]]:
    select = statement.this if isinstance(statement, exp.Subquery) else statement
    if not isinstance(select, exp.Select):
        return []
    aliases: dict[str, str] = {}
    from_ = select.args.get("from_")
    sources = [from_.this] if isinstance(from_, exp.From) else []
    sources += [j.this for j in select.args.get("joins") or ()]
    for source in sources:
        if isinstance(source, exp.Table) and source.name in tables:
            aliases[source.alias_or_name] = source.name
    only = next(iter(aliases.items())) if len(aliases) == 1 else None
    origins = []
    for item in select.expressions:
        column = item.this if isinstance(item, exp.Alias) else item
        origin = ("", "", "")
        if isinstance(column, exp.Column) and not isinstance(column.this, exp.Star):
            alias = column.table or (only[0] if only else "")
            table_name = aliases.get(alias)
            if table_name is not None:
                defined = tables[table_name].column(column.name)
                if defined is not None:
                    origin = (alias, table_name, defined.name)
        origins.append(origin)
    return origins


def _adapt_for_sqlite(statement: exp.Expression) -> None:
    for like in list(statement.find_all(exp.Like)):
        if not isinstance(like.parent, exp.Escape):
            like.replace(exp.Escape(this=like.copy(), expression=exp.Literal.string("\\")))
    for trunc in list(statement.find_all(exp.Trunc)):
        decimals = trunc.args.get("decimals") or exp.Literal.number(0)
        trunc.replace(
            exp.Anonymous(this="mysql_truncate", expressions=[trunc.this.copy(), decimals.copy()])
        )
    for concat in list(statement.find_all(exp.GroupConcat)):
        order = concat.this
        if not isinstance(order, exp.Order):
            continue
        if sqlite3.sqlite_version_info < _AGGREGATE_ORDER_SINCE:
            concat.set("this", order.this.copy())
            continue
        for ordered in order.expressions:
            key = ordered.this
            if isinstance(key, exp.Literal) and key.is_int and int(key.this) == 1:
                ordered.set("this", order.this.copy())


def _type_from_values(rows: Sequence[Sequence[object]], index: int) -> SqlType:
    for row in rows:
        if row[index] is not None:
            return type_of_value(row[index])
    return NULL


def _converter(column_type: SqlType) -> Callable[[object], object] | None:
    if column_type.kind is Kind.INT:
        return to_int
    if column_type.kind is Kind.DOUBLE:
        return to_float
    if column_type.kind is Kind.STRING:
        return to_text
    if column_type.kind is Kind.DECIMAL:
        scale = column_type.scale
        return lambda v: None if v is None else format_decimal(v, scale)
    return None


def _convert(
    rows: list[tuple[object, ...]], types: Sequence[SqlType], trusted: set[int]
) -> list[tuple[object, ...]]:
    converters = [(i, _converter(t)) for i, t in enumerate(types) if i not in trusted]
    active = [(i, c) for i, c in converters if c is not None and _needs(rows, i, types[i])]
    if not active:
        return rows
    converted = []
    for row in rows:
        values = list(row)
        for i, convert in active:
            values[i] = convert(values[i])
        converted.append(tuple(values))
    return converted


_PYTHON_TYPES: dict[Kind, type] = {Kind.INT: int, Kind.DOUBLE: float, Kind.STRING: str}


def _needs(rows: Sequence[Sequence[object]], index: int, column_type: SqlType) -> bool:
    expected = _PYTHON_TYPES.get(column_type.kind)
    if expected is None:
        return True
    return any(row[index] is not None and type(row[index]) is not expected for row in rows)
