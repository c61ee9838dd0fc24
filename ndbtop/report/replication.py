"""Replication in the ``--once`` report (``--section replication``, JSON ``replication``),
the bundle and the Replication view: the channels, the SQL nodes, and what each figure
measures."""

from __future__ import annotations

from typing import Any

from ndbtop.durations import duration
from ndbtop.model.replication import Channel, Endpoint, ReplicationState, epoch_text
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.tables import format_table, iso_utc

LAG_MEANS = ("lag: the epochs the source's binary log holds (mysql.ndb_binlog_index) newer "
             "than the last the replica applied from that source server "
             "(mysql.ndb_apply_status); the seconds are derived from them at the rate the "
             "source wrote epochs, never measured")
BEHIND_MEANS = ("Seconds_Behind_Source: the replica's own estimate, the age (by the "
                "source's clock) of the event its applier runs now; NULL while the applier "
                "is stopped (or idle with the receiver stopped), 0 once the applier has "
                "caught up with what the receiver fetched, whatever the receiver has not")
NOT_NAMED = ("no replica named: --replica-mysql-host (the SQL nodes of the cluster this one "
             "replicates to) reads both sides")


def running_text(value: str) -> str:
    """``Yes``/``No``/``Connecting`` as the server says it (``?`` when it said nothing)."""
    return value or "?"


def seconds_text(seconds: float | None) -> str:
    """A lag in seconds (``-`` when unknown)."""
    return "-" if seconds is None else duration(seconds)


def epochs_text(channel: Channel) -> str:
    """The epochs behind (``≥`` for a lower bound, ``-`` when unknown)."""
    lag = channel.lag
    if lag.epochs is None:
        return "-"
    return f"{'≥' if lag.at_least else ''}{lag.epochs:,}"


def last_error(channel: Channel) -> str:
    """The newest error of the channel's threads, the applier's first."""
    t = channel.threads
    if t.last_sql_errno:
        return f"SQL {t.last_sql_errno}: {t.last_sql_error}"
    if t.last_io_errno:
        return f"I/O {t.last_io_errno}: {t.last_io_error}"
    return ""


def endpoint_text(e: Endpoint) -> str:
    """One line about a SQL node: what it writes and applies, or why it was not read."""
    parts = [f"{e.target} ({e.side})"]
    if e.error is not None:
        parts.append(f"down: {e.error}")
    if e.server_id is not None:
        parts.append(f"server_id {e.server_id}")
    if e.binlogging:
        parts.append(f"binary log {e.binlog_file}:{e.binlog_position}")
        if e.newest_epoch is not None:
            parts.append(f"newest epoch {epoch_text(e.newest_epoch)}")
        if e.last_commit_epoch:
            # The binlog injector keeps up while what this server committed is binlogged.
            parts.append(f"its last commit in epoch {epoch_text(e.last_commit_epoch)}")
        if e.epoch_rate is not None:
            parts.append(f"{e.epoch_rate:,.1f} epochs/s over {e.epoch_rate_window_s:.0f} s")
    if e.channels:
        parts.append(f"{len(e.channels)} channel{'s' if len(e.channels) != 1 else ''}")
    for server_id, epoch in e.applied:
        parts.append(f"applied from server {server_id}: {epoch_text(epoch)}")
    for incident in e.incidents:
        parts.append(f"{incident.kind} incident at {incident.file}:{incident.position} "
                     f"(after epoch {epoch_text(incident.epoch_before)})")
    for what, why in e.unavailable:
        parts.append(f"{what} not read ({why})")
    return ", ".join(parts)


