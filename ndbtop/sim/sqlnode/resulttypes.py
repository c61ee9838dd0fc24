"""Names and MySQL types of a SELECT's result columns.

This module resolves what a query's columns refer to (tables, derived tables,
CTEs, outer queries, select-list aliases) and names the columns as MySQL does;
:mod:`~ndbtop.sim.sqlnode.exprtypes` holds the type rules it applies to each.
A type that cannot be worked out is ``None``; the caller then falls back to the
Python type of the computed values.

:func:`describe_query` also rewrites ``*`` and ``t.*`` into explicit column
lists, because MySQL's column order and names, not SQLite's, must come out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sqlglot import exp

from ndbtop.compat import SLOTS, zip_strict
from ndbtop.sim.sqlnode.exprtypes import (
    GROUP_CONCAT_MAX_LEN_DEFAULT,
    SESSION_GROUP_CONCAT_MAX_LEN,
    expression_type,
    merge_types,
)
from ndbtop.sim.sqlnode.schema import Table
from ndbtop.sim.sqlnode.sqltypes import SqlType


@dataclass(frozen=True, **SLOTS)
class OutputColumn:
    """One result column: its name as MySQL reports it, and its type if known."""

    name: str
    type: SqlType | None


@dataclass(frozen=True, **SLOTS)
class Relation:
    """The columns a FROM item offers, in order, with their types."""

    names: tuple[str, ...]
    types: tuple[SqlType | None, ...]

    def find(self, name: str) -> tuple[bool, SqlType | None]:
        """Whether a column of that name (any case) exists, and its type."""
        lowered = name.lower()
        for n, t in zip_strict(self.names, self.types):
            if n.lower() == lowered:
                return True, t
        return False, None

    @classmethod
    def of_table(cls, table: Table) -> Relation:
        """The relation of an ``ndbinfo`` table."""
        return cls(tuple(c.name for c in table.columns), tuple(c.type for c in table.columns))

    @classmethod
    def of_outputs(cls, outputs: Sequence[OutputColumn]) -> Relation:
        """The relation of a derived table or CTE."""
        return cls(tuple(o.name for o in outputs), tuple(o.type for o in outputs))


@dataclass(**SLOTS)
class _Scope:
    sources: dict[str, Relation | None]
    parent: _Scope | None
    aliases: dict[str, SqlType | None] = field(default_factory=dict)

    def column_type(self, column: exp.Column) -> SqlType | None:
        scope: _Scope | None = self
        qualifier = column.table
        name = column.name
        while scope is not None:
            if qualifier:
                relation = scope.sources.get(qualifier)
                if qualifier in scope.sources:
                    return relation.find(name)[1] if relation is not None else None
            else:
                matches = [r.find(name) for r in scope.sources.values() if r is not None]
                found = [t for ok, t in matches if ok]
                if len(found) == 1:
                    return found[0]
                if found:
                    return None
                if name.lower() in scope.aliases:
                    return scope.aliases[name.lower()]
            scope = scope.parent
        return None


def describe_query(
    query: exp.Expression,
    tables: Mapping[str, Table],
    group_concat_max_len: int = GROUP_CONCAT_MAX_LEN_DEFAULT,
) -> list[OutputColumn] | None:
    """The result columns of ``query``, expanding its stars in place.

    ``tables`` maps the names used in the query (database qualifiers already
    removed) to their ``ndbinfo`` tables. ``None`` when the column list itself
    is unknown, which happens only for a star over something not understood.
    ``GROUP_CONCAT`` is typed by the session's ``group_concat_max_len``.
    """
    token = SESSION_GROUP_CONCAT_MAX_LEN.set(group_concat_max_len)
    try:
        return _describe(query, tables, None, {})
    finally:
        SESSION_GROUP_CONCAT_MAX_LEN.reset(token)


def _describe(
    query: exp.Expression,
    tables: Mapping[str, Table],
    outer: _Scope | None,
    ctes: Mapping[str, Relation | None],
) -> list[OutputColumn] | None:
    if isinstance(query, exp.Subquery):
        return _describe(query.this, tables, outer, ctes)
    if isinstance(query, exp.SetOperation):
        left = _describe(query.left, tables, outer, ctes)
        right = _describe(query.right, tables, outer, ctes)
        if left is None or right is None or len(left) != len(right):
            return left
        return [
            OutputColumn(a.name, merge_types([a.type, b.type]))
            for a, b in zip_strict(left, right)
        ]
    if not isinstance(query, exp.Select):
        return None

    visible = dict(ctes)
    with_ = query.args.get("with_") or query.args.get("with")
    if isinstance(with_, exp.With):
        for cte in with_.expressions:
            visible[cte.alias] = None
            outputs = _describe(cte.this, tables, outer, visible)
            visible[cte.alias] = None if outputs is None else Relation.of_outputs(outputs)

    scope = _Scope(sources={}, parent=outer)
    for source in _from_items(query):
        alias = source.alias_or_name
        if isinstance(source, exp.Table):
            if not source.args.get("db") and source.name in visible:
                scope.sources[alias] = visible[source.name]
            elif source.name in tables:
                scope.sources[alias] = Relation.of_table(tables[source.name])
            else:
                scope.sources[alias] = None
        elif isinstance(source, exp.Subquery):
            outputs = _describe(source.this, tables, outer, visible)
            scope.sources[alias] = None if outputs is None else Relation.of_outputs(outputs)

    if not _expand_stars(query, scope):
        return None

    outputs = []
    for item in query.expressions:
        item_type = _type_of(item, scope, tables, visible)
        outputs.append(OutputColumn(_name_of(item), item_type))
        if isinstance(item, exp.Alias):
            scope.aliases.setdefault(item.alias.lower(), item_type)
    return outputs


def _from_items(select: exp.Select) -> Iterable[exp.Expression]:
    from_ = select.args.get("from_") or select.args.get("from")
    if isinstance(from_, exp.From):
        yield from_.this
    for join in select.args.get("joins") or ():
        yield join.this


def _expand_stars(select: exp.Select, scope: _Scope) -> bool:
    expanded: list[exp.Expression] = []
    changed = False
    for item in select.expressions:
        if isinstance(item, exp.Star):
            aliases = list(scope.sources)
        elif isinstance(item, exp.Column) and isinstance(item.this, exp.Star):
            aliases = [item.table]
        else:
            expanded.append(item)
            continue
        for alias in aliases:
            relation = scope.sources.get(alias)
            if relation is None:
                return False
            expanded.extend(exp.column(n, table=alias, quoted=True) for n in relation.names)
        changed = True
    if changed:
        select.set("expressions", expanded)
    return True


def _name_of(item: exp.Expression) -> str:
    if isinstance(item, exp.Alias):
        return item.alias
    if isinstance(item, exp.Column):
        return item.name
    if isinstance(item, exp.Literal) and item.is_string:
        return item.this
    return item.sql(dialect="mysql")


def _type_of(
    e: exp.Expression,
    scope: _Scope,
    tables: Mapping[str, Table],
    ctes: Mapping[str, Relation | None],
) -> SqlType | None:
    def subquery_type(query: exp.Expression) -> SqlType | None:
        outputs = _describe(query, tables, scope, ctes)
        return outputs[0].type if outputs else None

    return expression_type(e, scope.column_type, subquery_type)
