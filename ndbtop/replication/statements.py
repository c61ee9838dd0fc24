"""The statements the replication reader sends, each tagged ``/* ndbtop */``.

Where servers differ, the reader tries the newest form and falls back on a syntax error
(1064) to the older one, once per connection: ``SHOW BINARY LOG STATUS`` (MySQL 8.2 and
later; 8.4 has no other) then ``SHOW BINLOG STATUS`` (MariaDB 10.5.2 and later) then
``SHOW MASTER STATUS``; ``SHOW REPLICA STATUS`` (8.0.22 and later) then ``SHOW SLAVE
STATUS``. MariaDB lists every connection of a multi-source replica with ``SHOW ALL SLAVES
STATUS`` only.
"""

from __future__ import annotations

TAG = "/* ndbtop */"

IDENTITY = f"{TAG} SELECT @@server_id, @@version, @@log_bin"
BINLOG_STATUS = (f"{TAG} SHOW BINARY LOG STATUS", f"{TAG} SHOW BINLOG STATUS",
                 f"{TAG} SHOW MASTER STATUS")
REPLICA_STATUS = (f"{TAG} SHOW REPLICA STATUS", f"{TAG} SHOW SLAVE STATUS")
MARIADB_REPLICA_STATUS = (f"{TAG} SHOW ALL SLAVES STATUS",)
STATUS = (f"{TAG} SHOW GLOBAL STATUS WHERE Variable_name IN "
          "('Ndb_last_commit_epoch_server', 'Ndb_replica_max_replicated_epoch', "
          "'Ndb_slave_max_replicated_epoch') OR Variable_name LIKE 'Ndb\\_conflict\\_%'")
APPLY_STATUS = f"{TAG} SELECT server_id, epoch FROM mysql.ndb_apply_status"
APPLIER_STATUS = f"{TAG} SELECT * FROM performance_schema.ndb_replication_applier_status"
"""Per channel, from NDB 9.0 (storage/ndb/plugin/ndb_replica_status_table.cc)."""

FIRST_EPOCHS = 200
"""Epochs of ``ndb_binlog_index`` read at the first read (the newest)."""
NEW_EPOCHS = 2000
"""Epochs read at most at each later read (the newest, when more were written)."""
INDEX_COLUMNS = "epoch, File, Position, next_file, next_position"


def newest_epochs(after: int | None) -> str:
    """The newest epochs of ``ndb_binlog_index`` (those after ``after`` when given)."""
    if after is None:
        return (f"{TAG} SELECT {INDEX_COLUMNS} FROM mysql.ndb_binlog_index "
                f"ORDER BY epoch DESC LIMIT {FIRST_EPOCHS}")
    return (f"{TAG} SELECT {INDEX_COLUMNS} FROM mysql.ndb_binlog_index WHERE epoch > {after:d} "
            f"ORDER BY epoch DESC LIMIT {NEW_EPOCHS}")


COUNT_LIMIT = 1_000_000
"""Epochs counted at most behind a replica (``at least`` beyond)."""


def epochs_after(epoch: int, until: int | None = None) -> str:
    """How many epochs of ``ndb_binlog_index`` are newer than ``epoch`` (and not newer than
    ``until``), at most :data:`COUNT_LIMIT`."""
    upper = "" if until is None else f" AND epoch <= {until:d}"
    return (f"{TAG} SELECT COUNT(*) FROM (SELECT DISTINCT epoch FROM mysql.ndb_binlog_index "
            f"WHERE epoch > {epoch:d}{upper} LIMIT {COUNT_LIMIT}) AS behind")


EVENTS_READ = 20
"""Binary log events read at most to find what lies between two epochs."""


def binlog_events(file: str, position: int | None) -> str:
    """``SHOW BINLOG EVENTS`` of ``file`` from ``position`` (its start when None); the file
    name is one the server gave, quoted as a string."""
    quoted = "'" + file.replace("\\", "\\\\").replace("'", "''") + "'"
    start = "" if position is None else f" FROM {position:d}"
    return f"{TAG} SHOW BINLOG EVENTS IN {quoted}{start} LIMIT {EVENTS_READ}"