def _channel_json(c: Channel) -> dict[str, Any]:
    t = c.threads
    return {
        "source": c.source_label,
        "source_watched": c.source is not None,
        "replica": c.replica,
        "channel": c.channel,
        "io_running": t.io_running,
        "sql_running": t.sql_running,
        "seconds_behind_source": t.seconds_behind,
        "lag_epochs": c.lag.epochs,
        "lag_epochs_at_least": c.lag.at_least,
        "lag_seconds": None if c.lag.seconds is None else round(c.lag.seconds, 3),
        "lag_basis": c.lag.basis,
        "source_epoch": c.source_epoch,
        "applied_epoch": c.applied_epoch,
        "last_io_errno": t.last_io_errno,
        "last_io_error": t.last_io_error,
        "last_sql_errno": t.last_sql_errno,
        "last_sql_error": t.last_sql_error,
        "conflicts_per_min": c.conflicts_per_min,
        "incident": None if c.incident is None else {
            "kind": c.incident.kind, "file": c.incident.file,
            "position": c.incident.position, "epoch_before": c.incident.epoch_before,
            "epoch_after": c.incident.epoch_after},
        "columns": t.names,
    }


def _endpoint_json(e: Endpoint) -> dict[str, Any]:
    return {
        "target": e.target,
        "side": e.side,
        "error": e.error,
        "read_at": None if e.read_at is None else iso_utc(e.read_at),
        "server_id": e.server_id,
        "version": e.version,
        "binlog_file": e.binlog_file,
        "binlog_position": e.binlog_position,
        "newest_epoch": e.newest_epoch,
        "last_commit_epoch": e.last_commit_epoch,
        "epochs_per_s": e.epoch_rate,
        "applied": [{"server_id": s, "epoch": epoch} for s, epoch in e.applied],
        "max_replicated_epoch": e.max_replicated_epoch,
        "conflicts": e.conflicts,
        "incidents": [{"kind": i.kind, "file": i.file, "position": i.position,
                       "info": i.info, "epoch_before": i.epoch_before,
                       "epoch_after": i.epoch_after} for i in e.incidents],
        "unavailable": [{"part": part, "reason": why} for part, why in e.unavailable],
    }


def replication_json(snap: ClusterSnapshot) -> dict[str, Any]:
    """The ``replication`` key: null when no replica is named."""
    state = snap.replication
    if state is None:
        return {"replication": None}
    return {"replication": {
        "lag_threshold_s": state.lag_threshold_s,
        "channels": [_channel_json(c) for c in state.channels],
        "sql_nodes": [_endpoint_json(e) for e in state.endpoints],
    }}


def channel_rows(state: ReplicationState) -> list[tuple[object, ...]]:
    """One row per channel: source -> replica, threads, lag, Seconds_Behind_Source,
    conflicts, last error."""
    return [(c.label, running_text(c.threads.io_running),
             running_text(c.threads.sql_running), epochs_text(c), seconds_text(c.lag.seconds),
             "NULL" if c.threads.seconds_behind is None else c.threads.seconds_behind,
             "-" if c.conflicts_per_min is None else f"{c.conflicts_per_min:,.1f}",
             last_error(c) or "-")
            for c in state.channels]


CHANNEL_HEADINGS = ("source -> replica", "IO", "SQL", "epochs behind", "lag",
                    "Seconds_Behind_Source", "conflicts/min", "last error")


def replication_text(snap: ClusterSnapshot) -> list[str]:
    """The section of the text report (none when no replica is named)."""
    state = snap.replication
    if state is None:
        return []
    lines = ["", f"Replication (lag threshold {state.lag_threshold_s:g} s):"]
    if state.channels:
        lines.append(format_table(CHANNEL_HEADINGS, channel_rows(state), right=(3, 4, 5, 6)))
        lines += [f"  {c.label}: {c.lag.basis}" for c in state.channels]
    else:
        silent = [e.target for e in state.endpoints if e.error is not None]
        lines.append("  no channel: no SQL node named reads a binary log of another" + (
            f" (not known of {', '.join(silent)}: no answer)" if silent else ""))
    lines += [f"  {LAG_MEANS}.", f"  {BEHIND_MEANS}."]
    lines.append("SQL nodes read for replication:")
    lines += [f"  {endpoint_text(e)}" for e in state.endpoints]
    return lines
