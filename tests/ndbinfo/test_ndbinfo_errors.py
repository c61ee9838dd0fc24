"""MySQL errors (as pymysql raises them) mapped to typed one-line errors."""

from __future__ import annotations

import errno
import socket
import ssl
from dataclasses import replace

import pymysql
import pytest

from ndbtop.errors import SqlError
from ndbtop.ndbinfo.errors import (
    ClusterNotConnected,
    ErrorContext,
    NdbinfoUnavailable,
    SqlAccessDenied,
    SqlConnectError,
    SqlConnectionLost,
    SqlMissingTable,
    SqlNdbTableError,
    SqlPrivilegeError,
    SqlQueryFailed,
    SqlServerError,
    SqlTableError,
    SqlTimeout,
    SqlUnknownColumn,
    SqlUnknownHost,
    map_error,
    quote_account,
)

E = pymysql.err
CONTEXT = ErrorContext(target="db1:3306", user="bob", connect_timeout=3.0, read_timeout=5.0)
TABLE = replace(CONTEXT, table="transporters")
SOCKET = replace(CONTEXT, target="socket /run/mysqld/mysqld.sock")


def with_original(exc: Exception, original: BaseException) -> Exception:
    exc.original_exception = original  # type: ignore[attr-defined]
    return exc


def verify_failure(message: str) -> ssl.SSLCertVerificationError:
    failure = ssl.SSLCertVerificationError(1, "[SSL: CERTIFICATE_VERIFY_FAILED]")
    failure.verify_message = message
    return failure


def with_context(exc: Exception, context: BaseException) -> Exception:
    exc.__context__ = context
    return exc


