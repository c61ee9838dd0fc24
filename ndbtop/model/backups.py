"""Backups as the cluster reports them: one record per backup id, built from events.

The master data node reports BackupStarted, BackupCompleted and BackupAborted;
a start refused by the data nodes is BackupFailedToStart (it has no backup id).
BackupStatus comes from every data node, only when asked (``REPORT
BACKUPSTATUS`` is a ``dump events`` request), with what that node has written
so far; a multithreaded node's figures lose a carry in its own sum, put back here
(:func:`carried`). The management server sends ``time=0`` in every event, so times are
when ndbtop received the event; a backup first seen through a status report
has no start time.

Everything here is a pure function of the previous state and one event.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ndbtop.compat import SLOTS, zip_strict
from ndbtop.mgm.errorcodes import ndb_error_string
from ndbtop.mgm.events.catalogue import EventType
from ndbtop.mgm.events.decode import Event

RUNNING = "running"
COMPLETED = "completed"
ABORTED = "aborted"
FAILED_TO_START = "failed to start"
ENDED_UNSEEN = "ended"
"""Every data node reports no backup running, but its end was not received (the event
stream was down): the outcome is unknown."""

HISTORY = 50
"""Backups kept, newest last."""


@dataclass(frozen=True, **SLOTS)
class NodeProgress:
    """What one data node has written for a backup, as of one status report."""

    node_id: int
    records: int
    bytes: int
    log_records: int
    log_bytes: int
    at: float
    """Wall time the report was received."""
    bytes_per_s: float | None = None
    """Data and log bytes per second since this node's previous report (None for the first)."""
    reported: tuple[int, ...] = ()
    """Records, bytes, log records and log bytes as the node reported them, before the
    lost carries were put back (see :func:`carried`)."""
    data_bytes_per_s: float | None = None
    """Data bytes (the log left out) per second since this node's previous report."""


@dataclass(frozen=True, **SLOTS)
class Backup:
    """One backup: running, completed, aborted, or a start the data nodes refused.

    ``backup_id`` is None only for a failed start (BackupFailedToStart has no id).
    Totals (``records``, ``bytes``...) are the master's figures once completed; while
    the backup runs they are None, and ``nodes`` holds each node's last report.
    """

    backup_id: int | None
    state: str
    starting_node: int | None = None
    """The API or management node that asked for the backup."""
    master: int | None = None
    """The data node that reported the start, completion or abort."""
    started_at: float | None = None
    ended_at: float | None = None
    start_gci: int | None = None
    stop_gci: int | None = None
    records: int | None = None
    bytes: int | None = None
    log_records: int | None = None
    log_bytes: int | None = None
    error: int | None = None
    nodes: tuple[NodeProgress, ...] = ()

    @property
    def running(self) -> bool:
        """True until the backup completed, aborted or failed to start."""
        return self.state == RUNNING

    @property
    def error_text(self) -> str | None:
        """The error as ``ndb_error_string`` gives it (``1326`` -> its message)."""
        return None if self.error is None else f"{self.error}: {ndb_error_string(self.error)}"

    @property
    def error_message(self) -> str | None:
        """The error's message alone (``1326: Backup aborted due to node failure``)."""
        if self.error is None:
            return None
        return f"{self.error}: {ndb_error_string(self.error).split(': ')[0]}"

    @property
    def written_bytes(self) -> int | None:
        """Data and log bytes written: the master's total once completed, else the sum of
        the nodes' last reports (None before any)."""
        if self.bytes is not None:
            return self.bytes + (self.log_bytes or 0)
        if not self.nodes:
            return None
        return sum(n.bytes + n.log_bytes for n in self.nodes)

    @property
    def written_records(self) -> int | None:
        """Data records written (completed total, else the nodes' reports summed)."""
        if self.records is not None:
            return self.records
        if not self.nodes:
            return None
        return sum(n.records for n in self.nodes)

    def _total(self, done: int | None, field: str) -> int | None:
        """The master's figure once completed, else the nodes' reports summed."""
        if done is not None:
            return done
        if not self.nodes:
            return None
        return sum(getattr(n, field) for n in self.nodes)

    @property
    def bytes_per_s(self) -> float | None:
        """Bytes per second: over the whole backup once ended, else the nodes' latest
        rates summed (None until some node was reported twice)."""
        if not self.running:
            total = self.written_bytes
            if total is None or self.started_at is None or self.ended_at is None:
                return None
            seconds = self.ended_at - self.started_at
            return total / seconds if seconds > 0 else None
        rates = [n.bytes_per_s for n in self.nodes if n.bytes_per_s is not None]
        return sum(rates) if rates else None

    def duration(self, now: float) -> float | None:
        """Seconds from start to end (or to ``now`` while running); None without a start."""
        if self.started_at is None:
            return None
        end = self.ended_at if self.ended_at is not None else now
        return max(end - self.started_at, 0.0)

    def node(self, node_id: int) -> NodeProgress | None:
        """One data node's last report."""
        return next((n for n in self.nodes if n.node_id == node_id), None)

    def as_json(self, now: float) -> dict[str, object]:
        """The ``backups`` entry of the JSON report."""
        return {
            "id": self.backup_id,
            "state": self.state,
            "starting_node": self.starting_node,
            "master": self.master,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "duration_s": _round(self.duration(now)),
            "start_gci": self.start_gci,
            "stop_gci": self.stop_gci,
            "records": self.written_records,
            "bytes": self.written_bytes,
            "data_bytes": self._total(self.bytes, "bytes"),
            "log_records": self._total(self.log_records, "log_records"),
            "log_bytes": self._total(self.log_bytes, "log_bytes"),
            "bytes_per_s": _round(self.bytes_per_s),
            "error": self.error,
            "error_text": self.error_text,
            "nodes": [
                {
                    "node_id": n.node_id,
                    "records": n.records,
                    "bytes": n.bytes,
                    "log_records": n.log_records,
                    "log_bytes": n.log_bytes,
                    "bytes_per_s": _round(n.bytes_per_s),
                    "reported_at": n.at,
                }
                for n in self.nodes
            ],
        }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _u64(event: Event, lo: str, hi: str) -> int:
    return (event.get(lo) or 0) + ((event.get(hi) or 0) << 32)


