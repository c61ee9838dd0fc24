"""What the simulated SQL node answers about replication, from a :class:`~ndbtop.sim.
replication.SimReplication`: as the source's binlogging SQL node or as the replica's.

The statements (MySQL's, by version): ``SHOW BINARY LOG STATUS`` (8.2 and later) and ``SHOW
MASTER STATUS`` (before 8.4), ``SHOW REPLICA STATUS`` (8.0.22 and later, ``Replica_*`` and
``Source_*`` columns) and ``SHOW SLAVE STATUS`` (before 8.4, ``Slave_*`` and ``Master_*``),
``SHOW BINLOG EVENTS``, ``SHOW GLOBAL STATUS`` (the ``Ndb_*`` variables of NDB
replication), and the tables ``mysql.ndb_binlog_index``, ``mysql.ndb_apply_status`` and
(NDB 9.0 and later) ``performance_schema.ndb_replication_applier_status``, with their real
columns. A statement the version does not have is a syntax error (1064), as there.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from ndbtop.sim.clock import SIMULATED_TIME, ServedTime
from ndbtop.sim.replication import SimReplication
from ndbtop.sim.sqlnode.schema import Column, Table
from ndbtop.sim.sqlnode.sqltypes import parse_column_type

REPLICA_COLUMNS = (
    "Replica_IO_State", "Source_Host", "Source_User", "Source_Port", "Connect_Retry",
    "Source_Log_File", "Read_Source_Log_Pos", "Relay_Log_File", "Relay_Log_Pos",
    "Relay_Source_Log_File", "Replica_IO_Running", "Replica_SQL_Running", "Replicate_Do_DB",
    "Replicate_Ignore_DB", "Replicate_Do_Table", "Replicate_Ignore_Table",
    "Replicate_Wild_Do_Table", "Replicate_Wild_Ignore_Table", "Last_Errno", "Last_Error",
    "Skip_Counter", "Exec_Source_Log_Pos", "Relay_Log_Space", "Until_Condition",
    "Until_Log_File", "Until_Log_Pos", "Source_SSL_Allowed", "Source_SSL_CA_File",
    "Source_SSL_CA_Path", "Source_SSL_Cert", "Source_SSL_Cipher", "Source_SSL_Key",
    "Seconds_Behind_Source", "Source_SSL_Verify_Server_Cert", "Last_IO_Errno", "Last_IO_Error",
    "Last_SQL_Errno", "Last_SQL_Error", "Replicate_Ignore_Server_Ids", "Source_Server_Id",
    "Source_UUID", "Source_Info_File", "SQL_Delay", "SQL_Remaining_Delay",
    "Replica_SQL_Running_State", "Source_Retry_Count", "Source_Bind",
    "Last_IO_Error_Timestamp", "Last_SQL_Error_Timestamp", "Source_SSL_Crl",
    "Source_SSL_Crlpath", "Retrieved_Gtid_Set", "Executed_Gtid_Set", "Auto_Position",
    "Replicate_Rewrite_DB", "Channel_Name", "Source_TLS_Version", "Source_public_key_path",
    "Get_Source_public_key", "Network_Namespace",
)
"""``SHOW REPLICA STATUS`` of MySQL 8.0.22 and later, in order."""


def slave_column(name: str) -> str:
    """The column's name before 8.0.22 (``SHOW SLAVE STATUS``)."""
    return name.replace("Replica", "Slave").replace("Source", "Master")


def system_table(name: str, columns: Sequence[tuple[str, str]]) -> Table:
    """A table of the ``mysql`` or ``performance_schema`` database with these columns."""
    cols = tuple(Column(c, t, parse_column_type(t)) for c, t in columns)
    return Table(name, cols, (0, 0), "system", MappingProxyType({c.name.lower(): c
                                                                 for c in cols}))


