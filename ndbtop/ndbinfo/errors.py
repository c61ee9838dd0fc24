"""Typed SQL-node errors with one-line messages, mapped from MySQL error codes.

Two families: errors about the connection or the whole server (the caller closes
and reconnects with backoff), and :class:`SqlTableError` about one table (missing
privilege, missing table or column), which only makes that panel unavailable.
Messages name the user, host and table but never the password.
"""

from __future__ import annotations

import re
import socket
import ssl
from dataclasses import dataclass

import pymysql

from ndbtop.compat import SLOTS, TIMEOUT_ERRORS
from ndbtop.errors import SqlError

NDB_NO_CONNECTION = frozenset({157, 4009})
"""NDB errors carried in ERROR 1296 when the cluster is unreachable: HA_ERR_NO_CONNECTION
("Connection to NDB failed") and 4009 ("Cluster Failure")."""

_USER_HOST = re.compile(r"user '([^']*)'@'([^']*)'")
_PASSWORD_USED = re.compile(r"using password: (YES|NO)")
_TABLE_IN_MESSAGE = re.compile(r"[Tt]able '([^'.]+)\.([^']+)'")
_COLUMN = re.compile(r"Unknown column '([^']+)'")
_NDB_ERROR = re.compile(r"Got error (-?[0-9]{1,20}) '([^']*)' from (\w+)")


class SqlConnectError(SqlError):
    """No connection to the SQL node: refused, unreachable, or no such socket (2002/2003)."""


class SqlUnknownHost(SqlConnectError):
    """The SQL node's host name does not resolve (2005)."""


class SqlTimeout(SqlError):
    """The SQL node did not answer within the connect or read timeout."""


class SqlConnectionLost(SqlError):
    """An open connection broke (2006/2013), or there is none."""


class SqlAccessDenied(SqlError):
    """The server refused the login (1045)."""


class NdbinfoUnavailable(SqlError):
    """The server has no ``ndbinfo`` database: not an NDB Cluster SQL node (1049)."""


class ClusterNotConnected(SqlError):
    """The SQL node cannot reach the data nodes (ERROR 1296 with NDB error 157)."""


class SqlServerError(SqlError):
    """Any other error the server returned."""


class SqlTableError(SqlError):
    """A failure reading one table; only the panel that reads it is affected."""

    def __init__(self, message: str, table: str) -> None:
        super().__init__(message)
        self.table = table


class SqlPrivilegeError(SqlTableError):
    """The account may not read a table (1142, 1356) or the database (1044)."""


class SqlMissingTable(SqlTableError):
    """The table does not exist in this server (1146)."""


class SqlUnknownColumn(SqlTableError):
    """A column the query names does not exist in this server's table (1054)."""


class SqlNdbTableError(SqlTableError):
    """The data nodes could not produce one table (ERROR 1296 with another NDB error)."""


class SqlQueryFailed(SqlTableError):
    """The server refused a query on one table with any other server error."""


@dataclass(frozen=True, **SLOTS)
class ErrorContext:
    """What a message may name: the server, the account and the table being read."""

    target: str
    user: str
    account: str | None = None
    """The account as the server matched it (``'u'@'h'``, from ``CURRENT_USER()``)."""
    table: str | None = None
    connect_timeout: float = 0.0
    read_timeout: float = 0.0


def map_error(exc: BaseException, context: ErrorContext) -> SqlError:
    """The typed error for an exception raised by pymysql (or the socket layer)."""
    if isinstance(exc, SqlError):
        return exc
    if isinstance(exc, pymysql.err.MySQLError):
        code, message = _code_and_message(exc)
        original = getattr(exc, "original_exception", None)
        if original is None and isinstance(exc.__context__, OSError):
            original = exc.__context__
        return _from_code(exc, code, message, original, context)
    if isinstance(exc, OSError):
        return _from_os_error(exc, context)
    return SqlServerError(
        f"SQL node at {context.target}: {_one_line(str(exc)) or type(exc).__name__}"
    )


def _code_and_message(exc: pymysql.err.MySQLError) -> tuple[int, str]:
    args = exc.args
    if len(args) >= 2 and isinstance(args[0], int):
        return args[0], _one_line(str(args[1]))
    if len(args) == 1:
        return 0, _one_line(str(args[0]))
    return 0, ""


