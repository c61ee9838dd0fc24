"""A data node's memory, activity and links, as lines of the Nodes view's detail panel,
and the cluster-wide figures and warnings of its summary line."""

from __future__ import annotations

from ndbtop.model.derive import ActivityRate
from ndbtop.model.links import NodeLinkState, id_ranges, node_link_state, troubled_links
from ndbtop.model.live import sum_of_live
from ndbtop.model.percent import whole_percent
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.tables import human_bytes
from ndbtop.tui.alarm import ALARM, FULL, marked
from ndbtop.tui.format import rate_bytes, seconds
from ndbtop.tui.safe import Text

MEMORY_WARN_PCT = 80.0
"""Memory use shown in yellow from here."""
MEMORY_CRIT_PCT = 90.0
"""And in red from here: a full DataMemory fails inserts with error 827."""

_KIND_LABEL = {"NDB": "data nodes", "MGM": "mgm", "API": "API"}
_INDENT = " " * 10


def _label(name: str) -> str:
    return name.ljust(len(_INDENT))


def memory_style(pct: float | None) -> str:
    """The colour of a data memory percentage."""
    if pct is None:
        return "dim"
    return "bold red" if pct >= MEMORY_CRIT_PCT else "yellow" if pct >= MEMORY_WARN_PCT else ""


def memory_marker(pct: float | None) -> str | None:
    """The alarm's mark of a data memory percentage without colour (:mod:`ndbtop.tui.alarm`)."""
    if pct is None:
        return None
    return FULL if pct >= MEMORY_CRIT_PCT else ALARM if pct >= MEMORY_WARN_PCT else None


def data_memory_by_node(snap: ClusterSnapshot) -> dict[int, float | None]:
    """Percent of ``DataMemory`` each data node uses (none before it was read)."""
    if snap.ndbinfo is None:
        return {}
    return {m.node_id: m.used_pct for m in snap.ndbinfo.memory if m.memory_type == "Data memory"}


def memory_line(snap: ClusterSnapshot, node_id: int) -> Text | None:
    """``memory    Data 12.1 GiB of 20.0 GiB (61%) · Long message buffer 2%``."""
    uses = [m for m in snap.ndbinfo.memory if m.node_id == node_id] if snap.ndbinfo else []
    if not uses:
        return None
    line = Text(_label("memory"), style="bold")
    for i, m in enumerate(uses):
        if i:
            line.append(" · ")
        pct = m.used_pct
        shown = "-" if pct is None else f"{whole_percent(pct)}%"
        if m.memory_type == "Data memory":
            line.append(f"Data {human_bytes(m.used)} of {human_bytes(m.total)} ")
            line.append_text(marked(f"({shown})", memory_marker(pct), memory_style(pct)))
        else:
            line.append_text(marked(f"{m.memory_type} {shown}", memory_marker(pct),
                                    memory_style(pct)))
    return line


def activity_of(snap: ClusterSnapshot, node_id: int) -> ActivityRate | None:
    """A data node's rates between the last two readings of its counters."""
    return next((a for a in snap.activity_rates if a.node_id == node_id), None)


def cluster_transactions(snap: ClusterSnapshot) -> float | None:
    """Transactions per second of the whole cluster: the STARTED nodes' with a sample
    younger than two intervals (None while one of theirs is unknown)."""
    source = snap.source("ndbinfo")
    age = source.age(snap.taken_at) if source is not None else None
    return sum_of_live((a.transactions_per_s for a in snap.activity_rates), age, snap.interval)


def per_second(value: float | None) -> str:
    """``1,670`` or ``-``."""
    return "-" if value is None else f"{value:,.0f}"


def activity_line(snap: ClusterSnapshot, node_id: int) -> Text | None:
    """``activity  1,670 tx/s · 0 aborts/s · key reads 9,800/s · key writes 3,300/s ...``."""
    a = activity_of(snap, node_id)
    if a is None or a.transactions_per_s is None:
        return None
    line = Text(_label("activity"), style="bold")
    line.append(f"{per_second(a.transactions_per_s)} tx/s · ")
    line.append(f"{per_second(a.aborts_per_s)} aborts/s", style="yellow" if a.aborts_per_s else "")
    line.append(
        f" · key reads {per_second(a.reads_per_s)}/s · key writes "
        f"{per_second(a.writes_per_s)}/s · scans {per_second(a.scans_per_s)}/s · "
        f"LDM ops {per_second(a.operations_per_s)}/s"
    )
    line.append(f" ({seconds(a.seconds)})", style="dim")
    return line


def links_lines(snap: ClusterSnapshot, node_id: int) -> list[Text]:
    """The node's links: connected per kind of node, traffic, and what is wrong."""
    state = node_link_state(snap, node_id)
    if state is None:
        return []
    line = Text(_label("links"), style="bold")
    shown = [c for c in state.counts if c.configured]
    for i, count in enumerate(shown):
        if i:
            line.append(" · ")
        healthy = count.connected == count.configured or count.kind == "API"
        line.append(
            f"{_KIND_LABEL[count.kind]} {count.connected}/{count.configured}",
            style="" if healthy else "yellow",
        )
    if state.sent_per_s is not None or state.received_per_s is not None:
        line.append(
            f" · sent {rate_bytes(state.sent_per_s)}, received "
            f"{rate_bytes(state.received_per_s)} over {seconds(state.rate_over_s)}"
        )
    out = [line]
    out.extend(_trouble_lines(state))
    return out


def _trouble_lines(state: NodeLinkState) -> list[Text]:
    out = []
    if state.overloaded:
        out.append(Text(
            f"{_INDENT}overloaded towards {id_ranges(state.overloaded)}: send buffer past "
            "OverloadLimit, transactions over these links fail (error 1218)",
            style="bold red",
        ))
    if state.slowdown:
        out.append(Text(
            f"{_INDENT}slowed down towards {id_ranges(state.slowdown)}: send buffer past 60% "
            "of OverloadLimit",
            style="yellow",
        ))
    if state.unexpected_down:
        out.append(Text(
            f"{_INDENT}not connected to {id_ranges(state.unexpected_down)}, which "
            f"{'is' if len(state.unexpected_down) == 1 else 'are'} up",
            style="bold red",
        ))
    return out


def links_warning(snap: ClusterSnapshot, limit: int = 3) -> Text | None:
    """``links: node 3 overloaded → 4 · node 5 not connected → 7`` for the summary line."""
    troubled = troubled_links(snap)
    if not troubled:
        return None
    parts = []
    for s in troubled:
        if s.overloaded:
            parts.append(f"node {s.node_id} overloaded → {id_ranges(s.overloaded)}")
        if s.unexpected_down:
            parts.append(f"node {s.node_id} not connected → {id_ranges(s.unexpected_down)}")
        if s.slowdown:
            parts.append(f"node {s.node_id} slowdown → {id_ranges(s.slowdown)}")
    more = f" (+{len(parts) - limit} more)" if len(parts) > limit else ""
    severe = any(s.overloaded or s.unexpected_down for s in troubled)
    return Text("links: " + " · ".join(parts[:limit]) + more,
                style="bold red" if severe else "yellow")