WORD = 1 << 32
CARRY_DROP = WORD // 2
"""A reported count that falls back by more than this (about 2^32 less what was written
since the node's previous report) lost a carry; one that falls back by less restarted."""


def carried(previous: int | None, previous_reported: int | None, reported: int,
            expected: float | None = None) -> int:
    """The count a multithreaded data node's ``reported`` BackupStatus value stands for.

    ``BackupProxy::sendSUM_EVENT_REP`` adds up its LDM threads' low words and their high
    words apart, without a carry (server-rules.md §6): the value reported is below the
    count by a multiple of 2^32, and steps back by about 2^32 when the low words' sum
    wraps. Its high word, the sum of the threads' own, never goes back while the count
    goes on. So, from the node's previous report of the same counter (the count it stood
    for and the value reported), the count is the least ``reported + j * 2^32`` not below
    the previous count. A value whose high word went back, or that fell back by less than
    half of 2^32, is a count that started again (a new backup): taken as reported. The
    first report of a node has nothing to be corrected from, and is taken as reported.

    ``expected`` is where the count of records written since the previous report puts
    the bytes (at the bytes per record so far). A node that writes half of 2^32 bytes or
    more between two reports (a fast node, reports far apart) can lose a carry and still
    step forward, or step back by less than half of 2^32: the count is then the
    ``reported + j * 2^32`` nearest to ``expected``, and never below the previous count.
    The records, far fewer than the bytes, are what tells it: a rate would not see a
    node that slowed down or finished its data.
    """
    if previous is None or previous_reported is None:
        return reported
    if reported >> 32 < previous_reported >> 32:
        return reported
    if expected is not None and expected - previous >= CARRY_DROP:
        least = -(-max(previous - reported, 0) // WORD)
        return reported + max(least, round((expected - reported) / WORD)) * WORD
    if 0 < previous_reported - reported <= CARRY_DROP:
        return reported
    lost = max(previous - reported, 0)
    return reported + -(-lost // WORD) * WORD


def progress_rate(previous: NodeProgress | None, current: NodeProgress) -> float | None:
    """Bytes (data and log) per second between two reports of the same node and backup."""
    if previous is None or current.at <= previous.at:
        return None
    written = (current.bytes + current.log_bytes) - (previous.bytes + previous.log_bytes)
    if written < 0:
        return None
    return written / (current.at - previous.at)


def data_rate(previous: NodeProgress | None, current: NodeProgress) -> float | None:
    """Data bytes (the log left out) per second between two reports of the same node."""
    if previous is None or current.at <= previous.at or current.bytes < previous.bytes:
        return None
    return (current.bytes - previous.bytes) / (current.at - previous.at)


def running_backup(backups: tuple[Backup, ...]) -> Backup | None:
    """The backup in progress, if any (the newest one)."""
    return next((b for b in reversed(backups) if b.running), None)


def find_backup(backups: tuple[Backup, ...], backup_id: int) -> Backup | None:
    """The last record of ``backup_id``."""
    return next((b for b in reversed(backups) if b.backup_id == backup_id), None)


def _put(backups: tuple[Backup, ...], backup: Backup) -> tuple[Backup, ...]:
    """Replace the record of the same backup id (or add it), keeping the newest."""
    if backup.backup_id is not None:
        for i in range(len(backups) - 1, -1, -1):
            if backups[i].backup_id == backup.backup_id:
                return (*backups[:i], backup, *backups[i + 1:])
    return ((*backups, backup))[-HISTORY:]


def apply_backup_event(backups: tuple[Backup, ...], event: Event) -> tuple[Backup, ...]:
    """The backups after one event; events of other categories change nothing.

    A malformed event (a key missing or not a number) is ignored: its figures are
    not data.
    """
    kind = event.type
    if kind not in _BACKUP_TYPES or event.malformed:
        return backups
    at = event.received_at
    if kind == EventType.BACKUP_FAILED_TO_START:
        failed = Backup(
            None,
            FAILED_TO_START,
            starting_node=event.get("starting_node"),
            master=event.source_node,
            started_at=at,
            ended_at=at,
            error=event.get("error"),
        )
        return _put(backups, failed)
    backup_id = event.get("backup_id")
    if kind == EventType.BACKUP_STATUS:
        if not event.get("starting_node") or backup_id is None:
            return backups  # "Backup not started" on that node
        return _status(backups, event, backup_id, at)
    assert backup_id is not None
    known = find_backup(backups, backup_id)
    base = known or Backup(backup_id, RUNNING)
    if kind == EventType.BACKUP_STARTED:
        started = replace(
            base,
            state=RUNNING,
            starting_node=event.get("starting_node"),
            master=event.source_node,
            started_at=at if base.started_at is None else base.started_at,
        )
        return _put(backups, started)
    if kind == EventType.BACKUP_COMPLETED:
        done = replace(
            base,
            state=COMPLETED,
            starting_node=event.get("starting_node"),
            master=event.source_node,
            ended_at=at,
            start_gci=event.get("start_gci"),
            stop_gci=event.get("stop_gci"),
            records=_u64(event, "n_records", "n_records_hi"),
            bytes=_u64(event, "n_bytes", "n_bytes_hi"),
            log_records=_u64(event, "n_log_records", "n_log_records_hi"),
            log_bytes=_u64(event, "n_log_bytes", "n_log_bytes_hi"),
        )
        return _put(backups, done)
    aborted = replace(
        base,
        state=ABORTED,
        starting_node=event.get("starting_node"),
        master=event.source_node,
        ended_at=at,
        error=event.get("error"),
    )
    return _put(backups, aborted)


def _status(backups: tuple[Backup, ...], event: Event, backup_id: int, at: float) -> tuple[
        Backup, ...]:
    known = find_backup(backups, backup_id)
    if known is not None and not known.running:
        return backups  # a late report of a backup that already ended
    base = known or Backup(backup_id, RUNNING, starting_node=event.get("starting_node"))
    reported = tuple(_u64(event, f"{name}_lo", f"{name}_hi") for name in _STATUS_COUNTS)
    previous = base.node(event.source_node)
    counts: list[int] = []
    for i, (field, value) in enumerate(zip_strict(_PROGRESS_FIELDS, reported)):
        counts.append(carried(
            getattr(previous, field) if previous is not None else None,
            previous.reported[i] if previous is not None and previous.reported else None,
            value,
            # Bytes follow their records (the count before them), at the bytes per
            # record written so far.
            _expected(previous, field, counts[-1]) if i % 2 else None,
        ))
    current = NodeProgress(
        event.source_node,
        records=counts[0],
        bytes=counts[1],
        log_records=counts[2],
        log_bytes=counts[3],
        at=at,
        reported=reported,
    )
    current = replace(current, bytes_per_s=progress_rate(previous, current),
                      data_bytes_per_s=data_rate(previous, current))
    nodes = (*tuple(n for n in base.nodes if n.node_id != current.node_id), current)
    return _put(backups, replace(base, nodes=tuple(sorted(nodes, key=lambda n: n.node_id))))


def apply_status_report(backups: tuple[Backup, ...], events: tuple[Event, ...],
                        at: float) -> tuple[Backup, ...]:
    """The backups after one ``REPORT BACKUPSTATUS`` answer (one BackupStatus per data
    node). When no node reports a backup, one still marked running has ended unseen.

    A node reported twice in one answer counts once, by its last report: the answer is
    one moment, and the work stays linear in its length whatever it repeats.
    """
    reports: dict[int, Event] = {}
    for event in events:
        if event.type == EventType.BACKUP_STATUS and not event.malformed:
            reports.pop(event.source_node, None)
            reports[event.source_node] = event
        else:
            backups = apply_backup_event(backups, event)
    for event in reports.values():
        backups = apply_backup_event(backups, event)
    if reports and not any(e.get("starting_node") for e in reports.values()):
        running = running_backup(backups)
        if running is not None:
            backups = _put(backups, replace(running, state=ENDED_UNSEEN, ended_at=at))
    return backups


def _expected(previous: NodeProgress | None, field: str, records: int) -> float | None:
    """Where ``field`` (bytes or log bytes) stands now, from its records' count now
    (``records``) at the bytes per record the node's previous report showed."""
    if previous is None:
        return None
    before = previous.records if field == "bytes" else previous.log_records
    if before <= 0:
        return None
    written = getattr(previous, field)
    return written + (records - before) * written / before


_STATUS_COUNTS = ("n_records", "n_bytes", "n_log_records", "n_log_bytes")
"""BackupStatus's counters (each a ``_lo``/``_hi`` pair), in :class:`NodeProgress` order."""
_PROGRESS_FIELDS = ("records", "bytes", "log_records", "log_bytes")

_BACKUP_TYPES = frozenset(
    {
        EventType.BACKUP_STARTED,
        EventType.BACKUP_FAILED_TO_START,
        EventType.BACKUP_COMPLETED,
        EventType.BACKUP_ABORTED,
        EventType.BACKUP_STATUS,
    }
)
