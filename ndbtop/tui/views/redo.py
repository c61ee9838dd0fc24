"""Redo-log initialisation of a starting data node, with its host's disk, on one panel.

Event figures (LogFileInitStatus) win when they arrived; otherwise the figures measured
on the host over SSH (open FragLog files, write_bytes against the expected total) are
shown and marked as such; without either, the panel says how to get them. A node
configured with StartupStatusReportFrequency=0 sends one status event at its start and
one at its end: its event figures stay at zero in between, so the host's figures win
over them, and without those the panel says why nothing moves. Nothing here
depends on a start phase number: which phase creates the files depends on the release.
"""

from __future__ import annotations

from ndbtop.model.config_facts import (
    configured_redo_mb,
    host_redo_wins,
    measure_hint,
    measured_redo,
    no_reports_notice,
    no_reports_reason,
    simulated_cluster,
)
from ndbtop.model.hosts import HostReport, RedoMeasure
from ndbtop.model.phases import INITIAL_NODE_RESTART, INITIAL_START, RedoProgress
from ndbtop.model.redo_rates import log_rate_text, redo_speed_text, written_rate_text
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.alarm import ALARM, marked
from ndbtop.tui.format import bar, number
from ndbtop.tui.safe import Text

MIB = 1024 * 1024
LAST_REDO_PHASE = 4
"""The latest phase a release is known to create the redo log in (phase 4 in 6.x and in a
7.4 source, where NDB_STTORRY waits for the files; a 7.2 source begins them in phase 2):
the hint about missing progress reports is not given after it."""


BAR_WIDTH = 24
COMPACT_BAR_WIDTH = 14
"""The progress bar on a short terminal: with it the figures up to the rate fit 80 columns."""


def redo_lines(snap: ClusterSnapshot, node_id: int, compact: bool = False) -> list[Text]:
    """The redo-initialisation lines of a node's start panel (empty when not initialising).

    Each line gives the amount and the rate first, then the files, so that a line that
    wraps on a narrow screen keeps them on its first row; ``compact`` (a short terminal)
    narrows the bar. No line gives a time left of its own: the node's one estimate
    (:mod:`ndbtop.eta.node`, on the detail's line after these) covers the redo log's
    creation and the phases after it."""
    width = COMPACT_BAR_WIDTH if compact else BAR_WIDTH
    t = snap.timeline(node_id)
    host = snap.host_of(node_id)
    measured = measured_redo(snap, node_id)
    reason = no_reports_reason(snap, node_id)
    lines: list[Text] = []
    # The host's measure, when it stands for the node (host_redo_wins), else the events'.
    # A silent node's events move only when an LDM instance completes: they are not
    # progress, so they are not shown as such (the files completed are, below).
    if (shown := host_redo_wins(snap, node_id)) is not None:
        cfg = snap.config.data_node(node_id) if snap.config is not None else None
        lines.append(measured_line(shown, width,
                                   sparse=not (cfg is not None and cfg.redo_init_full)))
    elif (t is not None and t.redo is not None and (t.active or t.redo.completed)
            and reason is None):
        lines.append(events_line(snap, node_id, t.redo, width))
    if reason is not None and measured is None and (host is None or host.via != "ssh"):
        notice = Text(f"⚠ {no_reports_notice(reason, simulated_cluster(snap))}",
                      style="yellow")
        total = configured_redo_mb(snap, node_id)
        if total is not None:
            notice.append(f" · redo log to create {total:,} MB (configuration)")
        if t is not None and t.redo is not None and t.redo.files_done:
            notice.append(f" · files {t.redo.files_done}/{t.redo.total_files} done "
                          "(completion events)")
        lines.append(notice)
    elif (not lines and snap.config is None and t is not None and t.active
          and t.kind in (INITIAL_START, INITIAL_NODE_RESTART, None)
          and t.current_phase is not None and t.current_phase <= LAST_REDO_PHASE):
        node = snap.node(node_id)
        if node is not None and node.status == "STARTING" and (host is None or host.via != "ssh"):
            hint = measure_hint(simulated_cluster(snap))
            lines.append(Text("no redo progress reports (StartupStatusReportFrequency=0 sends "
                              f"them only at the start and the end); {hint}", style="dim"))
    if lines and host is not None:
        lines.append(host_disk_line(host))
    return lines


def events_line(snap: ClusterSnapshot, node_id: int, r: RedoProgress,
                width: int = BAR_WIDTH) -> Text:
    """The redo-log initialisation as the node's LogFileInitStatus events report it."""
    cfg = snap.config.data_node(node_id) if snap.config is not None else None
    line = Text("redo log init ")
    if cfg is not None and cfg.redo_init_full:
        # With FULL the events' "MB done" counts files (redo-init.md §6): files only.
        frac = r.files_done / r.total_files if r.total_files else 0.0
        line.append_text(bar(frac * 100, width, warn=101, crit=101))
        line.append(f" files {r.files_done}/{r.total_files} of {r.total_mb:,} MB (FULL)")
    else:
        line.append_text(bar(r.fraction * 100, width, warn=101, crit=101))
        t = snap.timeline(node_id)
        short = width < BAR_WIDTH
        speed = (redo_speed_text(t, short=short) if t is not None
                 else log_rate_text(r.mb_per_s, short=short))
        # MB and rate first: on a short terminal the file counts are what wraps away.
        line.append(f" {r.mb_done:,}/{r.total_mb:,} MB · {speed}"
                    f" · files {r.files_done}/{r.total_files}")
    line.append("  (cluster log)" if r.from_file else "  (events)", style="dim")
    return line


def measured_line(m: RedoMeasure, width: int = BAR_WIDTH, sparse: bool = True) -> Text:
    """The redo-log initialisation as measured on the node's host over SSH."""
    line = Text("redo log init ")
    frac = m.fraction
    line.append_text(bar(None if frac is None else frac * 100, width, warn=101, crit=101))
    files = f"{m.files_done if m.files_done is not None else '?'}/" \
            f"{m.files_total if m.files_total is not None else '?'}"
    done = "?" if m.bytes_written is None else f"{m.bytes_written / MIB:,.0f}"
    total = "?" if m.bytes_expected is None else f"{m.bytes_expected / MIB:,.0f}"
    line.append(f" written {done}/{total} MB · {written_rate_text(m.rate_bytes_per_s, sparse)}"
                f" · files {files}")
    line.append("  (measured on the host)", style="dim")
    return line


def host_disk_line(host: HostReport) -> Text:
    """The host's busiest disk: w/s, average write size, await and %util."""
    line = Text(f"host {host.host} ", style="bold")
    if host.state != "ok":
        line.append(f"{host.state}: {host.error or ''}", style="red")
        return line
    d = host.busiest_disk()
    if d is None:
        line.append("no disk figures yet", style="dim")
        return line
    line.append(f"{d.name} w/s {number(d.w_s, 1)} · wareq {number(d.wareq_kb, 1)} kB · ")
    slow = (d.await_ms or 0) > 20
    line.append_text(marked(f"await {number(d.await_ms, 1)} ms", ALARM if slow else None,
                            "bold red" if slow else ""))
    line.append(" · %util ")
    busy = (d.util_pct or 0) >= 90
    line.append_text(marked(f"{d.util_pct:.0f}%" if d.util_pct is not None else "-",
                            ALARM if busy else None, "bold red" if busy else ""))
    return line
