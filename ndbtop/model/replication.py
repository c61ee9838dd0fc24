"""Replication between clusters: what each SQL node says of it, and the channels joined.

NDB Cluster replication copies one cluster to another through the binary log of SQL nodes
of the source (the binlog injector writes each epoch with changes as one transaction, and
records it in ``mysql.ndb_binlog_index``) and the replica threads of SQL nodes of the
replica (which record the last epoch applied from each source server in
``mysql.ndb_apply_status``). An :class:`Endpoint` is what one SQL node gives of both
sides; a :class:`Channel` joins a replica's channel to the source SQL node it reads from.

Epochs are 64-bit: the global checkpoint (GCI) in the high word, the micro-GCP in the low
word, written ``GCI/micro`` as NDB writes them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ndbtop.compat import SLOTS

EPOCH_WORD = 0xFFFFFFFF


def epoch_text(epoch: int | None) -> str:
    """``1234/5`` for an epoch (``-`` for none), as the cluster log and NDB's tools write
    it."""
    if epoch is None:
        return "-"
    return f"{epoch >> 32}/{epoch & EPOCH_WORD}"


@dataclass(frozen=True, **SLOTS)
class ReplicaThreads:
    """One row of ``SHOW REPLICA STATUS`` (``SHOW SLAVE STATUS``): one channel of a replica.

    ``io_running`` and ``sql_running`` are the server's words (``Yes``, ``No``,
    ``Connecting``); ``names`` says which column names the server used: ``replica``
    (``Replica_IO_Running``, ``Source_Host``... from MySQL 8.0.22) or ``slave``
    (``Slave_IO_Running``, ``Master_Host``...: MySQL before 8.0.22, NDB 7.6, MariaDB).
    """

    channel: str
    source_host: str
    source_port: int | None
    source_server_id: int | None
    io_running: str
    sql_running: str
    seconds_behind: int | None
    """``Seconds_Behind_Source`` (``Seconds_Behind_Master``): None when the server says NULL."""
    last_io_errno: int = 0
    last_io_error: str = ""
    last_sql_errno: int = 0
    last_sql_error: str = ""
    io_state: str = ""
    sql_state: str = ""
    exec_source_file: str = ""
    exec_source_pos: int | None = None
    names: str = "replica"

    @property
    def io_ok(self) -> bool:
        """The receiver (I/O) thread runs and is connected."""
        return self.io_running == "Yes"

    @property
    def sql_ok(self) -> bool:
        """The applier (SQL) thread runs."""
        return self.sql_running == "Yes"

    @property
    def source(self) -> str:
        """``host:port`` of the source as the replica names it."""
        host = f"[{self.source_host}]" if ":" in self.source_host else self.source_host
        return host if self.source_port is None else f"{host}:{self.source_port}"

    def column(self, what: str) -> str:
        """The server's own name of a column for messages: ``Replica_SQL_Running`` or
        ``Slave_SQL_Running``; ``Seconds_Behind_Source`` or ``Seconds_Behind_Master``."""
        old = self.names == "slave"
        return {
            "io": "Slave_IO_Running" if old else "Replica_IO_Running",
            "sql": "Slave_SQL_Running" if old else "Replica_SQL_Running",
            "behind": "Seconds_Behind_Master" if old else "Seconds_Behind_Source",
            "status": "SHOW SLAVE STATUS" if old else "SHOW REPLICA STATUS",
        }[what]


@dataclass(frozen=True, **SLOTS)
class BinlogIncident:
    """An incident event in a source's binary log (``LOST_EVENTS``: the binary log misses
    changes from here on), found at a gap of ``mysql.ndb_binlog_index`` (the binary log does
    not go on from one epoch's end to the next epoch's start)."""

    kind: str
    file: str
    position: int
    info: str
    epoch_before: int | None
    """The last epoch the binary log holds before the incident."""
    epoch_after: int | None
    """The first epoch after it (None until one is written)."""
    seen_at: float
    """Wall time ndbtop found it (the event carries no time ``SHOW BINLOG EVENTS`` gives)."""


@dataclass(frozen=True, **SLOTS)
class Endpoint:
    """What one SQL node gives of replication, at its last read.

    A source SQL node (binary log on) gives its binary log position, the newest epoch of
    its ``ndb_binlog_index`` and how fast epochs are written there; a replica SQL node its
    channels, the epochs applied per source server (``ndb_apply_status``) and its conflict
    counters. One SQL node may be both.
    """

    target: str
    side: str
    """Which cluster it belongs to, in words: ``this cluster``, ``replica`` (or a context)."""
    error: str | None = None
    """Why the last read failed (None: it answered)."""
    read_at: float | None = None
    """Wall time of the last good read."""
    server_id: int | None = None
    version: str = ""
    binlog_file: str | None = None
    """The binary log being written (None: the binary log is off, or not readable)."""
    binlog_position: int | None = None
    newest_epoch: int | None = None
    """The newest epoch of ``mysql.ndb_binlog_index``."""
    last_commit_epoch: int | None = None
    """``Ndb_last_commit_epoch_server``: the newest epoch of a transaction this server
    committed."""
    epoch_rate: float | None = None
    """Epochs written to ``ndb_binlog_index`` per second, measured between reads."""
    epoch_rate_window_s: float = 0.0
    incidents: tuple[BinlogIncident, ...] = ()
    channels: tuple[ReplicaThreads, ...] = ()
    applied: tuple[tuple[int, int], ...] = ()
    """``(server_id, epoch)`` of ``mysql.ndb_apply_status``: the newest epoch applied from
    each source server, cluster-wide on the replica."""
    max_replicated_epoch: int | None = None
    """``Ndb_replica_max_replicated_epoch`` (``Ndb_slave_max_replicated_epoch`` before
    8.0.23): the newest epoch this SQL node's applier committed."""
    conflicts: int | None = None
    """The conflict counters (``Ndb_conflict_fn_*`` and ``Ndb_conflict_epoch_delete_
    delete_count``) summed; None when the server has none."""
    conflicts_per_min: float | None = None
    """How fast ``conflicts`` rose between the last two reads."""
    conflicts_rose: int = 0
    """By how much ``conflicts`` rose between the last two reads."""
    channel_epochs: tuple[tuple[str, int], ...] = ()
    """(channel, newest epoch its applier committed) from
    ``performance_schema.ndb_replication_applier_status`` (NDB 9.0 and later)."""
    channel_conflicts: tuple[tuple[str, int], ...] = ()
    """(channel, its conflict counters summed) from the same table."""
    unavailable: tuple[tuple[str, str], ...] = ()
    """Parts not read: (what, why), such as ``ndb_binlog_index`` without the privilege."""

    @property
    def binlogging(self) -> bool:
        """Whether the binary log is on (a source)."""
        return self.binlog_file is not None

    def applied_from(self, server_id: int | None) -> int | None:
        """The newest epoch applied from source server ``server_id``."""
        if server_id is None:
            return None
        return next((epoch for sid, epoch in self.applied if sid == server_id), None)


