"""MySQL errors of the simulated SQL node: real codes, SQLSTATEs and message texts."""

from __future__ import annotations

from mysql_mimic.errors import MysqlError, get_sqlstate

_SQLSTATES = {
    1036: "HY000",
    1044: "42000",
    1045: "28000",
    1046: "3D000",
    1049: "42000",
    1052: "23000",
    1054: "42S22",
    1064: "42000",
    1111: "HY000",
    1142: "42000",
    1146: "42S02",
    1193: "HY000",
    1228: "HY000",
    1229: "HY000",
    1231: "42000",
    1235: "42000",
    1238: "HY000",
    1248: "42000",
    1296: "HY000",
    1305: "42000",
    1356: "HY000",
}

OFFLINE_NOTE = (
    "'NDBINFO' has been started in offline mode since the 'NDBCLUSTER' engine is disabled "
    "or @@global.ndbinfo_offline is turned on - no rows can be returned"
)
"""Text of the Note (code 1) a table opened in offline mode adds (ha_ndbinfo.cc)."""


def sqlstate(code: int) -> bytes:
    """The SQLSTATE MySQL sends with error ``code``."""
    state = _SQLSTATES.get(code)
    if state is not None:
        return state.encode("ascii")
    try:
        return get_sqlstate(code)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return b"HY000"


class SqlNodeError(MysqlError):
    """A MySQL error with a code mysql-mimic's ``ErrorCode`` does not list."""

    def __init__(self, code: int, msg: str) -> None:
        super().__init__(msg)
        self.code = code  # type: ignore[assignment]
        self.msg = msg

    def __str__(self) -> str:
        return f"{self.code}: {self.msg}"


def no_such_table(db: str, table: str) -> SqlNodeError:
    """ERROR 1146 (42S02)."""
    return SqlNodeError(1146, f"Table '{db}.{table}' doesn't exist")


def no_database_selected() -> SqlNodeError:
    """ERROR 1046 (3D000)."""
    return SqlNodeError(1046, "No database selected")


def unknown_database(db: str) -> SqlNodeError:
    """ERROR 1049 (42000)."""
    return SqlNodeError(1049, f"Unknown database '{db}'")


def access_denied(user: str, host: str, using_password: bool) -> str:
    """Text of ERROR 1045 (28000), refused login."""
    answer = "YES" if using_password else "NO"
    return f"Access denied for user '{user}'@'{host}' (using password: {answer})"


def table_access_denied(user: str, host: str, table: str) -> SqlNodeError:
    """ERROR 1142 (42000): no SELECT privilege on a base table."""
    return SqlNodeError(
        1142, f"SELECT command denied to user '{user}'@'{host}' for table '{table}'"
    )


def view_invalid(db: str, view: str) -> SqlNodeError:
    """ERROR 1356 (HY000): the invoker may not read what the view reads (ndbinfo.md §1.3)."""
    return SqlNodeError(
        1356,
        f"View '{db}.{view}' references invalid table(s) or column(s) or function(s) "
        "or definer/invoker of view lack rights to use them",
    )


def ndb_connection_failed() -> SqlNodeError:
    """ERROR 1296 (HY000): the scan found no data node (HA_ERR_NO_CONNECTION)."""
    return SqlNodeError(1296, "Got error 157 'Connection to NDB failed' from NDBINFO")


def read_only_table(table: str) -> SqlNodeError:
    """ERROR 1036 (HY000): every ndbinfo table refuses changes."""
    return SqlNodeError(1036, f"Table '{table}' is read only")


def unknown_column(column: str, clause: str) -> SqlNodeError:
    """ERROR 1054 (42S22)."""
    return SqlNodeError(1054, f"Unknown column '{column}' in '{clause}'")


def ambiguous_column(column: str, clause: str) -> SqlNodeError:
    """ERROR 1052 (23000)."""
    return SqlNodeError(1052, f"Column '{column}' in {clause} is ambiguous")


def syntax_error(near: str, line: int = 1) -> SqlNodeError:
    """ERROR 1064 (42000)."""
    return SqlNodeError(
        1064,
        "You have an error in your SQL syntax; check the manual that corresponds to your "
        f"MySQL server version for the right syntax to use near '{near}' at line {line}",
    )


def unknown_variable(name: str) -> SqlNodeError:
    """ERROR 1193 (HY000)."""
    return SqlNodeError(1193, f"Unknown system variable '{name}'")


def global_only_variable(name: str) -> SqlNodeError:
    """ERROR 1229 (HY000): a GLOBAL variable set at session scope."""
    return SqlNodeError(
        1229, f"Variable '{name}' is a GLOBAL variable and should be set with SET GLOBAL"
    )


def read_only_variable(name: str) -> SqlNodeError:
    """ERROR 1238 (HY000)."""
    return SqlNodeError(1238, f"Variable '{name}' is a read only variable")


def wrong_value(name: str, value: object) -> SqlNodeError:
    """ERROR 1231 (42000)."""
    return SqlNodeError(1231, f"Variable '{name}' can't be set to the value of '{value}'")


def not_supported(what: str) -> SqlNodeError:
    """ERROR 1235 (42000)."""
    return SqlNodeError(1235, f"This version of MySQL doesn't yet support '{what}'")


def derived_table_without_alias() -> SqlNodeError:
    """ERROR 1248 (42000): a derived table (``FROM (SELECT ...)``) needs a name."""
    return SqlNodeError(1248, "Every derived table must have its own alias")
