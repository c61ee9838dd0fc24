"""Restarts: the phase durations of each node's last restart, so the dominant phase shows."""

from __future__ import annotations

from rich.table import Table

from ndbtop.model.ndbinfo import RestartInfo
from ndbtop.model.phases import START_TYPE_SHORT, StartTimeline
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.start_evidence import elapsed_text, phase_seconds_text, timer_prefix
from ndbtop.tui.format import bar, seconds
from ndbtop.tui.safe import Text
from ndbtop.tui.views.base import PanelsView

SHORT = {
    "secs_to_complete_node_failure": "node failure handling",
    "secs_to_allocate_node_id": "allocate node id",
    "secs_to_include_in_heartbeat_protocol": "join heartbeats",
    "secs_until_wait_for_ndbcntr_master": "until master wait",
    "secs_wait_for_ndbcntr_master": "wait for master",
    "secs_to_get_start_permitted": "start permitted",
    "secs_to_wait_for_lcp_for_copy_meta_data": "LCP before metadata",
    "secs_to_copy_meta_data": "copy metadata",
    "secs_to_include_node": "include node",
    "secs_starting_node_to_request_local_recovery": "request recovery",
    "secs_for_local_recovery": "local recovery (sum)",
    "secs_restore_fragments": "  restore fragments",
    "secs_undo_disk_data": "  undo disk data",
    "secs_exec_redo_log": "  execute redo log",
    "secs_index_rebuild": "  rebuild indexes",
    "secs_to_synchronize_starting_node": "sync with live nodes",
    "secs_wait_lcp_for_restart": "wait for LCP",
    "secs_wait_subscription_handover": "subscription hand-over",
}
SUMMARY_COLUMNS = {"secs_for_local_recovery"}


def dominant(info: RestartInfo) -> str | None:
    """The step that took longest (the local-recovery sum is not a step of its own)."""
    steps = [(secs, name) for name, secs in info.phases if name not in SUMMARY_COLUMNS and secs]
    return max(steps)[1] if steps else None


def restart_table(infos: tuple[RestartInfo, ...]) -> Table:
    """One column per node, one row per restart step; the longest step of each node in red."""
    table = Table(box=None, padding=(0, 2), show_edge=False, expand=False)
    table.add_column("step")
    tops = {i.node_id: dominant(i) for i in infos}
    for info in infos:
        table.add_column(f"node {info.node_id}", justify="left")
    names = [name for name, _ in infos[0].phases] if infos else []
    for name in names:
        cells: list[Text | str] = [SHORT.get(name, name)]
        for info in infos:
            secs = dict(info.phases).get(name, 0)
            share = 100.0 * secs / info.total_s if info.total_s else 0.0
            cell = Text(f"{seconds(secs):>7} ")
            cell.append_text(bar(share, 12, warn=101, crit=101))
            if tops[info.node_id] == name:
                cell.stylize("bold red")
            cells.append(cell)
        table.add_row(*cells)
    table.add_row("", *("" for _ in infos))
    table.add_row(
        Text("total", style="bold"),
        *(Text(f"{seconds(i.total_s):>7}", style="bold") for i in infos),
    )
    table.add_row(Text("status", style="bold"), *(Text(i.status) for i in infos))
    return table


class RestartsView(PanelsView):
    """``restart_info`` and the start timelines ndbtop followed."""

    title = "Restarts"
    short_title = "Rst"

    panels = ("restart_info", "timelines")

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        ni = snap.ndbinfo
        infos = tuple(i for i in (ni.restart_info if ni else ()) if self.matches(i.node_id))
        why = None
        if not infos:
            reason = dict(ni.unavailable).get("restart_info") if ni else None
            src = snap.source("ndbinfo")
            why = reason or (src.error if src and src.error and ni is None else None)
        self.put_keyed("#restart_info", (infos, why), lambda: restart_info_panel(infos, why))
        lines = tuple(t for t in snap.timelines if self.matches(t.node_id))
        # A start not finished counts its time to now.
        running = any(t.active or t.finished_at is None for t in lines)
        self.put_keyed("#timelines", (lines, now if running else None),
                       lambda: timelines_table(lines, now))


def restart_info_panel(infos: tuple[RestartInfo, ...], why: str | None) -> Table | Text:
    """The last restart of each node, or why there is none to show."""
    if infos:
        head = Text("Last restart of each node (ndbinfo.restart_info, seconds)\n", style="bold")
        grid = Table.grid()
        grid.add_row(head)
        grid.add_row(restart_table(infos))
        return grid
    return Text(
        "No node restart reported by ndbinfo.restart_info" + (f" ({why})" if why else "") + ".",
        style="dim",
    )


def timelines_table(lines: tuple[StartTimeline, ...], now: float) -> Table | Text:
    """The starts ndbtop followed: each one's total and its longest phase."""
    if not lines:
        return Text("\nNo start seen since ndbtop started.", style="dim")
    table = Table(
        title="Starts ndbtop followed (events and status)",
        title_justify="left",
        box=None,
        padding=(0, 2),
    )
    table.add_column("node")
    table.add_column("start")
    table.add_column("total", justify="right")
    table.add_column("longest phase")
    table.add_column("phases")
    for t in lines:
        kind = START_TYPE_SHORT.get(t.kind, "?") if t.kind is not None else "?"
        # The phase in progress counts too: during S1 it is the 40-minute one.
        # Phases not seen have no length to compare; a lower bound is written as one.
        spans = [(r.seconds, r.phase, "≥" if r.lower_bound else "", "")
                 for r in t.completed if r.seconds is not None]
        if t.active and t.current_phase is not None:
            spans.append((t.in_phase_s(now) or 0.0, t.current_phase, timer_prefix(t),
                          " so far"))
        longest = max(spans, default=None)
        phases = " ".join(f"{r.phase}:{phase_seconds_text(r)}" for r in t.completed)
        state = "running" if t.active else ("abandoned" if t.aborted else "done")
        table.add_row(
            str(t.node_id),
            f"{kind} ({state})",
            elapsed_text(t, now),
            Text(
                f"{longest[1]} {t.name_of(longest[1])} "
                f"{longest[2]}{seconds(longest[0])}{longest[3]}",
                style="bold red",
            )
            if longest
            else "",
            phases,
        )
    return table