NDB_BINLOG_INDEX = system_table("ndb_binlog_index", (
    ("Position", "bigint unsigned"), ("File", "varchar(255)"), ("epoch", "bigint unsigned"),
    ("inserts", "int unsigned"), ("updates", "int unsigned"), ("deletes", "int unsigned"),
    ("schemaops", "int unsigned"), ("orig_server_id", "int unsigned"),
    ("orig_epoch", "bigint unsigned"), ("gci", "int unsigned"),
    ("next_position", "bigint unsigned"), ("next_file", "varchar(255)")))
"""MySQL Reference Manual 8.0, NDB Cluster Replication Schema and Tables."""
NDB_APPLY_STATUS = system_table("ndb_apply_status", (
    ("server_id", "int unsigned"), ("epoch", "bigint unsigned"), ("log_name", "varchar(255)"),
    ("start_pos", "bigint unsigned"), ("end_pos", "bigint unsigned")))
CONFLICT_FUNCTIONS = ("FN_MAX", "FN_OLD", "FN_MAX_DEL_WIN", "FN_MAX_INS", "FN_MAX_DEL_WIN_INS",
                      "FN_EPOCH", "FN_EPOCH_TRANS", "FN_EPOCH2", "FN_EPOCH2_TRANS")
APPLIER_STATUS = system_table("ndb_replication_applier_status", (
    ("CHANNEL_NAME", "char(64)"), ("MAX_REPLICATED_EPOCH", "bigint unsigned"),
    *((f"CONFLICT_{f}", "bigint unsigned") for f in CONFLICT_FUNCTIONS),
    ("CONFLICT_EPOCH_DELETE_DELETE_COUNT", "bigint unsigned"),
    ("CONFLICT_LAST_CONFLICT_EPOCH", "bigint unsigned"),
    ("CONFLICT_LAST_STABLE_EPOCH", "bigint unsigned")))
"""The columns ndbtop reads of storage/ndb/plugin/ndb_replica_status_table.cc (NDB 9.0)."""


def _version(ndb_version: int) -> tuple[int, int, int]:
    return (ndb_version >> 16) & 0xFF, (ndb_version >> 8) & 0xFF, ndb_version & 0xFF


def max_replicated_epoch_name(ndb_version: int) -> str:
    """The status variable of the newest epoch the applier committed, by release: NDB 8.0.23
    replaced ``Ndb_slave_max_replicated_epoch`` by ``Ndb_replica_max_replicated_epoch``
    (NDB 8.0.23 release notes, "Terminology updates")."""
    if _version(ndb_version) >= (8, 0, 23):
        return "Ndb_replica_max_replicated_epoch"
    return "Ndb_slave_max_replicated_epoch"


def takes(ndb_version: int, statement: str) -> bool:
    """Whether a server of this version has the SHOW statement (upper case, one space)."""
    v = _version(ndb_version)
    if statement == "SHOW BINARY LOG STATUS":
        return v >= (8, 2, 0)
    if statement in ("SHOW MASTER STATUS", "SHOW SLAVE STATUS"):
        return v < (8, 4, 0)
    if statement == "SHOW REPLICA STATUS":
        return v >= (8, 0, 22)
    return False


