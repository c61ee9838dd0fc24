"""The statements of the ``ndbinfo`` collector: the connection's arguments, what it asks
the server once connected, and running one query, packed into one row when it may be."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any

import pymysql

from ndbtop.errors import SqlError
from ndbtop.ndbinfo import queries as q
from ndbtop.ndbinfo import rows as r
from ndbtop.ndbinfo.deadline import Watchdog
from ndbtop.ndbinfo.errors import (
    ErrorContext,
    SqlConnectError,
    SqlConnectionLost,
    SqlServerError,
    SqlTableError,
    SqlTimeout,
    map_error,
    quote_account,
)
from ndbtop.ndbinfo.options import MysqlOptions

DATABASE = "ndbinfo"


class Tally:
    """Statements sent and rows received during one refresh."""

    def __init__(self) -> None:
        self.queries = 0
        self.rows = 0


class Statements:
    """One SQL connection's statements, counted in a :class:`Tally`."""

    options: MysqlOptions
    database: str | None = DATABASE
    """The database the connection opens (None: none)."""
    _conn: pymysql.connections.Connection | None
    _account: str | None
    _packing: bool
    _unpacked: set[q.Query]
    _fallen_back: dict[q.Query, str]
    """The queries whose :attr:`~ndbtop.ndbinfo.queries.Query.fallback` is read instead on
    this connection, with why."""

    def _connect_arguments(self) -> dict[str, Any]:
        o = self.options
        args: dict[str, Any] = {
            "user": o.user,
            # As bytes: pymysql would encode a str password as latin-1 and fail on others.
            "password": o.password.encode("utf-8"),
            "connect_timeout": o.connect_timeout,
            "read_timeout": o.read_timeout,
            "write_timeout": o.write_timeout,
            "autocommit": True,
            "charset": "utf8mb4",
            "program_name": "ndbtop",
        }
        if self.database is not None:
            args["database"] = self.database
        if o.socket:
            args["unix_socket"] = o.socket
        else:
            args["host"] = o.host
            args["port"] = o.port
        for option, path in (
            ("ssl-ca", o.ssl_ca),
            ("ssl-cert", o.ssl_cert),
            ("ssl-key", o.ssl_key),
        ):
            if path:
                if not os.access(path, os.R_OK):
                    raise SqlConnectError(f"cannot read the {option} file {path}")
                args[option.replace("-", "_")] = path
        if o.ssl_ca:
            args["ssl_verify_cert"] = True
        return args

    def close(self) -> None:
        """Close the connection, if open; never raises."""
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def _open(self, first_reads: Callable[[], None]) -> None:
        """Connect and run ``first_reads``, all within the connect timeout and twice the
        read timeout (:mod:`ndbtop.ndbinfo.deadline`); a failure leaves no connection."""
        o = self.options
        try:
            # Made first and connected after, so that its socket can be shut down.
            conn = pymysql.connect(defer_connect=True, **self._connect_arguments())
        except SqlError:
            raise
        except Exception as exc:
            raise map_error(exc, self._context(None)) from None
        budget = o.connect_timeout + 2 * o.read_timeout
        with Watchdog(budget, lambda: conn) as watchdog:
            try:
                try:
                    conn.connect()
                except Exception as exc:
                    raise map_error(exc, self._context(None)) from None
                self._conn = conn
                first_reads()
            except SqlError:
                self.close()
                with contextlib.suppress(Exception):
                    conn.close()
                if watchdog.fired:
                    raise SqlTimeout(f"the SQL node at {o.target} did not complete the "
                                     f"connection within {budget:g} s") from None
                raise

    def _current_user(self, tally: Tally) -> str | None:
        try:
            rows, _ = self._execute(q.CURRENT_USER, tally)
        except (SqlTableError, SqlServerError):
            return None
        return quote_account(r.to_text(rows[0][0])) if rows and rows[0][0] else None

    def _find_version(self, tally: Tally) -> int | None:
        try:
            rows, _ = self._execute(q.VERSION_VARIABLE, tally)
            version = r.to_int(rows[0][0]) if rows else 0
        except (SqlTableError, SqlServerError):
            version = 0
        if version > 0:
            return version
        try:
            rows, _ = self._execute(q.VERSION_FROM_PROCESSES, tally)
        except (SqlTableError, SqlServerError):
            return None
        return q.parse_node_version(r.to_text(rows[0][0])) if rows else None

    def _allow_packed_results(self, tally: Tally) -> bool:
        """Raise the session's ``group_concat_max_len`` for packed results; a server that
        refuses is read row by row."""
        try:
            self._execute(q.SET_GROUP_CONCAT_MAX_LEN, tally)
        except (SqlTableError, SqlServerError):
            return False
        return True

    def _context(self, table: str | None) -> ErrorContext:
        o = self.options
        return ErrorContext(
            target=o.target,
            user=o.user,
            account=self._account,
            table=table or None,
            connect_timeout=o.connect_timeout,
            read_timeout=o.read_timeout,
        )

    def _execute(
        self, query: q.Query, tally: Tally, sql: str | None = None
    ) -> tuple[list[r.Row], list[str]]:
        conn = self._conn
        if conn is None:
            raise SqlConnectionLost(f"not connected to the SQL node at {self.options.target}")
        tally.queries += 1
        try:
            with conn.cursor() as cursor:
                cursor.execute(sql or query.sql)
                rows = list(cursor.fetchall())
                columns = [d[0] for d in cursor.description or ()]
        except Exception as exc:
            raise map_error(exc, self._context(query.table)) from None
        tally.rows += len(rows)
        return rows, columns

    def _statements_at_most(self, query: q.Query) -> int:
        """Statements :meth:`_fetch` may send for ``query``: two where a packed result
        may come cut and be read again row by row."""
        packing = query.packed is not None and self._packing and query not in self._unpacked
        return 2 if query.fields and packing else 1

    def _fetch_or_fallback(self, query: q.Query, tally: Tally) -> tuple[list[Any], list[str]]:
        """A query's rows, or, where it fails on a table and has a fallback that reads,
        the fallback's (and from then on on this connection, :attr:`_fallen_back` saying
        why). A fallback that fails too raises its own error, naming its own table."""
        fallback = query.fallback
        if fallback is None:
            return self._fetch(query, tally)
        if query in self._fallen_back:
            return self._fetch(fallback, tally)
        try:
            return self._fetch(query, tally)
        except SqlTableError as exc:
            fetched = self._fetch(fallback, tally)
            self._fallen_back[query] = f"{exc}: {fallback.table} read alone"
            return fetched

    def _fetch(self, query: q.Query, tally: Tally) -> tuple[list[Any], list[str]]:
        """A query's rows: typed columns, or for a text query each row's text.

        A text query is read packed into one row while the server allows it; a packed
        result that does not hold as many rows as it counted (cut by ``max_allowed_packet``,
        say) is read again row by row, and so is that query from then on.
        """
        if not query.fields:
            return self._execute(query, tally)
        if query.packed is not None and self._packing and query not in self._unpacked:
            packed, _ = self._execute(query, tally, query.packed)
            first = packed[0] if packed else (0, None)
            count = r.to_int(first[0])
            texts = q.split_text_rows(first[1] if len(first) > 1 else None)
            if len(texts) == count:
                tally.rows += count - len(packed)
                return texts, []
            self._unpacked.add(query)
        rows, _ = self._execute(query, tally)
        return [r.to_text(row[0]) for row in rows if row and row[0] is not None], []