CASES = [
    pytest.param(
        E.OperationalError(1045, "Access denied for user 'bob'@'10.0.0.5' (using password: YES)"),
        CONTEXT,
        SqlAccessDenied,
        "access denied for user 'bob'@'10.0.0.5' (wrong password?)",
        id="1045 wrong password",
    ),
    pytest.param(
        E.OperationalError(1045, "Access denied for user 'bob'@'10.0.0.5' (using password: NO)"),
        CONTEXT,
        SqlAccessDenied,
        "access denied for user 'bob'@'10.0.0.5' (no password given)",
        id="1045 no password",
    ),
    pytest.param(
        E.OperationalError(1044, "Access denied for user 'bob'@'10.0.0.5' to database 'ndbinfo'"),
        CONTEXT,
        SqlPrivilegeError,
        "no privilege on the ndbinfo database "
        "(needs GRANT SELECT ON ndbinfo.* TO 'bob'@'10.0.0.5')",
        id="1044 database",
    ),
    pytest.param(
        E.OperationalError(
            1142, "SELECT command denied to user 'bob'@'10.0.0.5' for table 'transporters'"
        ),
        TABLE,
        SqlPrivilegeError,
        "no SELECT privilege on ndbinfo.transporters "
        "(needs GRANT SELECT ON ndbinfo.* TO 'bob'@'10.0.0.5')",
        id="1142 MySQL wording",
    ),
    pytest.param(
        E.OperationalError(
            1142, "SELECT command denied to user 'bob'@'%' for table `ndbinfo`.`cpustat`"
        ),
        CONTEXT,
        SqlPrivilegeError,
        "no SELECT privilege on ndbinfo.cpustat (needs GRANT SELECT ON ndbinfo.* TO 'bob'@'%')",
        id="1142 MariaDB wording",
    ),
    pytest.param(
        E.OperationalError(
            1356,
            "View 'ndbinfo.nodes' references invalid table(s) or column(s) or function(s) or "
            "definer/invoker of view lack rights to use them",
        ),
        replace(CONTEXT, account="'bob'@'10.0.%'"),
        SqlPrivilegeError,
        "no SELECT privilege on ndbinfo.nodes (needs GRANT SELECT ON ndbinfo.* TO 'bob'@'10.0.%')",
        id="1356 view",
    ),
    pytest.param(
        E.ProgrammingError(1146, "Table 'ndbinfo.diskstat' doesn't exist"),
        CONTEXT,
        SqlMissingTable,
        "table ndbinfo.diskstat does not exist on this SQL node",
        id="1146",
    ),
    pytest.param(
        E.OperationalError(1054, "Unknown column 'encrypted' in 'field list'"),
        TABLE,
        SqlUnknownColumn,
        "unknown column 'encrypted' in ndbinfo.transporters",
        id="1054",
    ),
    pytest.param(
        E.OperationalError(1296, "Got error 157 'Connection to NDB failed' from NDBINFO"),
        TABLE,
        ClusterNotConnected,
        "the SQL node is not connected to the data nodes",
        id="1296 error 157",
    ),
    pytest.param(
        E.OperationalError(1296, "Got error 4009 'Cluster Failure' from NDBCLUSTER"),
        TABLE,
        ClusterNotConnected,
        "the SQL node is not connected to the data nodes",
        id="1296 error 4009",
    ),
    pytest.param(
        E.OperationalError(1296, "Got error 40001 'Incompatible table definitions' from NDBINFO"),
        TABLE,
        SqlNdbTableError,
        "NDB error 40001 'Incompatible table definitions' reading ndbinfo.transporters",
        id="1296 other NDB error",
    ),
    pytest.param(
        E.OperationalError(1049, "Unknown database 'ndbinfo'"),
        CONTEXT,
        NdbinfoUnavailable,
        "the server at db1:3306 has no ndbinfo database (not an NDB Cluster SQL node?)",
        id="1049",
    ),
    pytest.param(
        E.OperationalError(2005, "Unknown MySQL server host 'db1' (-2)"),
        CONTEXT,
        SqlUnknownHost,
        "unknown SQL node host 'db1'",
        id="2005",
    ),
    pytest.param(
        with_original(
            E.OperationalError(2003, "Can't connect to MySQL server on 'db1' (...)"),
            socket.gaierror(socket.EAI_NONAME, "Name or service not known"),
        ),
        CONTEXT,
        SqlUnknownHost,
        "unknown SQL node host 'db1'",
        id="2003 from a name lookup",
    ),
    pytest.param(
        with_original(
            E.OperationalError(2003, "Can't connect to MySQL server on 'db1' (...)"),
            ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"),
        ),
        CONTEXT,
        SqlConnectError,
        "cannot connect to the SQL node at db1:3306: connection refused",
        id="2003 refused",
    ),
    pytest.param(
        with_original(
            E.OperationalError(2003, "Can't connect to MySQL server on 'db1' (timed out)"),
            TimeoutError("timed out"),
        ),
        CONTEXT,
        SqlTimeout,
        "no answer from the SQL node at db1:3306 within 3 s",
        id="2003 connect timeout",
    ),
    pytest.param(
        with_original(
            E.OperationalError(2003, "Can't connect to MySQL server on 'db1' (...)"),
            OSError(errno.EHOSTUNREACH, "No route to host"),
        ),
        CONTEXT,
        SqlConnectError,
        "cannot connect to the SQL node at db1:3306: no route to host",
        id="2003 unreachable",
    ),
    pytest.param(
        E.OperationalError(2003, "Can't connect to MySQL server on 'db1' (111)"),
        CONTEXT,
        SqlConnectError,
        "cannot connect to the SQL node at db1:3306",
        id="2003 without detail",
    ),
    pytest.param(
        with_original(
            E.OperationalError(2003, "Can't connect to MySQL server on 'localhost' (...)"),
            FileNotFoundError(errno.ENOENT, "No such file or directory"),
        ),
        SOCKET,
        SqlConnectError,
        "cannot connect to the SQL node at socket /run/mysqld/mysqld.sock: no such socket file",
        id="socket missing",
    ),
    pytest.param(
        with_original(
            E.OperationalError(2003, "Can't connect to MySQL server on 'db1' (...)"),
            verify_failure("self-signed certificate"),
        ),
        CONTEXT,
        SqlConnectError,
        "TLS with the SQL node at db1:3306 failed: self-signed certificate",
        id="TLS certificate",
    ),
    pytest.param(
        with_original(
            E.OperationalError(2003, "Can't connect to MySQL server on 'db1' (...)"),
            ssl.SSLError(1, "[SSL] unknown"),
        ),
        CONTEXT,
        SqlConnectError,
        "TLS with the SQL node at db1:3306 failed: handshake failed",
        id="TLS other",
    ),
    pytest.param(
        E.OperationalError(2002, "Can't connect to local server through socket"),
        SOCKET,
        SqlConnectError,
        "cannot connect to the SQL node at socket /run/mysqld/mysqld.sock",
        id="2002",
    ),
    pytest.param(
        with_context(
            E.OperationalError(2013, "Lost connection to MySQL server during query (timed out)"),
            TimeoutError("timed out"),
        ),
        TABLE,
        SqlTimeout,
        "the SQL node at db1:3306 did not answer within 5 s",
        id="2013 read timeout",
    ),
    pytest.param(
        E.OperationalError(2013, "Lost connection to MySQL server during query"),
        TABLE,
        SqlConnectionLost,
        "lost the connection to the SQL node at db1:3306",
        id="2013",
    ),
    pytest.param(
        E.OperationalError(2006, "MySQL server has gone away (BrokenPipeError(32))"),
        TABLE,
        SqlConnectionLost,
        "lost the connection to the SQL node at db1:3306",
        id="2006",
    ),
    pytest.param(
        E.InterfaceError(0, ""),
        TABLE,
        SqlConnectionLost,
        "lost the connection to the SQL node at db1:3306",
        id="closed connection",
    ),
    pytest.param(
        E.InternalError(1105, "Unknown error\nwith a second line"),
        TABLE,
        SqlQueryFailed,
        "SQL node error 1105 reading ndbinfo.transporters: Unknown error with a second line",
        id="any other server error on a table",
    ),
    pytest.param(
        E.OperationalError(1040, "Too many connections"),
        CONTEXT,
        SqlServerError,
        "SQL node error 1040: Too many connections",
        id="any other server error",
    ),
    pytest.param(
        E.InternalError("Packet sequence number wrong - got 3 expected 1"),
        TABLE,
        SqlServerError,
        "SQL node error: Packet sequence number wrong - got 3 expected 1",
        id="a client-side protocol error",
    ),
    pytest.param(
        ValueError("connect_timeout should be >0 and <=31536000"),
        CONTEXT,
        SqlServerError,
        "SQL node at db1:3306: connect_timeout should be >0 and <=31536000",
        id="anything else",
    ),
    pytest.param(
        ConnectionResetError(errno.ECONNRESET, "Connection reset by peer"),
        CONTEXT,
        SqlConnectError,
        "cannot connect to the SQL node at db1:3306: connection reset by peer",
        id="bare OSError",
    ),
]


