"""A node's start, phase by phase: the timeline panel of the Nodes view."""

from __future__ import annotations

import datetime as dt

from rich.table import Table

from ndbtop.model.history import PhaseNormal, compare_with_last_time, phase_normal
from ndbtop.model.phases import START_TYPE_SHORT
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.start_evidence import (
    elapsed_text,
    phase_seconds_text,
    since_text,
    timer_prefix,
)
from ndbtop.tui.alarm import ALARM, marked
from ndbtop.tui.format import seconds
from ndbtop.tui.safe import Text
from ndbtop.tui.views.node_cells import last_time_cell, slower_warning
from ndbtop.tui.views.redo import redo_lines

BEGAN_FROM = {"host": " (from the host)", "file": " (from the cluster log)"}
"""What the title adds to a start's beginning not heard as its event."""


def normal_text(normal: PhaseNormal) -> str:
    """A phase's normal duration and what it rests on, so that an assumption is never
    taken for a measurement: ``normal ~14m20s (redo log at an assumed 50
    MB/s)``, ``normal ~38m26s (this cluster's last start)``."""
    return f"normal ~{seconds(normal.seconds)} ({normal.basis})"


def timeline_panel(snap: ClusterSnapshot, node_id: int, now: float,
                   compact: bool = False) -> Table | Text:
    """The phases of a node's current or last start, with durations and redo progress.

    ``compact`` (a short terminal, while the start runs): the redo progress, the phase in
    progress and the phase's warning come first, and the phases done that were not slow
    follow on one line (as do those no slower than last time), so what matters is not cut
    off at the panel's foot.

    While the start runs, each phase that a remembered start of the same kind went
    through (``snap.past_starts``, :func:`compare_with_last_time`) shows how long it
    took last time, and a phase in progress that is slower than last time gets a
    warning line; without such a start nothing is added.
    """
    t = snap.timeline(node_id)
    if t is None:
        node = snap.node(node_id)
        state = node.status if node else "unknown"
        return Text(f"Node {node_id}: {state}; no start seen since ndbtop started.", style="dim")
    kind = START_TYPE_SHORT.get(t.kind, "start") if t.kind is not None else "start"
    began = dt.datetime.fromtimestamp(t.began_at).strftime("%H:%M:%S")
    if t.active:
        state = f"running {elapsed_text(t, now)}"
    elif t.aborted:
        state = "abandoned"
    else:
        state = f"took {elapsed_text(t, now)}"
    title = Text(
        f"Node {node_id} · {kind} · "
        + (f"began {began}" if t.began_exact else f"seen since {began}")
        + BEGAN_FROM.get(t.began_from or "", "") + f" · {state}",
        style="bold",
    )
    versus = compare_with_last_time(snap.past_starts, t, now)
    rows: list[list[Text | str]] = []

    def row(phase: int, *cells: Text | str) -> None:
        shown = list(cells)
        if versus:
            shown.insert(3, last_time_cell(versus.get(phase)))
        rows.append(shown)

    compact = compact and t.active
    folded: list[str] = []
    for r in t.completed:
        normal = phase_normal(snap.past_starts, t, r.phase)
        slow = normal is not None and r.seconds is not None and normal.slow(r.seconds)
        last = versus.get(r.phase)
        if compact and not slow and (last is None or not last.slower):
            folded.append(f"{r.phase} {t.name_of(r.phase)} {phase_seconds_text(r)}")
            continue
        row(
            r.phase,
            str(r.phase),
            t.name_of(r.phase),
            marked(phase_seconds_text(r), ALARM if slow else None,
                   "bold red" if slow else ("dim" if r.seconds is None else "")),
            normal_text(normal) if normal is not None and slow else "",
        )
    warning: Text | None = None
    if t.active and t.current_phase is not None:
        spent = t.in_phase_s(now) or 0.0
        normal = phase_normal(snap.past_starts, t, t.current_phase)
        slow = normal is not None and normal.slow(spent)
        row(
            t.current_phase,
            Text(f"▶ {t.current_phase}", style="bold yellow"),
            Text(t.name_of(t.current_phase), style="bold yellow"),
            marked(timer_prefix(t) + seconds(spent) + " so far", ALARM if slow else None,
                   "bold red" if slow else "bold"),
            Text(
                normal_text(normal) + ("  ← slow" if slow else ""),
                style="red" if slow else "dim",
            )
            if normal is not None
            else "",
        )
        current = versus.get(t.current_phase)
        if current is not None and current.slower:
            warning = slower_warning(current, t.redo_phase)
    # A last column empty in every row would make Rich squeeze the table into the
    # title's width (wrapping the phase names): it is left out instead.
    notes = any(cells[-1] for cells in rows)
    table = Table.grid(padding=(0, 2))
    table.add_column(justify="right")
    table.add_column()
    table.add_column(justify="right")
    if versus:
        table.add_column()
    if notes:
        table.add_column(style="dim")
    for cells in rows:
        table.add_row(*(cells if notes else cells[:-1]))
    redo = redo_lines(snap, node_id, compact)
    # On a short terminal the redo progress (its amount and rate) comes first, under the
    # title, before the phases and any warning: the panel's foot is what gets cut.
    parts: list[Text | Table] = [title, *redo, table] if compact else [title, table]
    if t.active and t.current_phase is not None and t.current_from != "event":
        parts.append(Text(f"in phase {t.current_phase} {since_text(t)}"))
    if warning is not None:
        parts.append(warning)
    if not compact:
        parts.extend(redo)
    if folded:
        parts.append(Text("done: " + " · ".join(folded), style="dim"))
    grid = Table.grid()
    for p in parts:
        grid.add_row(p)
    return grid
