"""Two private MariaDB servers replicating on loopback: a primary writing a binary log and a
replica reading it, with NDB's replication tables added as fixtures.

MariaDB has no NDB binlog injector, so :meth:`ReplicationPair.write_epoch` plays it as
ha_ndbcluster_binlog.cc does: each epoch is one transaction in the binary log holding the
changes and a write of ``mysql.ndb_apply_status`` (this server's id, the epoch; the
``inject_apply_status_write`` of the injector), and the epoch's place in the binary log is
recorded in ``mysql.ndb_binlog_index`` (local: not replicated). The replica applies both as
a real replica does, so its ``ndb_apply_status`` holds the last epoch it applied. The
tables have NDB's columns (MySQL Reference Manual 8.0, "NDB Cluster Replication Schema and
Tables"); ``ndb_apply_status`` is an NDB table in a cluster and InnoDB here.

What MariaDB gives for real: ``SHOW REPLICA STATUS`` / ``SHOW ALL SLAVES STATUS`` with
the ``Slave_*`` and ``Master_*`` names, threads that stop, their errors, ``SHOW BINLOG
EVENTS`` and a real LOST_EVENTS incident: a statement on a non-transactional table that
outgrows ``max_binlog_stmt_cache_size`` cannot be rolled back, so the primary writes an
Incident event and the replica's applier stops on it with error 1590 (MDEV-21443).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pymysql
from mariadb_fixture import ROOT_PASSWORD, MariaDbServer

MONITOR_USER, MONITOR_PASSWORD = "monitor", "mon-Pw.7"
"""The account ndbtop reads both servers with."""
REPL_USER, REPL_PASSWORD = "repl", "repl-Pw.3"
PRIMARY_ID, REPLICA_ID = 1, 2
CACHE = 4096
"""The primary's binary log caches (their smallest): a statement on a MyISAM table of a
few kB outgrows them."""

NDB_BINLOG_INDEX = """CREATE TABLE mysql.ndb_binlog_index (
    `Position` BIGINT(20) UNSIGNED NOT NULL,
    `File` VARCHAR(255) NOT NULL,
    `epoch` BIGINT(20) UNSIGNED NOT NULL,
    `inserts` INT(10) UNSIGNED NOT NULL,
    `updates` INT(10) UNSIGNED NOT NULL,
    `deletes` INT(10) UNSIGNED NOT NULL,
    `schemaops` INT(10) UNSIGNED NOT NULL,
    `orig_server_id` INT(10) UNSIGNED NOT NULL,
    `orig_epoch` BIGINT(20) UNSIGNED NOT NULL,
    `gci` INT(10) UNSIGNED NOT NULL,
    `next_position` bigint(20) unsigned NOT NULL,
    `next_file` varchar(255) NOT NULL,
    PRIMARY KEY (`epoch`,`orig_server_id`,`orig_epoch`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1"""
NDB_APPLY_STATUS = """CREATE TABLE mysql.ndb_apply_status (
    `server_id` INT UNSIGNED NOT NULL,
    `epoch` BIGINT UNSIGNED NOT NULL,
    `log_name` VARCHAR(255) BINARY NOT NULL,
    `start_pos` BIGINT UNSIGNED NOT NULL,
    `end_pos` BIGINT UNSIGNED NOT NULL,
    PRIMARY KEY USING HASH (`server_id`)
) ENGINE=InnoDB DEFAULT CHARSET=latin1"""
"""The MySQL Reference Manual's definition (ENGINE=NDB there)."""


def epoch_of(gci: int, micro: int = 0) -> int:
    """An epoch: the GCI in the high word, the micro-GCP in the low one."""
    return gci << 32 | micro


class ReplicationPair:
    """A primary and its replica, both private MariaDB servers."""

    def __init__(self, base: Path) -> None:
        self.primary = MariaDbServer(base / "primary", (
            f"--server-id={PRIMARY_ID}", "--log-bin=binlog", "--binlog-format=ROW",
            f"--binlog-cache-size={CACHE}", f"--binlog-stmt-cache-size={CACHE}",
            f"--max-binlog-stmt-cache-size={CACHE}"))
        self.replica = MariaDbServer(base / "replica", (
            f"--server-id={REPLICA_ID}", "--relay-log=relay", "--skip-slave-start"))
        self.gci = 1000
        self.rows = 0

    def start(self) -> None:
        """Install both servers (one after the other: mariadb-install-db's temporary
        tables share /tmp), start them at once, then set up replication."""
        servers = (self.primary, self.replica)
        errors: list[BaseException] = []
        for server in servers:
            server.base.mkdir(parents=True, exist_ok=True)
            server.install()

        def up(server: MariaDbServer) -> None:
            try:
                server.start()
                with server.admin(password=None) as cur:
                    cur.execute("ALTER USER 'root'@'localhost' IDENTIFIED BY %s",
                                (ROOT_PASSWORD,))
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=up, args=(s,)) for s in servers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            self.stop()
            raise errors[0]
        self._accounts()
        self._tables()
        self.connect_replica()

    def _accounts(self) -> None:
        for server in (self.primary, self.replica):
            with server.admin() as cur:
                cur.execute("SET sql_log_bin = 0")
                cur.execute("CREATE USER %s@'%%' IDENTIFIED BY %s",
                            (MONITOR_USER, MONITOR_PASSWORD))
                cur.execute("GRANT SLAVE MONITOR, BINLOG MONITOR ON *.* TO %s@'%%'",
                            (MONITOR_USER,))
        with self.primary.admin() as cur:
            cur.execute("SET sql_log_bin = 0")
            cur.execute("CREATE USER %s@'%%' IDENTIFIED BY %s", (REPL_USER, REPL_PASSWORD))
            cur.execute("GRANT REPLICATION SLAVE ON *.* TO %s@'%%'", (REPL_USER,))

    def _tables(self) -> None:
        with self.primary.admin() as cur:
            # ndb_binlog_index is local to each SQL node: not in the binary log.
            cur.execute("SET sql_log_bin = 0")
            cur.execute(NDB_BINLOG_INDEX)
            cur.execute("GRANT SELECT ON mysql.ndb_binlog_index TO %s@'%%'", (MONITOR_USER,))
        for server in (self.primary, self.replica):
            with server.admin() as cur:
                cur.execute("SET sql_log_bin = 0")
                cur.execute(NDB_APPLY_STATUS)
                cur.execute("CREATE DATABASE shop")
                cur.execute("CREATE TABLE shop.orders (id INT PRIMARY KEY, note VARCHAR(64)) "
                            "ENGINE=InnoDB")
                cur.execute("CREATE TABLE shop.events (id INT PRIMARY KEY, body TEXT) "
                            "ENGINE=MyISAM")
                cur.execute("GRANT SELECT ON mysql.ndb_apply_status TO %s@'%%'",
                            (MONITOR_USER,))

    def connect_replica(self, delay: int = 0) -> None:
        """Point the replica at the primary's current position and start it (``delay``:
        MASTER_DELAY, seconds the applier holds each event back)."""
        with self.primary.admin() as cur:
            cur.execute("SHOW MASTER STATUS")
            file, position = cur.fetchone()[:2]
        with self.replica.admin() as cur:
            cur.execute("STOP SLAVE")
            cur.execute("RESET SLAVE ALL")
            cur.execute(
                "CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%s, MASTER_USER=%s, "
                "MASTER_PASSWORD=%s, MASTER_USE_GTID=no, MASTER_LOG_FILE=%s, "
                "MASTER_LOG_POS=%s, MASTER_DELAY=%s",
                (self.primary.port, REPL_USER, REPL_PASSWORD, file, position, delay))
            cur.execute("START SLAVE")

    def write_epoch(self) -> int:
        """One epoch with changes, written as the NDB binlog injector writes it; returns the
        epoch."""
        self.gci += 1
        epoch = epoch_of(self.gci, 3)
        self.rows += 1
        conn = pymysql.connect(unix_socket=self.primary.socket, user="root",
                               password=ROOT_PASSWORD, autocommit=True)
        try:
            with conn.cursor() as cur:
                cur.execute("SHOW MASTER STATUS")
                file, start = cur.fetchone()[:2]
                cur.execute("BEGIN")
                cur.execute("INSERT INTO shop.orders VALUES (%s, 'epoch')", (self.rows,))
                cur.execute("REPLACE INTO mysql.ndb_apply_status VALUES (%s, %s, '', 0, 0)",
                            (PRIMARY_ID, epoch))
                cur.execute("COMMIT")
                cur.execute("SHOW MASTER STATUS")
                next_file, end = cur.fetchone()[:2]
                cur.execute("SET sql_log_bin = 0")
                cur.execute("INSERT INTO mysql.ndb_binlog_index VALUES "
                            "(%s, %s, %s, 1, 0, 0, 0, 0, 0, %s, %s, %s)",
                            (start, f"./{file}", epoch, self.gci, end, f"./{next_file}"))
        finally:
            conn.close()
        return epoch

    def lose_events(self) -> None:
        """A LOST_EVENTS incident in the primary's binary log: a MyISAM statement larger
        than the statement cache fails half done (error 1705), and since its rows cannot
        be rolled back the primary writes an Incident event."""
        values = ", ".join(f"({9000 + i}, REPEAT('x', 400))" for i in range(30))
        with self.primary.admin() as cur:
            try:
                cur.execute(f"INSERT INTO shop.events VALUES {values}")
            except pymysql.err.OperationalError as exc:
                assert exc.args[0] == 1705, exc
            else:
                raise AssertionError("the statement fitted the statement cache")

    def applied(self) -> int | None:
        """The epoch the replica's ndb_apply_status holds for the primary."""
        with self.replica.admin() as cur:
            cur.execute("SELECT epoch FROM mysql.ndb_apply_status WHERE server_id = %s",
                        (PRIMARY_ID,))
            row = cur.fetchone()
        return None if row is None else int(row[0])

    def sql_running(self) -> str:
        """The replica's Slave_SQL_Running."""
        with self.replica.admin() as cur:
            cur.execute("SHOW SLAVE STATUS")
            columns = [d[0] for d in cur.description]
            row = cur.fetchone()
        return "" if row is None else str(row[columns.index("Slave_SQL_Running")])

    def replica_sql(self, statement: str) -> None:
        """Run ``statement`` on the replica as root, outside its binary log."""
        with self.replica.admin() as cur:
            cur.execute(statement)

    def stop(self) -> None:
        """Shut both servers down."""
        for server in (self.replica, self.primary):
            server.stop()


@contextmanager
def private_pair(base: Path) -> Iterator[ReplicationPair]:
    """A replicating pair for the duration of the block."""
    pair = ReplicationPair(base)
    pair.start()
    try:
        yield pair
    finally:
        pair.stop()
