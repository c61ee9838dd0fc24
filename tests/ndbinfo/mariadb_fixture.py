"""A private MariaDB server holding an ``ndbinfo`` database filled with real cluster rows.

The server runs from a temporary data directory on a free port and its own socket,
with grants enforced: ``root`` (password :data:`ROOT_PASSWORD`, socket only),
``ndbtop`` and ``unicode`` (a password beyond latin-1) with ``GRANT SELECT ON
ndbinfo.*``, and ``limited``, which may read every table except ``transporters``.
The tables are built from ``ndbinfo-schema.json`` and hold the rows ndbinfo.md §7
quotes from real clusters (B-PRO, B-LAB; NDB 7.5), with the columns the sources
leave out filled in.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

import pymysql

INSTALL_HINT = "MariaDB is not installed: run `apt-get install -y mariadb-server`"
ROOT_PASSWORD = "root-Pw.1"
NDBTOP_USER, NDBTOP_PASSWORD = "ndbtop", "s3cret#pw"
LIMITED_USER, LIMITED_PASSWORD = "limited", "limited-pw"
LIMITED_DENIED = "transporters"
UNICODE_USER, UNICODE_PASSWORD = "unicode", "pässwörd-€"
NODE_VERSION = "mysql-5.7.19 ndb-7.5.7"
_SEARCH_PATH = ("/usr/sbin", "/usr/local/sbin", "/usr/libexec", "/usr/local/mysql/bin")
_START_TIMEOUT = 60.0

# Rows quoted in ndbinfo.md §7.3 (B-PRO: NDB 7.5; B-LAB: NDB 7.6.9).
_THREADS = ("main", "rep", "ldm", "recv")
_DESCRIPTIONS = {
    "main": "main thread, schema and distribution handling",
    "rep": "rep thread, asynch replication and proxy block handling",
    "ldm": "ldm thread, handling a set of data partitions",
    "recv": "receive thread, performing receieve and polling for new receives",
}
_CPU = {"main": (0, 1, 99), "rep": (0, 1, 99), "ldm": (0, 1, 99), "recv": (2, 2, 96)}
_BLOCKS = {
    0: [(b, 0) for b in ("DBTC", "DBDIH", "DBDICT", "NDBCNTR", "QMGR", "NDBFS", "TRIX")]
    + [("DBUTIL", 0), ("DBSPJ", 0), ("THRMAN", 1)],
    1: [(b, 0) for b in ("BACKUP", "DBLQH", "DBACC", "DBTUP", "SUMA", "DBTUX", "TSMAN")]
    + [("LGMAN", 0), ("PGMAN", 0), ("RESTORE", 0), ("DBINFO", 0), ("PGMAN", 2), ("THRMAN", 2)],
    2: [(b, 1) for b in ("DBLQH", "DBACC", "DBTUP", "DBTUX", "BACKUP", "RESTORE", "PGMAN")]
    + [("THRMAN", 3)],
    3: [("CMVMI", 0), ("TRPMAN", 1), ("THRMAN", 4)],
}
MIB = 1024 * 1024
_FAULTS = (0, 0, 10, 1)
"""threadstat os_ru_minflt, os_ru_majflt, os_ru_nvcsw, os_ru_nivcsw."""


def os_tid(node_id: int, thr_no: int) -> int:
    """The OS thread id the fixture gives a data node thread."""
    return 4000 + 100 * node_id + thr_no


FIXTURE_ROWS: dict[str, list[tuple[Any, ...]]] = {
    "nodes": [(1, 2000, "STARTED", 0, 1), (2, 2000, "STARTED", 0, 1)],
    # ndbinfo.md §7: MaxNoOfConcurrentTransactions (106) and DataMemory (112) of T-76.
    "config_values": [(1, 106, "2048"), (2, 106, "2048"), (1, 112, "31457280"),
                      (2, 112, "31457280")],
    "processes": [
        (1, "NDB", NODE_VERSION, 5001, 5000, "ndbmtd", "ndb://192.168.56.103"),
        (2, "NDB", NODE_VERSION, 5101, 5100, "ndbmtd", "ndb://192.168.56.104"),
        (49, "MGM", NODE_VERSION, 4001, None, "ndb_mgmd", "ndb://192.168.56.102:1186"),
        # A SQL node as ndbinfo.md §2 describes one: no angel on Linux, a mysql:// URI.
        (50, "API", NODE_VERSION, 6001, None, "mysqld", "mysql://192.168.56.105:3306"),
    ],
    "threads": [
        (n, t, name, _DESCRIPTIONS[name]) for n in (1, 2) for t, name in enumerate(_THREADS)
    ],
    "threadblocks": [
        (n, t, block, inst) for n in (1, 2) for t in range(4) for block, inst in _BLOCKS[t]
    ],
    "cpustat": [
        (n, t, *_CPU[name], _CPU[name][0] + _CPU[name][1], _CPU[name][2], 0, 0, 0, 1_000_000)
        for n in (1, 2)
        for t, name in enumerate(_THREADS)
    ],
    "threadstat": [
        (
            n,
            t,
            name,
            1000,
            900,
            100,
            0,
            0,
            0,
            0,
            os_tid(n, t),
            1_700_000_000_000,
            2000,
            500,
            *_FAULTS,
        )
        for n in (1, 2)
        for t, name in enumerate(_THREADS)
    ],
    # node_id, block_instance, pages_written, pages_written_lcp, pages_read, log_waits,
    # page_requests_direct_return, page_requests_wait_queue, page_requests_wait_io
    "diskpagebuffer": [
        (1, 1, 12, 10, 17, 0, 10488, 0, 17),
        (1, 2, 0, 0, 1, 0, 1, 0, 1),
        (2, 1, 11, 9, 17, 0, 10408, 0, 17),
        (2, 2, 0, 0, 1, 0, 1, 0, 1),
    ],
    "memoryusage": [
        (1, "Data memory", 3309568, 101, 41943040, 1280),
        (1, "Index memory", 638976, 78, 15990784, 1952),
        (1, "Long message buffer", 524288, 2048, 67108864, 262144),
        (2, "Data memory", 3309568, 101, 41943040, 1280),
        (2, "Index memory", 638976, 78, 15990784, 1952),
        (2, "Long message buffer", 393216, 1536, 67108864, 262144),
    ],
    "logspaces": [
        (n, "REDO", 0, p, 268435456, MIB if p == 0 else 0) for n in (1, 2) for p in range(4)
    ]
    + [(n, "DD-UNDO", 20, 0, 16 * MIB, 2 * MIB) for n in (1, 2)],
    "logbuffers": [(n, "REDO", 0, 1, 16 * MIB, 320 * 1024) for n in (1, 2)]
    + [(n, "DD-UNDO", 20, 0, 2 * MIB, 0) for n in (1, 2)],
    "transporters": [
        (1, 2, "CONNECTED", "192.168.56.104", 139508260, 117712512, 1, 0, 0, 0, 0, 0),
        (2, 1, "CONNECTED", "192.168.56.103", 117712512, 139508260, 1, 0, 0, 0, 0, 0),
        # An API slot nobody uses, and a link to itself as older versions list it.
        (1, 3, "CONNECTING", "-", 0, 0, 0, 0, 0, 0, 0, 0),
        (2, 3, "CONNECTING", "-", 0, 0, 0, 0, 0, 0, 0, 0),
        (1, 1, "DISCONNECTED", "-", 0, 0, 0, 0, 0, 0, 0, 0),
    ],
    "disk_write_speed_aggregate_node": [
        (1, 75000, 130000, 7540, 65235, 1000, 65000),
        (2, 74000, 129000, 7500, 65200, 990, 64900),
    ],
}
"""Rows per table, in the column order of the schema."""


def find_binary(*names: str) -> str | None:
    """The first of ``names`` on ``PATH`` or in the usual server directories."""
    search = os.pathsep.join([os.environ.get("PATH", ""), *_SEARCH_PATH])
    for name in names:
        found = shutil.which(name, path=search)
        if found:
            return found
    return None


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def schema_ddl() -> list[str]:
    """``CREATE TABLE`` statements for every table of ``ndbinfo-schema.json``."""
    text = resources.files("ndbtop.sim.sqlnode").joinpath("ndbinfo-schema.json").read_text()
    statements = []
    for name, entry in sorted(json.loads(text).items()):
        columns = ", ".join(f"`{c}` {t} NULL" for c, t in entry["columns"])
        statements.append(
            f"CREATE TABLE ndbinfo.`{name}` ({columns}) ENGINE=MyISAM DEFAULT CHARSET=latin1"
        )
    return statements


class MariaDbServer:
    """One private ``mariadbd``: install, start, kill and restart it."""

    def __init__(self, base: Path, server_args: Sequence[str] = ()) -> None:
        self.base = base
        self.server_args = tuple(server_args)
        """More ``mariadbd`` options; one naming ``--log-bin`` turns the binary log on."""
        self.datadir = base / "data"
        self.socket = str(base / "mysqld.sock")
        self.port = free_port()
        self.log: list[str] = []
        self._process: subprocess.Popen[str] | None = None
        server = find_binary("mariadbd", "mysqld")
        install = find_binary("mariadb-install-db", "mysql_install_db")
        if server is None or install is None:
            raise RuntimeError(INSTALL_HINT)
        self._server, self._install = server, install
        self._os_user = pwd.getpwuid(os.geteuid()).pw_name

    @property
    def tmpdir(self) -> Path:
        """The server's own temporary directory: installs and servers running side by side
        (two test workers, a replicating pair) never share /tmp's files."""
        path = self.base / "tmp"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def install(self) -> None:
        """Create the system tables in a fresh data directory."""
        done = subprocess.run(
            [
                self._install,
                "--no-defaults",
                f"--datadir={self.datadir}",
                f"--user={self._os_user}",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "TMPDIR": str(self.tmpdir)},
        )
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise RuntimeError(f"mariadb-install-db failed: {' / '.join(tail)}")

    def start(self) -> None:
        """Start the server and return once it accepts connections."""
        process = subprocess.Popen(
            [
                self._server,
                "--no-defaults",
                f"--datadir={self.datadir}",
                f"--socket={self.socket}",
                f"--port={self.port}",
                "--bind-address=127.0.0.1",
                f"--user={self._os_user}",
                f"--pid-file={self.base / 'mysqld.pid'}",
                f"--tmpdir={self.tmpdir}",
                "--skip-name-resolve",
                *(() if any(a.startswith("--log-bin") for a in self.server_args)
                  else ("--skip-log-bin",)),
                "--innodb-buffer-pool-size=8M",
                "--max-connections=50",
                *self.server_args,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self._process = process
        ready = threading.Event()
        assert process.stderr is not None
        stderr = process.stderr

        def drain() -> None:
            for line in stderr:
                self.log.append(line.rstrip())
                if "ready for connections" in line:
                    ready.set()
            ready.set()

        threading.Thread(target=drain, name="mariadbd-log", daemon=True).start()
        if not ready.wait(_START_TIMEOUT) or process.poll() is not None:
            self.kill()
            raise RuntimeError(f"mariadbd did not start: {' / '.join(self.log[-3:])}")

    def kill(self) -> None:
        """SIGKILL the server, as a crash would, and reap it."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.wait(timeout=30)

    def stop(self) -> None:
        """Shut the server down cleanly (SIGTERM), killing it if it hangs."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)

    @property
    def running(self) -> bool:
        """Whether the server process is alive."""
        return self._process is not None and self._process.poll() is None

    @contextmanager
    def admin(self, password: str | None = ROOT_PASSWORD) -> Iterator[pymysql.cursors.Cursor]:
        """A cursor of ``root`` over the socket, autocommitting."""
        conn = pymysql.connect(
            unix_socket=self.socket, user="root", password=password or "", autocommit=True
        )
        try:
            with conn.cursor() as cursor:
                yield cursor
        finally:
            conn.close()

    def bootstrap(self) -> None:
        """Set the root password, create the accounts and the ``ndbinfo`` database."""
        with self.admin(password=None) as cur:
            cur.execute("ALTER USER 'root'@'localhost' IDENTIFIED BY %s", (ROOT_PASSWORD,))
        with self.admin() as cur:
            cur.execute("CREATE DATABASE ndbinfo")
            for ddl in schema_ddl():
                cur.execute(ddl)
            for table, rows in FIXTURE_ROWS.items():
                insert_rows(cur, table, rows)
            for user, password in (
                (NDBTOP_USER, NDBTOP_PASSWORD),
                (UNICODE_USER, UNICODE_PASSWORD),
            ):
                cur.execute("CREATE USER %s@'%%' IDENTIFIED BY %s", (user, password))
                cur.execute("GRANT SELECT ON ndbinfo.* TO %s@'%%'", (user,))
            cur.execute("CREATE USER %s@'%%' IDENTIFIED BY %s", (LIMITED_USER, LIMITED_PASSWORD))
            cur.execute("SHOW TABLES FROM ndbinfo")
            for (table,) in cur.fetchall():
                if table != LIMITED_DENIED:
                    cur.execute(f"GRANT SELECT ON ndbinfo.`{table}` TO %s@'%%'", (LIMITED_USER,))


def insert_rows(cur: pymysql.cursors.Cursor, table: str, rows: Sequence[Sequence[Any]]) -> None:
    """Insert ``rows`` (full rows, schema column order) into ``ndbinfo.table``."""
    if not rows:
        return
    marks = ", ".join(["%s"] * len(rows[0]))
    cur.executemany(f"INSERT INTO ndbinfo.`{table}` VALUES ({marks})", [tuple(r) for r in rows])


@contextmanager
def private_mariadb(base: Path) -> Iterator[MariaDbServer]:
    """A bootstrapped private server for the duration of the block."""
    server = MariaDbServer(base)
    server.install()
    server.start()
    try:
        server.bootstrap()
        yield server
    finally:
        server.stop()
