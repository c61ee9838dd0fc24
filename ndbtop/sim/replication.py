"""Replication between two simulated clusters: the source's binlogging SQL node and a
replica SQL node applying its binary log, in the source cluster's simulated time.

The source writes one epoch every 1 / ``epochs_per_s`` seconds (TimeBetweenEpochs, 100 ms
by default, with changes in every one), each a transaction of the binary log recorded in
``mysql.ndb_binlog_index``; the binary log rotates at :data:`MAX_BINLOG_SIZE`. The replica
applies what the source wrote (keeping up, or at ``apply_per_s`` epochs a second) and keeps
the last epoch applied in ``ndb_apply_status``. :meth:`SimReplication.disconnect` plays a
binlogging SQL node the data nodes disconnect for lagging: the epochs meanwhile never
reach its binary log, and when it reconnects it writes a LOST_EVENTS incident
(``cluster disconnect``) and rotates (ha_ndbcluster_binlog.cc
``Ndb_binlog_thread::check_reconnect_incident``); the replica's applier stops on it with
error 1590.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from ndbtop.compat import SLOTS

EPOCHS_PER_GCI = 20
"""TimeBetweenGlobalCheckpoints (2000 ms) over TimeBetweenEpochs (100 ms)."""
FIRST_GCI = 4_160_212
MAX_BINLOG_SIZE = 16 * 1024 * 1024
FILE_START = 157
"""Where the first transaction of a binary log starts: after the Format_description (4 to
126) and Previous_gtids (126 to 157) events of MySQL 8."""
KEEP_EPOCHS = 5_000
"""Epochs the simulated binary log keeps (older ones purged, as binary logs are)."""
APPLY_DELAY_S = 0.3
"""How long after the source wrote an epoch a replica that keeps up has applied it."""
INCIDENT_ERRNO = 1590
INCIDENT_SIZE = 66


@dataclass(frozen=True, **SLOTS)
class SimEpoch:
    """One epoch in the source's binary log."""

    index: int
    epoch: int
    file: str
    position: int
    next_file: str
    next_position: int
    at: float


@dataclass
class SimIncident:
    """A LOST_EVENTS incident: after epoch ``after`` (its index), at file:position."""

    after: int
    file: str
    position: int
    message: str


@dataclass
class SimReplication:
    """The state of one replication channel between two simulated clusters."""

    source_server_id: int = 1
    replica_server_id: int = 201
    epochs_per_s: float = 10.0
    host: str = "127.0.0.1"
    source_port: int | None = None
    """The source SQL node's port, once it listens (the replica names it)."""
    apply_per_s: float | None = None
    """Epochs the replica applies a second; None: it keeps up."""
    conflicts_per_s: float = 0.0
    now: float = 0.0
    rows: deque[SimEpoch] = field(default_factory=lambda: deque(maxlen=KEEP_EPOCHS))
    files: list[list[object]] = field(default_factory=lambda: [["binlog.000001", FILE_START]])
    incidents: list[SimIncident] = field(default_factory=list)
    binlogging: bool = True
    written: int = 0
    """Epochs the cluster has had since the start (binlogged or not)."""
    applied: float = -1.0
    """Index of the last epoch applied (fractional while applying slowly)."""
    sql_running: bool = True
    sql_error: tuple[int, str] = (0, "")
    conflicts: float = 0.0

    # The source.

    def epoch_of(self, index: int) -> int:
        """The epoch of the ``index``-th epoch: the GCI in the high word."""
        return (FIRST_GCI + index // EPOCHS_PER_GCI) << 32 | index % EPOCHS_PER_GCI

    def advance(self, now: float) -> None:
        """Write every epoch due by ``now`` and let the replica apply."""
        if now <= self.now:
            return
        while (self.written + 1) / self.epochs_per_s <= now:
            at = (self.written + 1) / self.epochs_per_s
            if self.binlogging:
                self._write(self.written, at)
            self.written += 1
        self._apply(now)
        self.conflicts += self.conflicts_per_s * (now - self.now)
        self.now = now

    def _write(self, index: int, at: float) -> None:
        file = self.files[-1]
        name, start = str(file[0]), int(file[1])  # type: ignore[call-overload]
        end = start + 1500 + (index * 37) % 1000
        next_name, next_start = name, end
        if end >= MAX_BINLOG_SIZE:
            next_name, next_start = self._rotate(), FILE_START
        file[1] = end
        self.rows.append(SimEpoch(index, self.epoch_of(index), name, start, next_name,
                                  next_start, at))

    def _rotate(self) -> str:
        number = int(str(self.files[-1][0]).rsplit(".", 1)[1]) + 1
        name = f"binlog.{number:06d}"
        self.files.append([name, FILE_START])
        return name

    def disconnect(self) -> None:
        """The data nodes disconnect the source SQL node for lagging: its binary log misses
        the epochs until :meth:`reconnect`."""
        self.binlogging = False

    def reconnect(self) -> None:
        """The source SQL node is back: the incident, then a new binary log."""
        file = self.files[-1]
        after = self.rows[-1].index if self.rows else -1
        position = int(file[1])  # type: ignore[call-overload]
        self.incidents.append(SimIncident(after, str(file[0]), position,
                                          "cluster disconnect"))
        file[1] = position + INCIDENT_SIZE
        self._rotate()
        self.binlogging = True

    def newest(self) -> SimEpoch | None:
        """The newest epoch of the binary log."""
        return self.rows[-1] if self.rows else None

    # The replica.

    def _apply(self, now: float) -> None:
        if not self.sql_running or not self.rows:
            return
        target = -1
        for row in reversed(self.rows):
            if row.at <= now - APPLY_DELAY_S:
                target = row.index
                break
        if self.apply_per_s is None:
            applied = float(target)
        else:
            applied = min(float(target), self.applied + self.apply_per_s * (now - self.now))
        for incident in self.incidents:
            # The incident follows epoch ``after`` in the relay log: the applier stops there.
            if self.applied <= incident.after <= applied:
                applied = float(incident.after)
                self.sql_running = False
                self.sql_error = (INCIDENT_ERRNO, "The incident LOST_EVENTS occured on the "
                                  f"source. Message: {incident.message}")
                break
        self.applied = max(self.applied, applied)

    def applied_row(self) -> SimEpoch | None:
        """The last epoch the replica applied."""
        index = int(self.applied)
        return next((row for row in reversed(self.rows) if row.index <= index), None)

    def seconds_behind(self) -> int | None:
        """Seconds_Behind_Source: NULL while the applier is stopped, 0 once it has applied
        what the receiver fetched, else the age of the epoch it applies now."""
        if not self.sql_running:
            return None
        applied = self.applied_row()
        pending = [row for row in self.rows if applied is None or row.index > applied.index]
        if not pending or pending[0].at > self.now - APPLY_DELAY_S:
            return 0
        return int(self.now - pending[0].at)