@dataclass
class ReplicationSide:
    """One SQL node's side of a simulated channel: ``source`` or ``replica``."""

    model: SimReplication
    role: str
    now: Callable[[], float]
    """Brings the model to the current simulated time and returns it."""
    ndb_version: int
    time: ServedTime = SIMULATED_TIME
    """The seconds ``Seconds_Behind_Source`` is told in."""

    def seconds_behind(self) -> int | None:
        """``Seconds_Behind_Source``, in the seconds ``time`` serves."""
        m = self.model
        behind = m.seconds_behind()
        if behind is None:
            return None
        return int(self.time.served(m.now) - self.time.served(m.now - behind))

    @property
    def server_id(self) -> int:
        """``@@server_id``."""
        m = self.model
        return m.source_server_id if self.role == "source" else m.replica_server_id

    @property
    def log_bin(self) -> bool:
        """``@@log_bin``: the source writes a binary log."""
        return self.role == "source"

    def _sync(self) -> SimReplication:
        self.model.advance(self.now())
        return self.model

    def binlog_status(self) -> tuple[tuple[str, ...], list[tuple[object, ...]]]:
        """File, Position, Binlog_Do_DB, Binlog_Ignore_DB, Executed_Gtid_Set."""
        names = ("File", "Position", "Binlog_Do_DB", "Binlog_Ignore_DB", "Executed_Gtid_Set")
        if not self.log_bin:
            return names, []
        m = self._sync()
        name, position = m.files[-1]
        return names, [(name, position, "", "", "")]

    def binlog_events(self, file: str, position: int | None, limit: int
                      ) -> tuple[tuple[str, ...], list[tuple[object, ...]]] | str:
        """Log_name, Pos, Event_type, Server_id, End_log_pos, Info; the server's error 1220
        text when it has no such log or no event starts at ``position``."""
        names = ("Log_name", "Pos", "Event_type", "Server_id", "End_log_pos", "Info")
        m = self._sync()
        if file not in [n for n, _ in m.files]:
            return "Could not find target log"
        sid = m.source_server_id
        events: list[tuple[object, ...]] = [
            (file, 4, "Format_desc", sid, 126, "Server ver: 8.4.3-cluster, Binlog ver: 4"),
            (file, 126, "Previous_gtids", sid, 157, "")]
        for row in m.rows:
            if row.file != file:
                continue
            mid = row.position + (row.next_position - row.position) // 2
            end = row.next_position if row.next_file == file else mid + 120
            events += [(file, row.position, "Query", sid, row.position + 75, "BEGIN"),
                       (file, row.position + 75, "Table_map", sid, mid,
                        "table_id: 112 (mysql.ndb_apply_status)"),
                       (file, mid, "Write_rows", sid, end - 27, "table_id: 112"),
                       (file, end - 27, "Query", sid, end, "COMMIT")]
        for incident in m.incidents:
            if incident.file == file:
                end = incident.position + 66
                events += [(file, incident.position, "Incident", sid, end, "#1 (LOST_EVENTS)"),
                           (file, end, "Rotate", sid, end + 44, f"{_next_log(file)};pos=4")]
        events.sort(key=lambda e: int(e[1]))  # type: ignore[call-overload]
        start = 4 if position is None else position
        if not any(e[1] == start for e in events):
            return "Wrong offset or I/O error"
        return names, [e for e in events if int(e[1]) >= start][:limit]  # type: ignore[call-overload]

    def replica_status(self, old_names: bool) -> tuple[tuple[str, ...], list[tuple[object, ...]]]:
        """The replica's one channel (none on the source)."""
        names = tuple(slave_column(c) for c in REPLICA_COLUMNS) if old_names else \
            REPLICA_COLUMNS
        if self.role != "replica":
            return names, []
        m = self._sync()
        applied = m.applied_row()
        read_file, read_pos = m.files[-1]
        exec_file = applied.file if applied else read_file
        exec_pos = applied.next_position if applied else 4
        errno, error = m.sql_error
        state = ("Replica has read all relay log; waiting for more updates" if m.sql_running
                 else "")
        values = {
            "Replica_IO_State": "Waiting for source to send event", "Source_Host": m.host,
            "Source_User": "repl", "Source_Port": m.source_port or 3306, "Connect_Retry": 60,
            "Source_Log_File": read_file, "Read_Source_Log_Pos": read_pos,
            "Relay_Log_File": "relay.000002", "Relay_Log_Pos": 4 + exec_pos,
            "Relay_Source_Log_File": exec_file, "Replica_IO_Running": "Yes",
            "Replica_SQL_Running": "Yes" if m.sql_running else "No",
            "Last_Errno": errno, "Last_Error": error, "Skip_Counter": 0,
            "Exec_Source_Log_Pos": exec_pos, "Relay_Log_Space": read_pos,
            "Until_Condition": "None", "Until_Log_Pos": 0, "Source_SSL_Allowed": "No",
            "Seconds_Behind_Source": self.seconds_behind(), "Source_SSL_Verify_Server_Cert": "No",
            "Last_IO_Errno": 0, "Last_SQL_Errno": errno, "Last_SQL_Error": error,
            "Source_Server_Id": m.source_server_id,
            "Source_UUID": "3e11fa47-71ca-11e1-9e33-c80aa9429562",
            "Source_Info_File": "mysql.slave_master_info", "SQL_Delay": 0,
            "Replica_SQL_Running_State": state, "Source_Retry_Count": 86400,
            "Auto_Position": 0, "Channel_Name": "", "Get_Source_public_key": 0,
        }
        row = tuple(values.get(c, None if c == "SQL_Remaining_Delay" else "")
                    for c in REPLICA_COLUMNS)
        return names, [row]

    def status(self) -> list[tuple[str, str]]:
        """``SHOW GLOBAL STATUS`` rows of NDB replication."""
        m = self._sync()
        newest = m.newest()
        out = [("Ndb_last_commit_epoch_server", str(newest.epoch if newest else 0))]
        replicated = max_replicated_epoch_name(self.ndb_version)
        applied = m.applied_row()
        own = 0 if self.role != "replica" or applied is None else applied.epoch + (7 << 32)
        out.append((replicated, str(own)))
        conflicts = int(m.conflicts) if self.role == "replica" else 0
        for f in CONFLICT_FUNCTIONS:
            out.append((f"Ndb_conflict_{f.lower()}", str(conflicts if f == "FN_EPOCH2" else 0)))
        for name in ("trans_row_conflict_count", "trans_row_reject_count",
                     "trans_reject_count", "trans_detect_iter_count",
                     "trans_conflict_commit_count", "epoch_delete_delete_count",
                     "reflected_op_prepare_count", "reflected_op_discard_count",
                     "refresh_op_count", "last_conflict_epoch", "last_stable_epoch"):
            out.append((f"Ndb_conflict_{name}", "0"))
        return out

    def tables(self) -> dict[tuple[str, str], tuple[Table, list[tuple[object, ...]]]]:
        """The replication tables this SQL node has, with their rows, by (database, name)."""
        m = self._sync()
        out: dict[tuple[str, str], tuple[Table, list[tuple[object, ...]]]] = {}
        index = [(r.position, f"./{r.file}", r.epoch, 1, 1, 0, 0, 0, 0, r.epoch >> 32,
                  r.next_position, f"./{r.next_file}") for r in m.rows] if self.log_bin else []
        out[("mysql", "ndb_binlog_index")] = (NDB_BINLOG_INDEX, index)
        applied = m.applied_row()
        apply_rows: list[tuple[object, ...]] = []
        if self.role == "replica" and applied is not None:
            apply_rows.append((m.source_server_id, applied.epoch, "", 0, 0))
        out[("mysql", "ndb_apply_status")] = (NDB_APPLY_STATUS, apply_rows)
        if _version(self.ndb_version) >= (9, 0, 0):
            rows: list[tuple[object, ...]] = []
            if self.role == "replica":
                own = applied.epoch + (7 << 32) if applied else 0
                counts = [int(m.conflicts) if f == "FN_EPOCH2" else 0
                          for f in CONFLICT_FUNCTIONS]
                rows.append(("", own, *counts, 0, 0, 0))
            out[("performance_schema", "ndb_replication_applier_status")] = (APPLIER_STATUS,
                                                                             rows)
        return out


def _next_log(file: str) -> str:
    base, _, number = file.rpartition(".")
    return f"{base}.{int(number) + 1:06d}" if number.isdigit() else file
