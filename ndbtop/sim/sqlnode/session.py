"""One client session of the simulated SQL node: statements in, MySQL answers out.

mysql-mimic parses each statement and passes it down a chain of middlewares.
This session keeps mysql-mimic's handling of ``SET NAMES``, ``USE``, ``KILL``,
transactions and ``information_schema``, and adds its own for SELECTs over
``ndbinfo``, ``SET`` of system variables, ``SHOW TABLES``, ``SHOW VARIABLES``,
``SHOW WARNINGS`` and the errors a real server gives.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from mysql_mimic.constants import INFO_SCHEMA
from mysql_mimic.errors import MysqlError
from mysql_mimic.intercept import expression_to_value, value_to_expression
from mysql_mimic.results import AllowedResult, ResultColumn, ResultSet
from mysql_mimic.schema import BaseInfoSchema, InfoSchema
from mysql_mimic.session import Query, Session
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from ndbtop.compat import SLOTS, zip_strict
from ndbtop.sim.sqlnode import errors
from ndbtop.sim.sqlnode.engine import QueryResult, referenced_tables, run_select
from ndbtop.sim.sqlnode.lookups import built_in_rows
from ndbtop.sim.sqlnode.protocol import (
    Account,
    ColumnOrigin,
    DescribedResults,
    ResultMeta,
    result_column,
)
from ndbtop.sim.sqlnode.provider import NdbinfoProvider, Row
from ndbtop.sim.sqlnode.replication_show import (
    replication_command,
    replication_show,
    replication_tables,
    status_table,
)
from ndbtop.sim.sqlnode.schema import DATABASE, Table, tables_for_version
from ndbtop.sim.sqlnode.sqltypes import INT_UNSIGNED, string
from ndbtop.sim.sqlnode.stats import StatsRecorder
from ndbtop.sim.sqlnode.variables import GLOBAL_ONLY, ServerVariables, SessionValues, shown

_SHOW_DIAGNOSTICS = {"WARNINGS", "ERRORS"}
_WRITES = (exp.Insert, exp.Update, exp.Delete, exp.TruncateTable)


@dataclass(frozen=True, **SLOTS)
class Diagnostic:
    """One row of ``SHOW WARNINGS``."""

    level: str
    code: int
    message: str


class SqlNodeState:
    """What every session of one SQL node shares."""

    def __init__(
        self,
        provider: NdbinfoProvider,
        accounts: Mapping[str, Account],
        variables: ServerVariables,
        stats: StatsRecorder,
    ) -> None:
        self.provider = provider
        self.accounts = accounts
        self.variables = variables
        self.stats = stats
        self.tables: Mapping[str, Table] = tables_for_version(provider.ndb_version)
        self._info_schemas: dict[tuple[bool, frozenset[str] | None], InfoSchema] = {}

    def info_schema(self, show_hidden: bool, granted: frozenset[str] | None) -> InfoSchema:
        """``information_schema`` as an account sees it (cached)."""
        key = (show_hidden, granted)
        cached = self._info_schemas.get(key)
        if cached is None:
            mapping = {
                DATABASE: {
                    t.name: {c.name: c.declared for c in t.columns}
                    for t in self.tables.values()
                    if (show_hidden or not t.is_hidden) and (granted is None or t.name in granted)
                }
            }
            cached = InfoSchema.from_mapping(mapping)
            self._info_schemas[key] = cached
        return cached


class NdbinfoSession(Session):
    """A session serving the ``ndbinfo`` database of one simulated SQL node."""

    def __init__(self, state: SqlNodeState, described: DescribedResults) -> None:
        super().__init__(variables=SessionValues(state.variables))
        self.state = state
        self.described = described
        self.warnings: list[Diagnostic] = []
        self.middlewares = [
            self._entry_middleware,
            self._diagnostics_middleware,
            self._variables_middleware,
            self._set_var_middleware,
            self._set_middleware,
            self._select_middleware,
            self._replication_middleware,
            self._use_middleware,
            self._kill_middleware,
            self._show_middleware,
            self._describe_middleware,
            self._begin_middleware,
            self._commit_middleware,
            self._rollback_middleware,
            self._info_schema_middleware,
        ]

    # Accounts and privileges.

    @property
    def account(self) -> Account:
        """The logged-in account (an account with no grants if unknown)."""
        return self.state.accounts.get(self.username or "", Account(tables=frozenset()))

    @property
    def client_host(self) -> str:
        """The host part of ``'user'@'host'``."""
        try:
            connection = self.connection
        except AttributeError:
            return "localhost"
        return getattr(connection, "client_host", "localhost")

    def _check_privilege(self, table: Table) -> None:
        granted = self.account.tables
        if granted is None or table.name in granted:
            return
        if table.is_view:
            raise errors.view_invalid(DATABASE, table.name)
        raise errors.table_access_denied(self.username or "", self.client_host, table.name)

    # Middlewares.

    def _parse(self, sql: str) -> list[exp.Expression]:
        command = replication_command(sql)
        if command is not None:
            return [command]
        try:
            return super()._parse(sql)
        except (ParseError, TokenError) as e:
            self.state.stats.statements += 1
            self.state.stats.errors += 1
            error = errors.syntax_error(_near(sql, e))
            self.warnings = [Diagnostic("Error", int(error.code), error.msg)]
            raise error from e

    async def _entry_middleware(self, q: Query) -> AllowedResult:
        # mysql-mimic's Query.start() runs the first middleware twice (once from
        # start(), once from its next()), so the first one must do nothing.
        return await q.next()

    async def _diagnostics_middleware(self, q: Query) -> AllowedResult:
        self.state.stats.statements += 1
        expression = q.expression
        if not (isinstance(expression, exp.Show) and expression.name.upper() in _SHOW_DIAGNOSTICS):
            self.warnings = []
        try:
            return await q.next()
        except MysqlError as e:
            self.state.stats.errors += 1
            self.warnings = [Diagnostic("Error", int(e.code), e.msg)]
            raise

    async def _variables_middleware(self, q: Query) -> AllowedResult:
        # Unknown @@names fail as in MySQL; @@global.x reads the global value,
        # which mysql-mimic's own substitution (session values only) would not.
        if not isinstance(q.expression, exp.Set):
            schema = self.variables.schema
            for parameter in list(q.expression.find_all(exp.SessionParameter)):
                name = parameter.name.lower()
                if name not in schema:
                    raise errors.unknown_variable(parameter.name)
                if parameter.text("kind").upper() != "GLOBAL":
                    continue
                value = value_to_expression(self.state.variables.get_variable(name))
                if isinstance(parameter.parent, exp.Select) and parameter.arg_key == "expressions":
                    label = exp.to_identifier(parameter.sql(dialect="mysql"), quoted=True)
                    value = exp.alias_(value, label)
                parameter.replace(value)
        return await q.next()

    async def _select_middleware(self, q: Query) -> AllowedResult:
        expression = q.expression
        if not isinstance(expression, (exp.Select, exp.SetOperation, exp.Subquery)):
            return await q.next()
        references = referenced_tables(expression)
        databases = [r.text("db") or self.database or "" for r in references]
        system = replication_tables(self.state.provider)
        if references and all(db.lower() in INFO_SCHEMA for db in databases) and not any(
                (db.lower(), r.name.lower()) in system for r, db in zip(references, databases)):
            return await q.next()
        return self._select(expression, q.sql, references, databases)

    async def query(
        self, expression: exp.Expression, sql: str, attrs: dict[str, str]
    ) -> AllowedResult:
        """Statements no middleware handled: ndbinfo refuses writes, the rest is unsupported."""
        if isinstance(expression, _WRITES):
            for reference in referenced_tables(expression):
                if reference.name in self.state.tables:
                    raise errors.read_only_table(reference.name)
        raise errors.not_supported(type(expression).__name__.upper())

    async def use(self, database: str) -> None:
        """``USE db``: only ``ndbinfo`` and ``information_schema`` exist."""
        if database != DATABASE and database.lower() not in INFO_SCHEMA:
            raise errors.unknown_database(database)
        self.database = database

    async def schema(self) -> BaseInfoSchema:
        """``information_schema`` for ``SHOW DATABASES``, ``SHOW COLUMNS`` and queries."""
        show_hidden = bool(self.variables.get("ndbinfo_show_hidden"))
        return self.state.info_schema(show_hidden, self.account.tables)

    # SELECT.

    def _select(
        self,
        expression: exp.Expression,
        sql: str,
        references: Sequence[exp.Table],
        databases: Sequence[str],
    ) -> ResultSet:
        tables: dict[str, Table] = {}
        system: dict[str, Sequence[Row]] = {}
        for reference, database in zip_strict(references, databases):
            if not database:
                raise errors.no_database_selected()
            if database != DATABASE:
                found = replication_tables(self.state.provider).get(
                    (database.lower(), reference.name.lower()))
                if found is None:
                    raise errors.no_such_table(database, reference.name)
                tables[found[0].name], system[found[0].name] = found
                continue
            table = self.state.tables.get(reference.name)
            if table is None:
                raise errors.no_such_table(database, reference.name)
            self._check_privilege(table)
            tables[table.name] = table

        provider = self.state.provider
        offline = bool(self.state.variables.get_variable("ndbinfo_offline"))
        if (
            not offline
            and any(t.reads_data_nodes for t in tables.values())
            and provider.alive_data_nodes() <= 0
        ):
            raise errors.ndb_connection_failed()

        rows: dict[str, Sequence[Row]] = {}
        for name, table in tables.items():
            rows[name] = system[name] if name in system else () if offline else self._rows(table)
        for reference in references:
            self.state.stats.scanned(reference.name, len(rows[reference.name]))
        if offline:
            self.warnings = [Diagnostic("Note", 1, errors.OFFLINE_NOTE) for _ in references]

        max_len = int(self.variables.get("group_concat_max_len"))
        result = run_select(expression, sql, tables, rows, max_len)
        self.state.stats.rows_sent += len(result.rows)
        return self._described(result)

    def _rows(self, table: Table) -> Sequence[Row]:
        rows = self.state.provider.rows(table.name)
        if not rows:
            built_in = built_in_rows(table.name, self.state.provider.ndb_version)
            if built_in is not None:
                return built_in
        return rows

    async def _replication_middleware(self, q: Query) -> AllowedResult:
        """The SHOW statements of replication (:mod:`~ndbtop.sim.sqlnode.replication`)."""
        answer = replication_show(self.state.provider, q.expression, q.sql)
        if answer is None:
            return await q.next()
        names, rows = answer
        if names == ("Variable_name", "Value"):
            return self._status_result(q.expression, rows)
        return self._text_result(list(names), rows)

    def _status_result(self, show: exp.Expression, rows: list[tuple[object, ...]]
                       ) -> ResultSet:
        """``SHOW STATUS [LIKE | WHERE]`` over ``rows``, filtered as a SELECT would be."""
        table = status_table()
        select = exp.select("Variable_name", "Value").from_(table.name)
        where = show.args.get("where")
        like = show.text("like")
        if where is not None:
            select = select.where(where.this)
        elif like:
            select = select.where(exp.Like(this=exp.column("Variable_name"),
                                           expression=exp.Literal.string(like)))
        result = run_select(select, select.sql(dialect="mysql"), {table.name: table},
                            {table.name: rows}, int(self.variables.get("group_concat_max_len")))
        return self._text_result(["Variable_name", "Value"], list(result.rows))

    # SET.

    def _set_variable(self, setitem: exp.SetItem) -> None:
        assignment = setitem.this
        left = assignment.left
        if isinstance(left, exp.SessionParameter):
            scope = left.text("kind") or setitem.text("kind") or "SESSION"
        elif isinstance(left, exp.Parameter):
            raise errors.not_supported("user variables")
        else:
            scope = setitem.text("kind") or "SESSION"
        name = left.name.lower()
        scope = scope.upper()
        schema = self.variables.schema
        if name not in schema:
            raise errors.unknown_variable(left.name)
        if not schema[name][2]:
            raise errors.read_only_variable(name)
        value = expression_to_value(assignment.right)
        if scope in ("SESSION", "LOCAL") and name in GLOBAL_ONLY:
            raise errors.global_only_variable(name)
        target = self.state.variables if scope in ("GLOBAL", "PERSIST") else self.variables
        try:
            target.set(name, value)
        except (TypeError, ValueError) as e:
            raise errors.wrong_value(name, value) from e

    # SHOW.

    async def _show(self, expression: exp.Show) -> AllowedResult:
        kind = expression.name.upper()
        if kind == "TABLES":
            return await self._show_tables(expression)
        return await super()._show(expression)

    async def _show_tables(self, show: exp.Show) -> AllowedResult:
        database = show.text("db") or self.database
        if not database:
            raise errors.no_database_selected()
        if database.lower() in INFO_SCHEMA:
            return await super()._show(show)
        if database != DATABASE:
            raise errors.unknown_database(database)
        show_hidden = bool(self.variables.get("ndbinfo_show_hidden"))
        granted = self.account.tables
        like = show.text("like")
        pattern = like_regex(like, ignore_case=False) if like else None
        visible = [
            t
            for t in self.state.tables.values()
            if (show_hidden or not t.is_hidden)
            and (granted is None or t.name in granted)
            and (pattern is None or pattern.fullmatch(t.name))
        ]
        header = f"Tables_in_{database}" + (f" ({like})" if like else "")
        if show.args.get("full"):
            return self._text_result(
                [header, "Table_type"],
                [(t.name, "VIEW" if t.is_view else "BASE TABLE") for t in visible],
            )
        return self._text_result([header], [(t.name,) for t in visible])

    def _show_variables(self, show: exp.Show) -> AllowedResult:
        if show.args.get("where") is not None:
            raise errors.not_supported("SHOW VARIABLES WHERE")
        source = self.state.variables if show.args.get("global_") else self.variables
        like = show.text("like")
        pattern = like_regex(like, ignore_case=True) if like else None
        rows = [
            (name, shown(source.get_variable(name)))
            for name in sorted(self.variables.schema)
            if pattern is None or pattern.fullmatch(name)
        ]
        return self._text_result(["Variable_name", "Value"], rows)

    def _show_warnings(self, show: exp.Show) -> AllowedResult:
        return self._diagnostics_result(self.warnings)

    def _show_errors(self, show: exp.Show) -> AllowedResult:
        return self._diagnostics_result([d for d in self.warnings if d.level == "Error"])

    def _text_result(self, names: Sequence[str], rows: list[tuple[object, ...]]) -> ResultSet:
        types = tuple(string(512) for _ in names)
        result_set = ResultSet(
            rows=rows, columns=[result_column(n, t) for n, t in zip_strict(names, types)]
        )
        return self.described.describe(result_set, ResultMeta(types))

    def _diagnostics_result(self, diagnostics: Sequence[Diagnostic]) -> ResultSet:
        types = (string(7), INT_UNSIGNED, string(512))
        names = ("Level", "Code", "Message")
        result_set = ResultSet(
            rows=[(d.level, d.code, d.message) for d in diagnostics],
            columns=[result_column(n, t) for n, t in zip_strict(names, types)],
        )
        return self.described.describe(result_set, ResultMeta(types))

    def _described(self, result: QueryResult) -> ResultSet:
        columns: list[ResultColumn] = []
        origins = []
        for info in result.columns:
            columns.append(result_column(info.name, info.type))
            schema = DATABASE if info.org_table else ""
            origins.append(ColumnOrigin(schema, info.table, info.org_table, info.org_name))
        result_set = ResultSet(rows=result.rows, columns=columns)
        meta = ResultMeta(tuple(c.type for c in result.columns), tuple(origins))
        return self.described.describe(result_set, meta)


def like_regex(pattern: str, *, ignore_case: bool) -> re.Pattern[str]:
    """A regular expression matching what SQL ``LIKE pattern`` matches (``\\`` escapes)."""
    parts = []
    escaped = False
    for char in pattern:
        if escaped:
            parts.append(re.escape(char))
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "%":
            parts.append(".*")
        elif char == "_":
            parts.append(".")
        else:
            parts.append(re.escape(char))
    if escaped:
        parts.append(re.escape("\\"))
    return re.compile("".join(parts), re.IGNORECASE | re.DOTALL if ignore_case else re.DOTALL)


def _near(sql: str, error: Exception) -> str:
    details: list[dict[str, Any]] = getattr(error, "errors", None) or []
    if details:
        first = details[0]
        near = f"{first.get('highlight') or ''}{first.get('end_context') or ''}"
        if near:
            return near[:80]
    return sql.strip()[:80]
