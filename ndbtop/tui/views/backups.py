"""Backup: the backup in progress with each data node's progress, and every backup seen."""

from __future__ import annotations

import datetime as dt

from rich.table import Table
from textual.widgets import Static

from ndbtop.eta.backup import eta_in_snapshot
from ndbtop.eta.wording import eta_text
from ndbtop.model.backups import ABORTED, COMPLETED, RUNNING, Backup, running_backup
from ndbtop.model.eta import Eta
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.backups import backup_label
from ndbtop.report.tables import human_bytes
from ndbtop.tui.format import number, seconds
from ndbtop.tui.safe import Text
from ndbtop.tui.views.base import PanelsView

STATE_STYLE = {
    RUNNING: "bold yellow",
    COMPLETED: "bold green",
    ABORTED: "bold red",
}


def _clock(epoch: float | None) -> str:
    return "-" if epoch is None else dt.datetime.fromtimestamp(epoch).strftime("%H:%M:%S")


def _size(value: int | None) -> str:
    return "-" if value is None else human_bytes(value)


def rate_bytes(value: float | None) -> str:
    """``2.6 GiB/s``: a backup's rate in the binary units of its sizes (and of ``--once``)."""
    return "-" if value is None else human_bytes(value) + "/s"


def running_panel(b: Backup, snap: ClusterSnapshot, now: float, every: float | None) -> Table:
    """The backup in progress: who asked, since when, and each node's last report."""
    grid = Table.grid(padding=(0, 1))
    head = Text()
    head.append(f"Backup {b.backup_id} ", style="bold")
    head.append("running", style=STATE_STYLE[RUNNING])
    if b.started_at is not None:
        head.append(f" since {_clock(b.started_at)} ({seconds(b.duration(now))})")
    else:
        head.append(" (started before ndbtop was following the events)", style="dim")
    if b.starting_node is not None:
        head.append(f", requested by node {b.starting_node}")
    if b.master is not None:
        head.append(f", master node {b.master}")
    grid.add_row(head)
    total = Text("written so far ")
    total.append(_size(b.written_bytes), style="bold")
    total.append(f", {number(b.written_records)} records, ")
    total.append(rate_bytes(b.bytes_per_s), style="bold")
    grid.add_row(total)
    grid.add_row(eta_line(b, snap))
    table = Table(box=None, padding=(0, 1), show_edge=False)
    for name in ("node", "records", "data", "log records", "log", "rate", "reported"):
        table.add_column(name, justify="right", no_wrap=True)
    reported = {n.node_id: n for n in b.nodes}
    ids = sorted({n.node_id for n in snap.data_nodes()} | set(reported))
    for node_id in ids:
        n = reported.get(node_id)
        if n is None:
            table.add_row(str(node_id), *("-" for _ in range(5)), Text("no report", style="dim"))
            continue
        table.add_row(
            str(node_id),
            number(n.records),
            human_bytes(n.bytes),
            number(n.log_records),
            human_bytes(n.log_bytes),
            rate_bytes(n.bytes_per_s),
            f"{seconds(max(now - n.at, 0.0))} ago",
        )
    grid.add_row(table)
    how = "per node: REPORT BACKUPSTATUS"
    if every:
        how += f" every {every:g} s while a backup runs"
    elif every == 0:
        how += " once at connect (--backup-status-interval 0)"
    grid.add_row(Text(how + " · A aborts this backup", style="dim"))
    return grid


def eta_line(b: Backup, snap: ClusterSnapshot) -> Text:
    """``data done: ETA 12:41 (12:35–12:52) in 6m10s · basis``, or why there is none."""
    eta = eta_in_snapshot(snap, b)
    text = Text("data done: ")
    text.append(eta_text(eta, basis=False), style="bold")
    if isinstance(eta, Eta) and eta.basis:
        text.append(" · " + ", ".join(eta.basis), style="dim")
    return text


def history_table(backups: tuple[Backup, ...], now: float) -> Table:
    """Every backup seen, newest first."""
    table = Table(
        title="Backups seen (events and status reports)",
        title_justify="left",
        box=None,
        padding=(0, 1),
    )
    for name, justify in (
        ("id", "right"), ("state", "left"), ("started", "left"), ("took", "right"),
        ("records", "right"), ("written", "right"), ("rate", "right"), ("GCP", "left"),
        ("outcome", "left"),
    ):
        table.add_column(name, justify=justify, no_wrap=name != "outcome")  # type: ignore[arg-type]
    for b in reversed(backups):
        gcp = (
            f"{b.start_gci}-{b.stop_gci}" if b.start_gci is not None and b.stop_gci is not None
            else "-"
        )
        table.add_row(
            "-" if b.backup_id is None else str(b.backup_id),
            Text(b.state, style=STATE_STYLE.get(b.state, "dim")),
            _clock(b.started_at),
            seconds(b.duration(now)),
            number(b.written_records),
            _size(b.written_bytes),
            rate_bytes(b.bytes_per_s),
            gcp,
            Text(b.error_message or "", style="red" if b.error else ""),
        )
    return table


class BackupsView(PanelsView):
    """Backups from the event stream and ``REPORT BACKUPSTATUS``."""

    title = "Backup"
    short_title = "Bkp"

    panels = ("running", "history")

    DEFAULT_CSS = """
    BackupsView #running { margin-bottom: 1; }
    """

    report_every: float | None = None
    """Seconds between status reports (set by the app from the hub)."""

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        backups = tuple(b for b in snap.backups if self._shown(b))
        running = running_backup(backups)
        if running is not None:
            self.query_one("#running", Static).update(
                running_panel(running, snap, now, self.report_every)
            )
        else:
            last = backups[-1] if backups else None
            line = Text("No backup running.", style="bold")
            if last is not None:
                line.append(f" Last: {backup_label(last)} {last.state} at {_clock(last.ended_at)}.")
            line.append("  B starts one (START BACKUP, checked and confirmed).", style="dim")
            self.query_one("#running", Static).update(line)
        if backups:
            self.query_one("#history", Static).update(history_table(backups, now))
        else:
            self.query_one("#history", Static).update(
                Text("No backup seen since ndbtop started.", style="dim")
            )

    def _shown(self, b: Backup) -> bool:
        f = self.filter_text.strip().lower()
        return not f or f in f"{b.backup_id} {b.state} {b.error_text or ''}".lower()
