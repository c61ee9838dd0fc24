"""The backups' series: the one in progress, the last completed and the failures.

Backups are known from the events (BackupStarted, BackupCompleted, BackupAborted,
BackupFailedToStart) and from the data nodes' status reports (``REPORT BACKUPSTATUS``,
asked every ``--backup-status-interval`` while a backup runs). The management server
stamps its events with no time, so times are when ndbtop received them: a backup whose
start was not seen has no duration. While a backup runs, its figures are each data
node's last report; once completed, the master's totals. The time still to go
(``ndb_backup_eta_seconds``) is given only while it can be estimated (ndbtop/eta/backup.py).
"""

from __future__ import annotations

from ndbtop.eta.backup import eta_in_snapshot
from ndbtop.export.familyset import Families, Group
from ndbtop.model.backups import ABORTED, COMPLETED, FAILED_TO_START, Backup, running_backup
from ndbtop.model.eta import Eta, EtaResult
from ndbtop.model.snapshot import ClusterSnapshot


def backup_group(snapshot: ClusterSnapshot) -> Group:
    """The backups' series (the caller leaves them out while the events are not read)."""
    backups, failures = snapshot.backups, snapshot.backup_failures
    running = running_backup(backups)
    eta = None if running is None else eta_in_snapshot(snapshot, running)
    return Group("backups", (backups, failures, eta),
                 lambda out: _backups(out, backups, failures, eta))


def _last(backups: tuple[Backup, ...], states: tuple[str, ...]) -> Backup | None:
    return next((b for b in reversed(backups) if b.state in states), None)


def _backups(out: Families, backups: tuple[Backup, ...], failures: int,
             eta: EtaResult | None) -> None:
    running = running_backup(backups)
    out.add("ndb_backup_in_progress", (), 0.0 if running is None else 1.0)
    if running is not None:
        if running.backup_id is not None:
            out.add("ndb_backup_id", (), float(running.backup_id))
        if isinstance(eta, Eta):
            out.add("ndb_backup_eta_seconds", (), eta.seconds)
            out.add("ndb_backup_eta_low_seconds", (), eta.low)
            out.add("ndb_backup_eta_high_seconds", (), eta.high)
        for n in running.nodes:
            node = (str(n.node_id),)
            out.add("ndb_backup_node_written_bytes", node, float(n.bytes + n.log_bytes))
            out.add("ndb_backup_node_written_records", node, float(n.records))
    done = _last(backups, (COMPLETED,))
    if done is not None:
        if done.ended_at is not None:
            out.add("ndb_backup_last_completed_timestamp_seconds", (), done.ended_at)
        if done.started_at is not None and done.ended_at is not None:
            out.add("ndb_backup_last_duration_seconds", (),
                    max(done.ended_at - done.started_at, 0.0))
        written = done.written_bytes
        if written is not None:
            out.add("ndb_backup_last_written_bytes", (), float(written))
        records = done.written_records
        if records is not None:
            out.add("ndb_backup_last_written_records", (), float(records))
    failed = _last(backups, (ABORTED, FAILED_TO_START))
    if failed is not None and failed.ended_at is not None:
        out.add("ndb_backup_last_failure_timestamp_seconds", (), failed.ended_at)
    out.add("ndb_backup_failures_total", (), float(failures))
