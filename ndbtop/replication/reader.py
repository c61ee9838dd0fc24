"""The blocking reader of one SQL node's replication: one connection, one read per call.

A read sends a few statements, each cheap: the binary log's position and the epochs
``ndb_binlog_index`` gained since the last read (a range of its primary key), the
replica's channels (``SHOW REPLICA STATUS``), the epochs applied per source server
(``ndb_apply_status``, one row per source) and the status variables of NDB replication.
A part the account may not read, or that the server lacks (a MariaDB server has no
``ndb_binlog_index``), is named unavailable; a connection problem raises a
:class:`~ndbtop.errors.SqlError` and the caller reconnects.

Lost events: where the binary log does not go on from one epoch's end to the next
epoch's start (``next_file``/``next_position`` of one row against ``File``/``Position``
of the next), the events in between are read (``SHOW BINLOG EVENTS``, at most
:data:`~ndbtop.replication.statements.EVENTS_READ`, at most :data:`CHECKS_PER_READ` gaps
a read) and an ``Incident`` there is a LOST_EVENTS incident: the binlog injector writes
one when it reconnects to the cluster (``cluster disconnect``) or at mysqld's start
(ha_ndbcluster_binlog.cc ``Ndb_binlog_thread::check_reconnect_incident``).

Every method blocks: run them in a worker thread, one at a time.
"""

from __future__ import annotations

import bisect
import re
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pymysql

from ndbtop.errors import SqlError
from ndbtop.model.replication import BinlogIncident, ReplicaThreads
from ndbtop.ndbinfo.deadline import Watchdog
from ndbtop.ndbinfo.errors import SqlConnectionLost, SqlTimeout, map_error
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.ndbinfo.rows import to_text
from ndbtop.ndbinfo.statements import Statements
from ndbtop.replication import rows as r
from ndbtop.replication import statements as s

KEEP_EPOCHS = 20_000
"""Epochs of the source's binary log remembered (counting a replica's lag needs no query
while it is within them)."""
CHECKS_PER_READ = 2
"""Gaps of ``ndb_binlog_index`` looked into at most per read."""
QUEUED_GAPS = 16
KEEP_INCIDENTS = 8
_LOG_NAME = re.compile(r"[A-Za-z0-9._-]{1,255}")
"""A binary log name ndbtop puts in a statement (the server gave it)."""


class StatementRefused(Exception):
    """The server refused one statement (its error is kept as the part's reason)."""

    def __init__(self, code: int, message: str) -> None:
        super().__init__(message)
        self.code = code


@dataclass
class EndpointRead:
    """What one read of a SQL node gave."""

    server_id: int | None = None
    version: str = ""
    binlog: r.BinlogStatus | None = None
    newest_epoch: int | None = None
    new_epochs: int | None = None
    """Epochs written since the last read (None at the first read)."""
    last_commit_epoch: int | None = None
    threads: tuple[ReplicaThreads, ...] = ()
    applied: tuple[tuple[int, int], ...] = ()
    max_replicated_epoch: int | None = None
    conflicts: int | None = None
    applier: tuple[r.ApplierStatus, ...] = ()
    incidents: tuple[BinlogIncident, ...] = ()
    unavailable: dict[str, str] = field(default_factory=dict)


def _code(exc: pymysql.err.MySQLError) -> tuple[int, str]:
    args = exc.args
    if len(args) >= 2 and isinstance(args[0], int):
        return args[0], " ".join(str(args[1]).split())
    return 0, " ".join(str(exc).split())