def _from_code(
    exc: pymysql.err.MySQLError,
    code: int,
    message: str,
    original: BaseException | None,
    context: ErrorContext,
) -> SqlError:
    target = context.target
    if code == 1045:
        user, host = _user_host(message, context)
        used = _PASSWORD_USED.search(message)
        hint = "no password given" if used and used.group(1) == "NO" else "wrong password?"
        return SqlAccessDenied(f"access denied for user '{user}'@'{host}' ({hint})")
    if code == 1044:
        return SqlPrivilegeError(
            f"no privilege on the ndbinfo database (needs {grant_statement(context, message)})",
            "ndbinfo",
        )
    if code in (1142, 1356):
        table = context.table or _table(message) or "ndbinfo"
        return SqlPrivilegeError(
            f"no SELECT privilege on ndbinfo.{table} (needs {grant_statement(context, message)})",
            table,
        )
    if code == 1146:
        table = context.table or _table(message) or "?"
        return SqlMissingTable(f"table ndbinfo.{table} does not exist on this SQL node", table)
    if code == 1054:
        table = context.table or "?"
        column = _COLUMN.search(message)
        name = column.group(1) if column else "?"
        return SqlUnknownColumn(f"unknown column '{name}' in ndbinfo.{table}", table)
    if code == 1049:
        return NdbinfoUnavailable(
            f"the server at {target} has no ndbinfo database (not an NDB Cluster SQL node?)"
        )
    if code == 1296:
        ndb = _NDB_ERROR.search(message)
        if ndb is None or int(ndb.group(1)) in NDB_NO_CONNECTION:
            return ClusterNotConnected("the SQL node is not connected to the data nodes")
        table = context.table or "?"
        return SqlNdbTableError(
            f"NDB error {ndb.group(1)} '{ndb.group(2)}' reading ndbinfo.{table}", table
        )
    if code == 2005:
        return SqlUnknownHost(f"unknown SQL node host '{_host_of(target)}'")
    if code in (2002, 2003):
        if isinstance(original, OSError):
            return _from_os_error(original, context)
        return SqlConnectError(f"cannot connect to the SQL node at {target}")
    if code in (2006, 2013) or isinstance(exc, pymysql.err.InterfaceError):
        if isinstance(original, TIMEOUT_ERRORS):
            return SqlTimeout(
                f"the SQL node at {target} did not answer within {context.read_timeout:g} s"
            )
        return SqlConnectionLost(f"lost the connection to the SQL node at {target}")
    text = f": {message}" if message else ""
    if context.table and _is_server_side(code):
        table = context.table
        return SqlQueryFailed(f"SQL node error {code} reading ndbinfo.{table}{text}", table)
    return SqlServerError(f"SQL node error {code}{text}" if code else f"SQL node error{text}")


def _is_server_side(code: int) -> bool:
    """Whether ``code`` is a server error about the statement (MySQL numbers client-side
    errors, which concern the connection, from 2000 to 2999)."""
    return 1000 <= code < 2000 or code >= 3000


def _from_os_error(exc: OSError, context: ErrorContext) -> SqlError:
    target = context.target
    if isinstance(exc, socket.gaierror):
        return SqlUnknownHost(f"unknown SQL node host '{_host_of(target)}'")
    if isinstance(exc, TIMEOUT_ERRORS):
        return SqlTimeout(
            f"no answer from the SQL node at {target} within {context.connect_timeout:g} s"
        )
    if isinstance(exc, ssl.SSLError):
        detail = getattr(exc, "verify_message", None) or getattr(exc, "reason", None)
        detail = detail or "handshake failed"
        return SqlConnectError(f"TLS with the SQL node at {target} failed: {detail}")
    if isinstance(exc, ConnectionRefusedError):
        reason = "no server is listening" if target.startswith("socket ") else "connection refused"
    elif isinstance(exc, FileNotFoundError):
        reason = "no such socket file"
    elif isinstance(exc, PermissionError):
        reason = "permission denied"
    else:
        reason = (exc.strerror or str(exc) or type(exc).__name__).lower()
    return SqlConnectError(f"cannot connect to the SQL node at {target}: {reason}")


def grant_statement(context: ErrorContext, message: str = "") -> str:
    """``GRANT SELECT ON ndbinfo.* TO 'u'@'h'`` for the account that was refused."""
    account = context.account
    if account is None:
        user, host = _user_host(message, context, default_host="%")
        account = f"'{user}'@'{host}'"
    return f"GRANT SELECT ON ndbinfo.* TO {account}"


def quote_account(current_user: str) -> str:
    """``'u'@'h'`` from ``CURRENT_USER()``'s ``u@h`` (``'u'@'%'`` when no host is given)."""
    user, sep, host = current_user.rpartition("@")
    if not sep:
        return f"'{current_user}'@'%'"
    return f"'{user}'@'{host}'"


def _user_host(
    message: str, context: ErrorContext, default_host: str | None = None
) -> tuple[str, str]:
    found = _USER_HOST.search(message)
    if found:
        return found.group(1), found.group(2)
    host = default_host if default_host is not None else _host_of(context.target)
    return context.user, host


def _table(message: str) -> str | None:
    found = _TABLE_IN_MESSAGE.search(message)
    if found:
        return found.group(2)
    for pattern in (r"table '([^']+)'", r"table `[^`]+`\.`([^`]+)`", r"View '[^'.]+\.([^']+)'"):
        match = re.search(pattern, message)
        if match:
            return match.group(1)
    return None


def _host_of(target: str) -> str:
    if target.startswith("socket "):
        return "localhost"
    host = target.rsplit(":", 1)[0]
    return host.removeprefix("[").removesuffix("]")


def _one_line(text: str) -> str:
    return " ".join(text.split())
