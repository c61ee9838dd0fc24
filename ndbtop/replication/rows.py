"""The replication statements' rows as typed values, whatever names the server gives.

MySQL 8.0.22 renamed the replica's columns (``Replica_IO_Running``, ``Source_Host``,
``Seconds_Behind_Source``...); 8.4 removed the old statement. NDB 7.6 (MySQL 5.7), MySQL
before 8.0.22 and MariaDB give ``Slave_IO_Running``, ``Master_Host``,
``Seconds_Behind_Master``: both are read. Every value from the server is untrusted:
numbers go through :mod:`ndbtop.textnum` (a value that does not read is left out), text is
kept as sent (the views escape it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.model.replication import ReplicaThreads
from ndbtop.ndbinfo.rows import to_text
from ndbtop.textnum import U64, int_or_none

Row = Sequence[object]

PORT_HIGH = 65535
SERVER_ID_HIGH = 2**32 - 1
SECONDS_HIGH = 10**9
"""Seconds_Behind_Source beyond this (31 years) is not a figure."""

_NEW = {
    "io": "Replica_IO_Running", "sql": "Replica_SQL_Running", "host": "Source_Host",
    "port": "Source_Port", "server_id": "Source_Server_Id", "behind": "Seconds_Behind_Source",
    "io_state": "Replica_IO_State", "sql_state": "Replica_SQL_Running_State",
    "exec_file": "Relay_Source_Log_File", "exec_pos": "Exec_Source_Log_Pos",
}
_OLD = {
    "io": "Slave_IO_Running", "sql": "Slave_SQL_Running", "host": "Master_Host",
    "port": "Master_Port", "server_id": "Master_Server_Id", "behind": "Seconds_Behind_Master",
    "io_state": "Slave_IO_State", "sql_state": "Slave_SQL_Running_State",
    "exec_file": "Relay_Master_Log_File", "exec_pos": "Exec_Master_Log_Pos",
}
CHANNEL_COLUMNS = ("Channel_Name", "Channel_name", "Connection_name")
"""The channel's name: MySQL's ``Channel_Name`` (``Channel_name`` in 5.7), MariaDB's
``Connection_name`` in ``SHOW ALL SLAVES STATUS``."""

INCIDENT_ERRNO = 1590
"""ER_REPLICA_INCIDENT (ER_SLAVE_INCIDENT): the applier stopped on an incident event."""
_INCIDENT = re.compile(r"The incident (\w{1,64}) occ?urr?ed on the (?:source|master)\. "
                       r"Message: (.*)", re.DOTALL)
"""``The incident %s occured on the source. Message: %s`` (MySQL 8.0.22+; ``master``
before, and ``occurred`` in MariaDB)."""

_BINLOG_INFO = re.compile(r"#([0-9]{1,5}) \((\w{1,64})\)(?:: (.*))?", re.DOTALL)
"""The Info of an Incident event in ``SHOW BINLOG EVENTS``: ``#1 (LOST_EVENTS)``."""

STATUS_NAMES = ("Ndb_last_commit_epoch_server", "Ndb_replica_max_replicated_epoch",
                "Ndb_slave_max_replicated_epoch")
CONFLICT_PREFIX = "Ndb_conflict_"
CONFLICT_COUNTERS = re.compile(r"Ndb_conflict_(fn_\w{1,40}|epoch_delete_delete_count)")
"""The counters of rows found in conflict: one per conflict function (``NDB$MAX()``,
``NDB$OLD()``, ``NDB$EPOCH2()``...) and the delete-delete conflicts of the epoch
functions (ha_ndbcluster.cc ``ndb_status_conflict_variables``)."""
APPLIER_CONFLICT_COLUMNS = re.compile(r"CONFLICT_(FN_\w{1,40}|EPOCH_DELETE_DELETE_COUNT)")
"""The same counters as columns of ``performance_schema.ndb_replication_applier_status``."""


def _get(row: Mapping[str, object], names: Mapping[str, str], key: str) -> object:
    return row.get(names[key])