class EndpointReader(Statements):
    """Reads one SQL node's replication over one pymysql connection."""

    database = None

    def __init__(self, options: MysqlOptions, *, wall: Callable[[], float]) -> None:
        self.options = options
        self._wall = wall
        self._conn: pymysql.connections.Connection | None = None
        self._account: str | None = None
        self._packing = False
        self._unpacked: set[Any] = set()
        self._chosen: dict[tuple[str, ...], str] = {}
        self._server_id: int | None = None
        self._version = ""
        self._log_bin = False
        self._epochs: deque[int] = deque(maxlen=KEEP_EPOCHS)
        self._last_row: r.IndexRow | None = None
        self._gaps: deque[tuple[r.IndexRow, r.IndexRow]] = deque(maxlen=QUEUED_GAPS)
        self._incidents: deque[BinlogIncident] = deque(maxlen=KEEP_INCIDENTS)
        self._behind: tuple[int, int, int] | None = None
        """(applied epoch, newest epoch counted, count): the last count of a lag."""
        self._unavailable: dict[str, str] = {}

    @property
    def target(self) -> str:
        """``host:port`` of the SQL node."""
        return self.options.target

    @property
    def mariadb(self) -> bool:
        """Whether the server is MariaDB (by its version)."""
        return "mariadb" in self._version.lower()

    def connect(self) -> None:
        """Open the connection and learn the server's id, version and whether it writes a
        binary log."""
        self.close()
        found: list[Sequence[object]] = []

        def identity() -> None:
            try:
                found.extend(self._run(s.IDENTITY, "identity")[1])
            except StatementRefused as exc:
                raise SqlConnectionLost(f"SQL node at {self.target}: {exc}") from None

        self._open(identity)
        rows = found
        row = rows[0] if rows else (None, None, None)
        self._server_id = r.number(row[0], r.SERVER_ID_HIGH)
        self._version = to_text(row[1])
        self._log_bin = r.number(row[2], 1) == 1 or to_text(row[2]).upper() == "ON"

    def close(self) -> None:
        """Close the connection, if open; never raises (the statements each server takes
        are found again on the next)."""
        self._chosen.clear()
        super().close()

    def read(self) -> EndpointRead:
        """One read, within twice the read timeout."""
        if self._conn is None:
            raise SqlConnectionLost(f"not connected to the SQL node at {self.target}")
        budget = 2 * self.options.read_timeout
        with Watchdog(budget, lambda: self._conn) as watchdog:
            try:
                return self._read()
            except SqlError:
                self.close()
                if watchdog.fired:
                    raise SqlTimeout(f"the SQL node at {self.target} did not complete a "
                                     f"read within {budget:g} s") from None
                raise

    def count_after(self, applied: int) -> tuple[int, bool]:
        """How many epochs of the binary log are newer than ``applied``, and whether that is
        a lower bound (the count stopped at its limit)."""
        epochs = self._epochs
        if epochs and applied >= epochs[0]:
            return len(epochs) - bisect.bisect_right(epochs, applied), False
        newest = epochs[-1] if epochs else None
        known = self._behind
        if known is not None and known[0] == applied and newest is not None:
            later = len(epochs) - bisect.bisect_right(epochs, known[1])
            return known[2] + later, known[2] >= s.COUNT_LIMIT
        if self._conn is None:
            raise SqlConnectionLost(f"not connected to the SQL node at {self.target}")
        with Watchdog(2 * self.options.read_timeout, lambda: self._conn):
            try:
                _, rows = self._run(s.epochs_after(applied, newest), "lag count")
            except StatementRefused:
                return 0, True
            except SqlError:
                self.close()
                raise
        count = r.number(rows[0][0]) if rows and rows[0] else None
        count = count or 0
        if newest is not None:
            self._behind = (applied, newest, count)
        return count, count >= s.COUNT_LIMIT

    # The statements of a read.

    def _read(self) -> EndpointRead:
        out = EndpointRead(server_id=self._server_id, version=self._version,
                           incidents=tuple(self._incidents))
        self._unavailable = out.unavailable
        if self._log_bin:
            found = self._first(s.BINLOG_STATUS, "binary log status")
            out.binlog = r.binlog_status(found[1]) if found else None
            if out.binlog is not None:
                self._read_index(out)
        statements = s.MARIADB_REPLICA_STATUS if self.mariadb else s.REPLICA_STATUS
        found = self._first(statements, "replica status")
        if found is not None:
            out.threads = r.replica_threads(*found)
        values = self._optional(s.STATUS, "status variables")
        status = r.status_values(values[1]) if values else {}
        out.last_commit_epoch = status.get("Ndb_last_commit_epoch_server")
        out.max_replicated_epoch = r.max_replicated_epoch(status)
        out.conflicts = r.conflicts_of(status)
        if out.threads:
            applied = self._optional(s.APPLY_STATUS, "ndb_apply_status")
            out.applied = r.applied_epochs(applied[1]) if applied else ()
            if not self.mariadb and _ndb_major(self._version) >= 9:
                applier = self._optional(s.APPLIER_STATUS, "ndb_replication_applier_status")
                out.applier = r.applier_status(*applier) if applier else ()
        out.incidents = tuple(self._incidents)
        return out

    def _read_index(self, out: EndpointRead) -> None:
        after = self._last_row.epoch if self._last_row is not None else None
        found = self._optional(s.newest_epochs(after), "ndb_binlog_index")
        if found is None:
            return
        rows = r.index_rows(found[1])
        if after is not None:
            out.new_epochs = len(rows)
            if len(rows) >= s.NEW_EPOCHS:
                counted = self._optional(s.epochs_after(after), "ndb_binlog_index")
                got = r.number(counted[1][0][0]) if counted and counted[1] else None
                out.new_epochs = got if got is not None else len(rows)
                self._last_row = None
        previous = self._last_row
        for row in rows:
            if previous is not None and not row.follows(previous):
                self._gaps.append((previous, row))
            previous = row
            self._epochs.append(row.epoch)
        if rows:
            self._last_row = rows[-1]
        out.newest_epoch = self._epochs[-1] if self._epochs else None
        self._look_into_gaps()

    def _look_into_gaps(self) -> None:
        for _ in range(min(CHECKS_PER_READ, len(self._gaps))):
            before, after = self._gaps.popleft()
            found = self._incident_between(before, after)
            if found is None:
                continue
            if not any((i.file, i.position) == (found.file, found.position)
                       for i in self._incidents):
                self._incidents.append(found)

    def _incident_between(self, before: r.IndexRow, after: r.IndexRow) -> BinlogIncident | None:
        """The incident event between two epochs' transactions, if one is there."""
        places: list[tuple[str, int | None]] = [(before.next_file, before.next_position)]
        if after.file != before.next_file:
            places.append((after.file, None))
        for file, position in places:
            if not _LOG_NAME.fullmatch(file):
                continue
            found = self._optional(s.binlog_events(file, position), "binlog events")
            if found is None:
                return None
            for event in r.binlog_events(found[1]):
                if event.file == after.file and event.position >= after.position:
                    break
                kind = r.incident_kind(event)
                if kind is not None:
                    return BinlogIncident(kind, event.file, event.position, event.info,
                                          before.epoch, after.epoch, self._wall())
        return None

    # Running statements.

    def _run(self, sql: str, what: str) -> tuple[list[str], list[Sequence[object]]]:
        conn = self._conn
        if conn is None:
            raise SqlConnectionLost(f"not connected to the SQL node at {self.target}")
        try:
            with conn.cursor() as cursor:
                cursor.execute(sql)
                rows = list(cursor.fetchall())
                columns = [d[0] for d in cursor.description or ()]
        except pymysql.err.MySQLError as exc:
            code, message = _code(exc)
            if 1000 <= code < 2000 or code >= 3000:
                raise StatementRefused(code, f"error {code}: {message}") from None
            raise map_error(exc, self._context(None)) from None
        except Exception as exc:
            raise map_error(exc, self._context(None)) from None
        return columns, rows

    def _optional(self, sql: str, what: str) -> tuple[list[str], list[Sequence[object]]] | None:
        """A statement whose refusal makes its part unavailable."""
        try:
            found = self._run(sql, what)
        except StatementRefused as exc:
            self._unavailable[what] = str(exc)
            return None
        self._unavailable.pop(what, None)
        return found

    def _first(self, statements: tuple[str, ...], what: str
               ) -> tuple[list[str], list[Sequence[object]]] | None:
        """The first form the server takes (a syntax error tries the next, and the form
        taken is kept for the connection)."""
        chosen = self._chosen.get(statements)
        for sql in (chosen,) if chosen else statements:
            try:
                found = self._run(sql, what)
            except StatementRefused as exc:
                if exc.code == 1064 and chosen is None:
                    continue
                self._unavailable[what] = str(exc)
                return None
            self._chosen[statements] = sql
            return found
        self._unavailable[what] = "the server takes none of " + ", ".join(
            q.replace(s.TAG + " ", "") for q in statements)
        return None


def _ndb_major(version: str) -> int:
    """The major version of a MySQL server's ``@@version`` (``9.1.0-cluster``: 9)."""
    m = re.match(r"([0-9]{1,3})\.", version)
    return int(m.group(1)) if m else 0
