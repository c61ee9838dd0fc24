"""The backups of a snapshot in the ``--once`` report: JSON entries and a text table."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ndbtop.eta.backup import eta_in_snapshot
from ndbtop.eta.wording import eta_text
from ndbtop.model.backups import Backup, running_backup
from ndbtop.model.eta import eta_json
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.tables import duration, format_table, human_bytes


def backups_json(snap: ClusterSnapshot) -> list[dict[str, Any]]:
    """Every backup seen, oldest first (``Backup.as_json``), each with its ``eta`` (null
    with ``eta_missing`` once ended, or when it cannot be estimated)."""
    return [{**b.as_json(snap.wall), **eta_json(eta_in_snapshot(snap, b))}
            for b in snap.backups]


def backup_label(b: Backup) -> str:
    """``backup 7`` (or ``a backup`` for a start that failed before it had an id)."""
    return "a backup" if b.backup_id is None else f"backup {b.backup_id}"


def backup_rows(snap: ClusterSnapshot) -> list[tuple[object, ...]]:
    """One row per backup, newest first: id, state, started, duration, records, written,
    rate, outcome."""
    rows: list[tuple[object, ...]] = []
    for b in reversed(snap.backups):
        started = (
            dt.datetime.fromtimestamp(b.started_at).strftime("%H:%M:%S")
            if b.started_at is not None
            else "not seen"
        )
        took = b.duration(snap.wall)
        rate = b.bytes_per_s
        rows.append(
            (
                b.backup_id if b.backup_id is not None else "-",
                b.state,
                started,
                duration(took) if took is not None else "-",
                f"{b.written_records:,}" if b.written_records is not None else "-",
                human_bytes(b.written_bytes) if b.written_bytes is not None else "-",
                human_bytes(rate) + "/s" if rate is not None else "-",
                b.error_text or "",
            )
        )
    return rows


def backups_text(snap: ClusterSnapshot) -> list[str]:
    """The ``Backups:`` section (empty when none was seen)."""
    if not snap.backups:
        return []
    lines = ["", "Backups:"]
    table = format_table(
        ("id", "state", "started", "took", "records", "written", "rate", "error"),
        backup_rows(snap),
        right=(0, 4),
    )
    lines += ["  " + line for line in table.splitlines()]
    running = running_backup(snap.backups)
    if running is not None:
        lines.append(f"  {backup_label(running)} data done: "
                     + eta_text(eta_in_snapshot(snap, running)))
    return lines
