"""The replication statements a simulated SQL node answers, by its version: from the
provider's replication side when it has one (:class:`~ndbtop.sim.sqlnode.replication.
ReplicationSide`), else as a SQL node with no binary log and no replica channel does."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from sqlglot import exp

from ndbtop.sim.sqlnode import errors
from ndbtop.sim.sqlnode.provider import NdbinfoProvider, Row
from ndbtop.sim.sqlnode.replication import (
    REPLICA_COLUMNS,
    ReplicationSide,
    slave_column,
    system_table,
    takes,
)
from ndbtop.sim.sqlnode.schema import Table

_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)
_STATUS = re.compile(r"SHOW (GLOBAL |SESSION )?STATUS\b")
BINLOG_STATUS_NAMES = ("File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB",
                       "Executed_Gtid_Set")
MARIADB_ONLY = ("SHOW BINLOG STATUS", "SHOW ALL SLAVES STATUS", "SHOW ALL REPLICAS STATUS")


def side_of(provider: NdbinfoProvider) -> ReplicationSide | None:
    """The provider's replication side, if it plays one."""
    side = getattr(provider, "replication", None)
    return side if isinstance(side, ReplicationSide) else None


@functools.cache
def status_table() -> Table:
    """``SHOW STATUS``'s two columns, as a table a SELECT can filter."""
    return system_table("global_status", (("Variable_name", "varchar(64)"),
                                    ("Value", "varchar(1024)")))


def _statement(sql: str) -> str:
    return " ".join(_COMMENT.sub(" ", sql).split()).upper().rstrip(";")


def replication_command(sql: str) -> exp.Command | None:
    """The statements sqlglot does not parse (and would warn about on stderr), as the
    command they are: ``SHOW BINARY LOG STATUS``, and MariaDB's own."""
    statement = _statement(sql)
    if statement == "SHOW BINARY LOG STATUS" or statement in MARIADB_ONLY:
        return exp.Command(this="SHOW", expression=exp.Literal.string(statement[4:]))
    return None


def replication_show(provider: NdbinfoProvider, expression: exp.Expression, sql: str
                     ) -> tuple[tuple[str, ...], list[tuple[object, ...]]] | None:
    """The answer to a replication SHOW statement (None: not one of them)."""
    statement = _statement(sql)
    if not statement.startswith("SHOW "):
        return None
    side = side_of(provider)
    if _STATUS.match(statement):
        return ("Variable_name", "Value"), list(side.status() if side else [])
    if statement in MARIADB_ONLY or statement.startswith("SHOW BINLOG STATUS"):
        raise errors.syntax_error(statement[5:40])
    for form in ("SHOW BINARY LOG STATUS", "SHOW MASTER STATUS"):
        if statement == form:
            if not takes(provider.ndb_version, form):
                raise errors.syntax_error(statement[5:40])
            return side.binlog_status() if side else (BINLOG_STATUS_NAMES, [])
    for form in ("SHOW REPLICA STATUS", "SHOW SLAVE STATUS"):
        if statement == form:
            if not takes(provider.ndb_version, form):
                raise errors.syntax_error(statement[5:40])
            old = form == "SHOW SLAVE STATUS"
            if side is not None:
                return side.replica_status(old)
            return tuple(slave_column(c) if old else c for c in REPLICA_COLUMNS), []
    if statement.startswith("SHOW BINLOG EVENTS") and isinstance(expression, exp.Show):
        log = expression.args.get("log")
        position = expression.args.get("position")
        limit = expression.args.get("limit")
        answer = side.binlog_events(
            log.name if log is not None else "",
            int(position.name) if position is not None else None,
            int(limit.name) if limit is not None else 1000) if side else "Could not find target log"
        if isinstance(answer, str):
            raise errors.SqlNodeError(1220, f"Error when executing command SHOW BINLOG EVENTS: "
                                            f"{answer}")
        return answer
    return None


def replication_tables(provider: NdbinfoProvider
                       ) -> dict[tuple[str, str], tuple[Table, Sequence[Row]]]:
    """The replication tables outside ndbinfo, by (database, table), lower case."""
    side = side_of(provider)
    return {} if side is None else dict(side.tables())