@pytest.mark.parametrize(("exc", "context", "kind", "message"), CASES)
def test_errors_map_by_code_to_one_line(
    exc: Exception, context: ErrorContext, kind: type[SqlError], message: str
) -> None:
    mapped = map_error(exc, context)
    assert type(mapped) is kind
    assert str(mapped) == message


TABLE_ERRORS = {
    SqlPrivilegeError,
    SqlMissingTable,
    SqlUnknownColumn,
    SqlNdbTableError,
    SqlQueryFailed,
}


@pytest.mark.parametrize(("exc", "context", "kind", "message"), CASES)
def test_only_table_errors_are_panel_errors(
    exc: Exception, context: ErrorContext, kind: type[SqlError], message: str
) -> None:
    assert isinstance(map_error(exc, context), SqlTableError) == (kind in TABLE_ERRORS)


def test_a_table_error_names_its_table() -> None:
    mapped = map_error(E.ProgrammingError(1146, "Table 'ndbinfo.diskstat' doesn't exist"), TABLE)
    assert isinstance(mapped, SqlTableError) and mapped.table == "transporters"


def test_an_sql_error_is_passed_through() -> None:
    error = ClusterNotConnected("x")
    assert map_error(error, CONTEXT) is error


@pytest.mark.parametrize(
    ("current_user", "account"),
    [("bob@10.0.0.%", "'bob'@'10.0.0.%'"), ("root", "'root'@'%'"), ("a@b@c", "'a@b'@'c'")],
)
def test_current_user_becomes_a_quoted_account(current_user: str, account: str) -> None:
    assert quote_account(current_user) == account
