"""The cells of the Nodes table and its summary lines, each from one node's figures."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len, set_cell_size

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import NO_NODE_GROUP, not_connected_text
from ndbtop.model.derive import ActivityRate
from ndbtop.model.freshness import Freshness
from ndbtop.model.history import PastStart, PhaseVsLastTime, phase_normal
from ndbtop.model.hosts import HostReport
from ndbtop.model.percent import whole_percent
from ndbtop.model.phases import (
    StartTimeline,
    phase_name,
    phase_text,
)
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.start_evidence import timer_prefix
from ndbtop.model.summary import ClusterSummary
from ndbtop.sanitise import sanitise
from ndbtop.tui.alarm import ALARM, marked
from ndbtop.tui.format import seconds
from ndbtop.tui.safe import Text
from ndbtop.tui.views.node_facts import (
    memory_marker,
    memory_style,
    per_second,
)

HOST_WIDTH = 24
"""Columns of the host cell: a longer address is cut with ``…`` (the detail panel has it
whole), so that the figures after it stay on an 80- or 120-column screen."""


def address_cell(node: NodeStatus, snap: ClusterSnapshot) -> str:
    """The node's address; for a data or management node that is not connected, the host
    it may connect from (``from HOST``; the detail panel says it as ``ndb_mgm show`` does);
    an API slot just says free slot. At most :data:`HOST_WIDTH` columns."""
    # Cut once made safe: an escaped control character takes the room it is shown in.
    if node.connected or node.type == "API" or snap.config is None:
        return elide(sanitise(node.address), HOST_WIDTH)
    section = snap.config.node(node.node_id)
    if section is None:
        return "not connected"
    return elide(sanitise(f"from {section.host or 'any host'}"), HOST_WIDTH)


def address_line(node: NodeStatus | None, snap: ClusterSnapshot) -> Text | None:
    """The detail panel's line for an address the host cell cannot show whole: where a node
    that is not connected may connect from, or a long address."""
    if node is None:
        return None
    # Made safe before it becomes Text: Rich drops some control characters on the way in.
    if not (node.connected or node.type == "API" or snap.config is None):
        where = sanitise(not_connected_text(node.node_id, snap.config))
        return Text(f"Node {node.node_id}: {where}", style="yellow")
    address = sanitise(node.address)
    if cell_len(address) > HOST_WIDTH:
        return Text(f"Node {node.node_id}: address {address}")
    return None


def elide(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns, ending in ``…`` when cut."""
    if cell_len(text) <= width:
        return text
    return set_cell_size(text, width - 1) + "…"


def group_text(group: int | None) -> str:
    """A node group as the table shows it: ``-`` for none, ``?`` when unknown."""
    if group is None:
        return "?"
    return "-" if group == NO_NODE_GROUP else str(group)


def memory_cell(used: float | None) -> Text:
    """``61%`` of ``DataMemory`` in use (cut down to a whole percent, as ``REPORT MEMORY``
    prints it), coloured from 80% (marked without colour)."""
    return marked("" if used is None else f"{whole_percent(used)}%", memory_marker(used),
                  memory_style(used))


def util_cell(host: HostReport | None) -> Text:
    """%util of the busiest disk of the node's host; red from 90%."""
    util = host.util_pct if host is not None and host.state == "ok" else None
    if util is None:
        return Text("" if host is None else "?", style="dim")
    return marked(f"{util:.0f}%", ALARM if util >= 90 else None,
                  "bold red" if util >= 90 else "")


def transactions_cell(rate: ActivityRate | None) -> str:
    """Transactions per second the node coordinated, between two readings of its counters."""
    return per_second(rate.transactions_per_s) if rate is not None else ""


def phase_cell(node: NodeStatus, timeline: StartTimeline | None) -> Text:
    """``4 redo log init`` for a starting node (the phase in progress), stopping levels else."""
    text = phase_text(node, timeline)
    if node.status == "STARTING" and not text.startswith("done"):
        return Text(text, style="bold yellow")
    return Text(text, style="dark_orange" if node.status == "SHUTTING_DOWN" else "")


def timer_cell(timeline: StartTimeline | None, now: float,
               history: Sequence[PastStart] = ()) -> Text:
    """Time in the current phase (``≥2m15s`` when counted from ndbtop's first sight of
    the node); red when well past its normal duration (``history``: the starts remembered,
    :func:`~ndbtop.model.history.phase_normal`)."""
    if timeline is None or not timeline.active:
        return Text("")
    spent = timeline.in_phase_s(now)
    if spent is None:
        return Text("")
    phase = timeline.current_phase if timeline.current_phase is not None else 0
    normal = phase_normal(history, timeline, phase)
    slow = normal is not None and normal.slow(spent)
    return marked(timer_prefix(timeline) + seconds(spent), ALARM if slow else None,
                  "bold red" if slow else "")


def last_time_cell(versus: PhaseVsLastTime | None) -> Text:
    """``last time 2m15s``: red for the phase in progress when it is slower than last time,
    yellow for a completed phase that was."""
    if versus is None:
        return Text("")
    style = "dim"
    if versus.slower:
        style = "bold red" if versus.running else "yellow"
    return marked(f"last time {seconds(versus.last_s)}", ALARM if versus.slower else None,
                  style)


def slower_warning(versus: PhaseVsLastTime, redo_phase: int | None = None) -> Text:
    """The warning for a phase in progress that is slower than last time."""
    ratio = f" (+{(versus.ratio - 1) * 100:.0f}%)" if versus.ratio is not None else ""
    return Text(
        f"⚠ phase {versus.phase} {phase_name(versus.phase, redo_phase)} is slower "
        f"than last time: {seconds(versus.seconds)} so far, {seconds(versus.last_s)} last "
        f"time{ratio}",
        style="bold red",
    )


def groups_text(s: ClusterSummary, good: str) -> Text:
    """Node groups down, missing a node, or all complete (in ``good``'s style)."""
    if s.groups_down:
        return Text(f"node groups DOWN: {', '.join(f'#{g}' for g in s.groups_down)}",
                    style="bold red")
    if s.groups_missing:
        return Text("node groups missing a node: "
                    + ", ".join(f"#{g}" for g in s.groups_missing), style="yellow")
    return Text("every node group complete", style=good)


def stale_prefix(fresh: Freshness) -> str:
    """``STALE as of 12:04:31, 78 s ago: `` before figures from a source gone quiet."""
    if fresh.age is None:
        return "management server never answered: "
    return f"STALE {fresh.text()}: "


def stale_text(text: Text, stale: bool) -> Text:
    """A cell as it is, or dimmed (its colour gone) when its source is stale."""
    return Text(text.plain, style="dim") if stale else text