def number(value: object, high: int = U64) -> int | None:
    """A whole number from 0 to ``high`` sent as a number or as ASCII digits; else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 <= value <= high else None
    text = to_text(value).strip()
    return int_or_none(text, 0, high) if text else None


def replica_threads(columns: Sequence[str], rows: Sequence[Row]) -> tuple[ReplicaThreads, ...]:
    """Every channel of a ``SHOW REPLICA STATUS`` / ``SHOW SLAVE STATUS`` / ``SHOW ALL
    SLAVES STATUS`` result, by its column names."""
    if not rows:
        return ()
    names = _NEW if "Replica_IO_Running" in columns else _OLD
    kind = "replica" if names is _NEW else "slave"
    channel = next((c for c in CHANNEL_COLUMNS if c in columns), None)
    out = []
    for raw in rows:
        row = dict(zip(columns, raw))
        out.append(ReplicaThreads(
            channel=to_text(row.get(channel)) if channel else "",
            source_host=to_text(_get(row, names, "host")),
            source_port=number(_get(row, names, "port"), PORT_HIGH),
            source_server_id=number(_get(row, names, "server_id"), SERVER_ID_HIGH),
            io_running=to_text(_get(row, names, "io")),
            sql_running=to_text(_get(row, names, "sql")),
            seconds_behind=number(_get(row, names, "behind"), SECONDS_HIGH),
            last_io_errno=number(row.get("Last_IO_Errno"), 99999) or 0,
            last_io_error=to_text(row.get("Last_IO_Error")),
            last_sql_errno=number(row.get("Last_SQL_Errno"), 99999) or 0,
            last_sql_error=to_text(row.get("Last_SQL_Error")),
            io_state=to_text(_get(row, names, "io_state")),
            sql_state=to_text(_get(row, names, "sql_state")),
            exec_source_file=to_text(_get(row, names, "exec_file")),
            exec_source_pos=number(_get(row, names, "exec_pos")),
            names=kind,
        ))
    return tuple(out)


def incident_of(threads: ReplicaThreads) -> tuple[str, str] | None:
    """(incident, message) when the applier stopped on an incident event (error 1590:
    ``The incident LOST_EVENTS occured on the source. Message: cluster disconnect``)."""
    if threads.last_sql_errno != INCIDENT_ERRNO:
        return None
    m = _INCIDENT.search(threads.last_sql_error)
    return (m.group(1), m.group(2).strip()) if m else ("incident", threads.last_sql_error)


@dataclass(frozen=True, **SLOTS)
class BinlogStatus:
    """``SHOW BINARY LOG STATUS`` (``SHOW MASTER STATUS`` before 8.2, ``SHOW BINLOG STATUS``
    in MariaDB): the file written and the position in it."""

    file: str
    position: int


def binlog_status(rows: Sequence[Row]) -> BinlogStatus | None:
    """The first row (File, Position, ...); None when the binary log is off (no row)."""
    if not rows or len(rows[0]) < 2:
        return None
    position = number(rows[0][1])
    file = to_text(rows[0][0])
    if not file or position is None:
        return None
    return BinlogStatus(file, position)


@dataclass(frozen=True, **SLOTS)
class IndexRow:
    """One epoch of ``mysql.ndb_binlog_index``: where its transaction starts in the binary
    log and where the binary log goes on after it."""

    epoch: int
    file: str
    position: int
    next_file: str
    next_position: int

    def follows(self, before: IndexRow) -> bool:
        """Whether this epoch starts where ``before`` left the binary log."""
        return (self.file, self.position) == (before.next_file, before.next_position)


def index_rows(rows: Sequence[Row]) -> tuple[IndexRow, ...]:
    """(epoch, File, Position, next_file, next_position) rows, each epoch once (a row per
    originating server with ``ndb_log_orig``), by epoch; a row that does not read is left
    out."""
    out: dict[int, IndexRow] = {}
    for row in rows:
        if len(row) < 5:
            continue
        epoch, position, next_position = number(row[0]), number(row[2]), number(row[4])
        if epoch is None or position is None or next_position is None:
            continue
        out.setdefault(epoch, IndexRow(epoch, _base(to_text(row[1])), position,
                                       _base(to_text(row[3])), next_position))
    return tuple(out[e] for e in sorted(out))


def _base(path: str) -> str:
    """The binary log's file name: ``ndb_binlog_index`` holds the path the server opened
    (``./binlog.000012``), ``SHOW BINARY LOGS`` and ``SHOW BINLOG EVENTS`` the name."""
    return path.replace("\\", "/").rsplit("/", 1)[-1]


@dataclass(frozen=True, **SLOTS)
class BinlogEvent:
    """One row of ``SHOW BINLOG EVENTS``: Log_name, Pos, Event_type, Server_id,
    End_log_pos, Info."""

    file: str
    position: int
    kind: str
    end_position: int | None
    info: str


def binlog_events(rows: Sequence[Row]) -> tuple[BinlogEvent, ...]:
    """The events of a ``SHOW BINLOG EVENTS`` result (a row that does not read is left
    out)."""
    out = []
    for row in rows:
        if len(row) < 6:
            continue
        position = number(row[1])
        if position is None:
            continue
        out.append(BinlogEvent(to_text(row[0]), position, to_text(row[2]), number(row[4]),
                               to_text(row[5])))
    return tuple(out)


def incident_kind(event: BinlogEvent) -> str | None:
    """The incident an Incident event names (``LOST_EVENTS``), else None."""
    if event.kind != "Incident":
        return None
    m = _BINLOG_INFO.fullmatch(event.info.strip())
    return m.group(2) if m else "incident"


def status_values(rows: Sequence[Row]) -> dict[str, int]:
    """``SHOW GLOBAL STATUS`` rows (Variable_name, Value) as integers; a value that does
    not read is left out."""
    out = {}
    for row in rows:
        if len(row) < 2:
            continue
        value = number(row[1])
        if value is not None:
            out[to_text(row[0])] = value
    return out


def conflicts_of(values: Mapping[str, int]) -> int | None:
    """The conflict counters summed; None when the server has none (not an NDB SQL node,
    or one before conflict detection)."""
    counters = [v for name, v in values.items() if CONFLICT_COUNTERS.fullmatch(name)]
    return sum(counters) if counters else None


def max_replicated_epoch(values: Mapping[str, int]) -> int | None:
    """``Ndb_replica_max_replicated_epoch``, or ``Ndb_slave_max_replicated_epoch`` before
    NDB 8.0.23."""
    found = values.get("Ndb_replica_max_replicated_epoch")
    return found if found is not None else values.get("Ndb_slave_max_replicated_epoch")


def applied_epochs(rows: Sequence[Row]) -> tuple[tuple[int, int], ...]:
    """``mysql.ndb_apply_status`` (server_id, epoch) rows, by server id."""
    out = {}
    for row in rows:
        if len(row) < 2:
            continue
        server_id, epoch = number(row[0], SERVER_ID_HIGH), number(row[1])
        if server_id is not None and epoch is not None:
            out[server_id] = epoch
    return tuple(sorted(out.items()))


@dataclass(frozen=True, **SLOTS)
class ApplierStatus:
    """One row of ``performance_schema.ndb_replication_applier_status`` (NDB 9.0 and
    later): a channel's newest applied epoch and its conflict counters summed."""

    channel: str
    max_replicated_epoch: int | None
    conflicts: int


def applier_status(columns: Sequence[str], rows: Sequence[Row]) -> tuple[ApplierStatus, ...]:
    """Every channel's row, by column name."""
    out = []
    counters = [i for i, c in enumerate(columns) if APPLIER_CONFLICT_COLUMNS.fullmatch(c)]
    for raw in rows:
        row = dict(zip(columns, raw))
        total = sum(v for i in counters if i < len(raw) and (v := number(raw[i])) is not None)
        out.append(ApplierStatus(to_text(row.get("CHANNEL_NAME")),
                                 number(row.get("MAX_REPLICATED_EPOCH")), total))
    return tuple(out)
