"""Replication: each channel from this cluster's SQL nodes to its replica's (or into this
cluster), with its threads, its lag in epochs and in seconds with a trend, what the replica
itself says (Seconds_Behind_Source), conflicts and the last error; then the SQL nodes read.

Replication is read at every refresh while this view shows, else every 10 s (for the
findings); the reads run in the background, never in the UI's thread.
"""

from __future__ import annotations

from ndbtop.collect.replication import BACKGROUND_EVERY
from ndbtop.model.replication import Channel, ReplicationState, epoch_text
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.replication import (
    BEHIND_MEANS,
    LAG_MEANS,
    NOT_NAMED,
    endpoint_text,
    epochs_text,
    last_error,
    running_text,
    seconds_text,
)
from ndbtop.tui.format import sparkline
from ndbtop.tui.safe import Text
from ndbtop.tui.views.base import PanelsView

TREND_WIDTH = 20
"""Reads of the lag in seconds a channel's trend shows (one point a read)."""
LABEL_WIDTH = 44
FIGURES = 49
"""Columns of a channel's figures but its trend: IO, SQL, epochs, lag, Behind_Src,
confl/min."""
WIDE = LABEL_WIDTH + 1 + FIGURES + TREND_WIDTH
"""Columns a channel's line takes with its source and replica beside its figures."""
NARROW_INDENT = 2


def _running(value: str) -> Text:
    return Text(f"{running_text(value):<4}", style="green" if value == "Yes" else "bold red")


class ReplicationView(PanelsView):
    """The replication channels and the SQL nodes they are read from."""

    title = "Replication"
    short_title = "Repl"
    panels = ("repl_head", "repl_channels", "repl_nodes")
    wants_replication = True
    """Replication is read at every refresh while this view shows."""

    def render_snapshot(self, snap: ClusterSnapshot, now: float) -> None:
        state = snap.replication
        self.put("#repl_head", self._head(snap, state))
        if state is None:
            self.put("#repl_channels", Text(""))
            self.put("#repl_nodes", Text(""))
            return
        self.put("#repl_channels", self._channels(snap, state))
        nodes = Text("SQL nodes read for replication", style="bold")
        for e in state.endpoints:
            if self.matches(e.target, e.side):
                nodes.append("\n  " + endpoint_text(e), style="yellow" if e.error else "")
        self.put("#repl_nodes", nodes)

    def _head(self, snap: ClusterSnapshot, state: ReplicationState | None) -> Text:
        head = Text("Replication between clusters", style="bold")
        if state is None:
            head.append(f"\n{NOT_NAMED}.", style="yellow")
            return head
        head.append(f"\nLag threshold {state.lag_threshold_s:g} s (replication_lag, ndbtop's "
                    f"own). Read every {state.every_s:g} s: at every refresh while this view "
                    f"shows, every {BACKGROUND_EVERY:g} s otherwise.", style="dim")
        head.append(f"\n{LAG_MEANS}.\n{BEHIND_MEANS}.", style="dim")
        src = snap.source("replication")
        if src is not None and src.error:
            head.append(f"\nNo replication SQL node answers: {src.error}", style="yellow")
        return head

    def _channels(self, snap: ClusterSnapshot, state: ReplicationState) -> Text:
        shown = [c for c in state.channels
                 if self.matches(c.label, c.threads.io_running, c.threads.sql_running,
                                 last_error(c))]
        width = self.size.width or self.app.size.width
        return channels_text(snap, state, shown, max(width - 2, 0))


def channels_text(snap: ClusterSnapshot, state: ReplicationState, shown: list[Channel],
                  room: int = 0) -> Text:
    """The channels' table in ``room`` columns (0: as wide as it takes): below
    :data:`WIDE` each channel's source and replica take a line of their own above its
    figures, and the trend narrows to what is left."""
    out = Text(f"Channels ({len(state.channels)})", style="bold")
    if not state.channels:
        silent = [e.target for e in state.endpoints if e.error is not None]
        out.append("\n  none: no SQL node named reads the binary log of another "
                   "(SHOW REPLICA STATUS is empty on each" + (
                       f" that answers; not known of {', '.join(silent)})" if silent
                       else ")"), style="yellow" if silent else "")
        return out
    wide = not room or room >= WIDE
    trend = TREND_WIDTH if wide else max(0, min(TREND_WIDTH, room - NARROW_INDENT - FIGURES))
    lead = f"{'source -> replica':<{LABEL_WIDTH}} " if wide else (
        "source -> replica\n" + " " * NARROW_INDENT)
    title = "trend (lag s)" if trend >= len("trend (lag s)") else "trend"[:trend]
    out.append(f"\n{lead}IO   SQL  {'epochs':>9} {'lag':>7} "
               f"{title:<{trend}} {'Behind_Src':>10} {'confl/min':>9}",
               style="dim")
    for c in shown:
        out.append("\n")
        out.append_text(_line(snap, state, c, wide, trend))
    return out


def _line(snap: ClusterSnapshot, state: ReplicationState, c: Channel, wide: bool,
          trend_width: int) -> Text:
    label = c.label
    if wide:
        if len(label) > LABEL_WIDTH:
            label = label[:LABEL_WIDTH - 1] + "…"
        line = Text(f"{label:<{LABEL_WIDTH}} ")
    else:
        line = Text(f"{label}\n{' ' * NARROW_INDENT}")
    line.append_text(_running(c.threads.io_running))
    line.append(" ")
    line.append_text(_running(c.threads.sql_running))
    late = c.lag.seconds is not None and c.lag.seconds > state.lag_threshold_s
    line.append(f" {epochs_text(c):>9} ")
    line.append(f"{seconds_text(c.lag.seconds):>7}" + ("!" if late else " "),
                style="bold yellow" if late else "")
    trend = sparkline(snap.series(f"repl.lag_s.{c.key}"), trend_width) if trend_width \
        else Text("")
    line.append_text(trend)
    line.append(" " * (trend_width - len(trend.plain)))
    behind = c.threads.seconds_behind
    line.append(f" {'NULL' if behind is None else behind:>10}")
    rate = c.conflicts_per_min
    line.append(f" {'-' if rate is None else f'{rate:,.1f}':>9}",
                style="bold yellow" if rate else "")
    detail = [f"source {epoch_text(c.source_epoch)}, applied "
              f"{epoch_text(c.applied_epoch)}: {c.lag.basis}"]
    if c.incident is not None:
        detail.append(f"{c.incident.kind} incident in the source's binary log at "
                      f"{c.incident.file}:{c.incident.position}, after epoch "
                      f"{epoch_text(c.incident.epoch_before)}")
    error = last_error(c)
    for text in detail:
        line.append(f"\n    {text}", style="dim")
    if error:
        line.append(f"\n    last error: {error}", style="bold red")
    return line