@dataclass(frozen=True, **SLOTS)
class Lag:
    """How far a replica is behind its source, in epochs and in seconds.

    ``epochs`` counts the epochs of the source's binary log newer than the one the replica
    applied from that source server; ``seconds`` is derived from it at the rate the source
    wrote epochs (``rate`` per second over ``window_s``), never measured: ``basis`` says
    so, or why there is none.
    """

    epochs: int | None
    seconds: float | None
    basis: str
    at_least: bool = False
    """``epochs`` is a lower bound (the count stopped at its limit)."""


@dataclass(frozen=True, **SLOTS)
class Channel:
    """A replication channel: a replica SQL node's channel and the source SQL node it
    reads from (when that one is watched)."""

    replica: str
    """The replica endpoint's target."""
    channel: str
    threads: ReplicaThreads
    source: str | None
    """The source endpoint's target, when the channel's source is a watched SQL node."""
    applied_epoch: int | None
    source_epoch: int | None
    lag: Lag
    incident: BinlogIncident | None = None
    """A LOST_EVENTS incident in the source's binary log that the replica has not applied
    past."""
    conflicts_per_min: float | None = None
    read_at: float | None = None

    @property
    def key(self) -> str:
        """What names the channel in series and findings: ``replica/channel``."""
        return f"{self.replica}/{self.channel}"

    @property
    def source_label(self) -> str:
        """The source endpoint, or the address the replica names when it is not watched."""
        return self.source or self.threads.source

    @property
    def label(self) -> str:
        """``source -> replica`` (with the channel's name when it has one)."""
        name = f" [{self.channel}]" if self.channel else ""
        return f"{self.source_label} -> {self.replica}{name}"


@dataclass(frozen=True, **SLOTS)
class ReplicationState:
    """Every SQL node read for replication and the channels joined from them."""

    endpoints: tuple[Endpoint, ...]
    channels: tuple[Channel, ...]
    lag_threshold_s: float
    """Seconds of lag past which ``replication_lag`` warns (``--replication-lag-threshold``)."""
    read_at: float | None = None
    every_s: float = 0.0
    """Seconds between two reads at the moment (faster while the Replication view shows)."""

    def endpoint(self, target: str | None) -> Endpoint | None:
        """The endpoint read at ``target``."""
        return next((e for e in self.endpoints if e.target == target), None)
