"""The replication statements' rows as servers give them, whatever names they use."""

from __future__ import annotations

from ndbtop.model.replication import epoch_text
from ndbtop.replication import rows as r

# SHOW REPLICA STATUS of MySQL 8.0.22 and later (Reference Manual, "SHOW REPLICA STATUS
# Statement"): the columns ndbtop reads and a few others, as the server names them.
NEW = {"Replica_IO_State": "Waiting for source to send event", "Source_Host": "10.0.1.5",
       "Source_Port": 3306, "Source_Log_File": "binlog.000012", "Read_Source_Log_Pos": 4521,
       "Relay_Source_Log_File": "binlog.000012", "Replica_IO_Running": "Yes",
       "Replica_SQL_Running": "No", "Exec_Source_Log_Pos": 3011, "Seconds_Behind_Source": None,
       "Last_IO_Errno": 0, "Last_IO_Error": "", "Last_SQL_Errno": 1590,
       "Last_SQL_Error": "The incident LOST_EVENTS occured on the source. Message: cluster "
                         "disconnect", "Source_Server_Id": 11,
       "Replica_SQL_Running_State": "", "Channel_Name": "dr"}
# SHOW SLAVE STATUS of NDB 7.6 (MySQL 5.7), as a field report quotes it.
OLD = {"Slave_IO_State": "Waiting for master to send event", "Master_Host": "192.168.0.10",
       "Master_Port": "3306", "Slave_IO_Running": "Yes", "Slave_SQL_Running": "No",
       "Last_Errno": "1590", "Last_SQL_Errno": "1590",
       "Last_SQL_Error": "The incident LOST_EVENTS occured on the master. Message: mysqld "
                         "startup", "Exec_Master_Log_Pos": "154", "Relay_Master_Log_File":
           "mysql-bin.000002", "Seconds_Behind_Master": None, "Master_Server_Id": "1",
       "Channel_Name": ""}


def test_both_names_read_the_same_channel() -> None:
    (new,) = r.replica_threads(list(NEW), [tuple(NEW.values())])
    (old,) = r.replica_threads(list(OLD), [tuple(OLD.values())])
    assert (new.names, old.names) == ("replica", "slave")
    assert (new.io_running, new.sql_running, old.io_running, old.sql_running) == (
        "Yes", "No", "Yes", "No")
    assert (new.source, old.source) == ("10.0.1.5:3306", "192.168.0.10:3306")
    assert (new.source_server_id, old.source_server_id) == (11, 1)
    assert (new.seconds_behind, old.seconds_behind) == (None, None)
    assert (new.exec_source_file, new.exec_source_pos) == ("binlog.000012", 3011)
    assert new.channel == "dr" and old.column("sql") == "Slave_SQL_Running"
    assert new.column("behind") == "Seconds_Behind_Source"


def test_a_number_that_does_not_read_is_left_out() -> None:
    row = dict(OLD, Master_Port="33o6", Seconds_Behind_Master="٣", Master_Server_Id="-1")
    (t,) = r.replica_threads(list(row), [tuple(row.values())])
    assert (t.source_port, t.seconds_behind, t.source_server_id) == (None, None, None)


def test_the_incident_is_read_from_the_applier_error_in_every_wording() -> None:
    # ER_REPLICA_INCIDENT (1590), "occured on the source" from 8.0.22 (MySQL's errmsg, as
    # Connector/J's MysqlErrorNumbers quotes it), "on the master" before; MariaDB spells it
    # "occurred" (MDEV-21443's release notes).
    (new,) = r.replica_threads(list(NEW), [tuple(NEW.values())])
    (old,) = r.replica_threads(list(OLD), [tuple(OLD.values())])
    assert r.incident_of(new) == ("LOST_EVENTS", "cluster disconnect")
    assert r.incident_of(old) == ("LOST_EVENTS", "mysqld startup")
    maria = dict(OLD, Last_SQL_Error="The incident LOST_EVENTS occurred on the master. "
                                     "Message: error writing to the binary log")
    (m,) = r.replica_threads(list(maria), [tuple(maria.values())])
    assert r.incident_of(m) == ("LOST_EVENTS", "error writing to the binary log")
    other = dict(OLD, Last_SQL_Errno="1062", Last_SQL_Error="Duplicate entry '5'")
    (d,) = r.replica_threads(list(other), [tuple(other.values())])
    assert r.incident_of(d) is None


def test_binlog_status_and_events() -> None:
    assert r.binlog_status([]) is None
    assert r.binlog_status([("binlog.000003", "1921", "", "", "")]) == r.BinlogStatus(
        "binlog.000003", 1921)
    # SHOW BINLOG EVENTS as MariaDB 10.11 and MySQL give an incident.
    events = r.binlog_events([("binlog.000001", 1512, "Incident", 1, 1569, "#1 (LOST_EVENTS)"),
                              ("binlog.000001", 1569, "Query", 1, 1640, "BEGIN")])
    assert [r.incident_kind(e) for e in events] == ["LOST_EVENTS", None]


def test_binlog_index_rows_once_per_epoch_with_the_file_names() -> None:
    # epoch, File, Position, next_file, next_position (the columns ndbtop asks for).
    rows = [(7, "./binlog.000001", 157, "./binlog.000001", 1690),
            (7, "./binlog.000001", 157, "./binlog.000001", 1690),  # another orig_server_id
            (8, "./binlog.000001", 1690, "./binlog.000002", 157),
            (9, "./binlog.000002", 160, "./binlog.000002", 800)]
    index = r.index_rows(rows)
    assert [i.epoch for i in index] == [7, 8, 9]
    assert index[1].follows(index[0]) and not index[2].follows(index[1])
    assert index[2].file == "binlog.000002"


def test_status_variables_of_ndb_replication() -> None:
    values = r.status_values([("Ndb_slave_max_replicated_epoch", "8589934595"),
                              ("Ndb_conflict_fn_max", "2"), ("Ndb_conflict_fn_epoch2", "3"),
                              ("Ndb_conflict_epoch_delete_delete_count", "1"),
                              ("Ndb_conflict_trans_row_reject_count", "9"),
                              ("Ndb_conflict_last_conflict_epoch", "77"),
                              ("Ndb_last_commit_epoch_server", "x")])
    assert r.max_replicated_epoch(values) == 8589934595
    # Rows found in conflict by a function, and delete-delete conflicts; not the epochs.
    assert r.conflicts_of(values) == 6
    assert r.conflicts_of({"Ndb_last_commit_epoch_server": 5}) is None
    assert "Ndb_last_commit_epoch_server" not in values


def test_the_applier_status_table_per_channel() -> None:
    # storage/ndb/plugin/ndb_replica_status_table.cc (NDB 9.0): some of its columns.
    columns = ["CHANNEL_NAME", "MAX_REPLICATED_EPOCH", "API_WAIT_EXEC_COMPLETE_COUNT",
               "CONFLICT_FN_MAX", "CONFLICT_FN_EPOCH2", "CONFLICT_TRANS_ROW_CONFLICT_COUNT",
               "CONFLICT_EPOCH_DELETE_DELETE_COUNT", "CONFLICT_LAST_CONFLICT_EPOCH"]
    (row,) = r.applier_status(columns, [("dr", 42, 1000, 1, 4, 7, 2, 99)])
    assert (row.channel, row.max_replicated_epoch, row.conflicts) == ("dr", 42, 7)


def test_epochs_are_written_as_ndb_writes_them() -> None:
    assert epoch_text(1234 << 32 | 5) == "1234/5" and epoch_text(None) == "-"
