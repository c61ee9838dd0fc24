"""Membership and arbitration in the Nodes view: a line under the summary, and the whole of
it in the detail panel while a management server's row is selected.

``ndbinfo.membership`` is read only while the Nodes view shows (its ``panels_wanted``);
without a SQL node both say that they come from ``get status``, the arbitration events and
the configuration.
"""

from __future__ import annotations

import datetime as dt

from ndbtop.model.membership import FROM_EVENTS, Membership, headline, membership
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.safe import Text

_CONCERN_STYLE = {"alarm": "bold red", "warning": "yellow", "transient": "yellow"}


def _worrying(m: Membership) -> bool:
    a = m.arbitrator
    return a.agreed is False or (a.state is not None and a.state != "ARBIT_RUN")


def membership_line(snap: ClusterSnapshot) -> Text | None:
    """``president 1 · successor 2 · arbitrator 49 rank 1 active, agreed by 4/4``; None
    while no data node has started and no arbitration event has been seen."""
    if not snap.data_nodes():
        return None
    m = membership(snap)
    a = m.arbitrator
    if m.president is None and a.node_id is None and a.state is None:
        return None  # no data node started, no arbitration seen: nothing to say yet
    worrying = _worrying(m)
    line = Text("! " if worrying else "", style="bold yellow")
    line.append(headline(m, short=True),
                style="yellow" if worrying else ("dim" if m.source == FROM_EVENTS else ""))
    return line


def membership_panel(snap: ClusterSnapshot) -> Text:
    """The detail panel: the headline, the ring, the node groups, the arbitrator candidates
    and the last arbitration events."""
    m = membership(snap)
    out = Text("membership: ", style="bold")
    out.append(headline(m), style="yellow" if _worrying(m) else "")
    if m.note:
        out.append(f"\n{m.note}", style="dim")
    if m.ring:
        chain = " → ".join(str(node) for node, _, _ in m.ring)
        first = m.ring[0][0]
        out.append("\nheartbeat ring: ", style="bold")
        out.append(f"{chain} → {first}")
    if m.groups:
        out.append("\nnode groups: ", style="bold")
        parts = []
        for g in m.groups:
            members = " ".join(map(str, g.members))
            parts.append(f"{g.group}: {members} ({len(g.live)}/{len(g.members)} started)")
        out.append("  ·  ".join(parts))
    if m.candidates:
        out.append("\ncandidates (ArbitrationRank): ", style="bold")
        out.append(", ".join(
            f"{c.node_id} {c.node_type} rank {c.rank}"
            + ("" if c.connected is None else (" connected" if c.connected else " not connected"))
            for c in m.candidates))
    out.append("\nlast arbitration events:", style="bold")
    if not m.events:
        out.append(" none seen since ndbtop connected", style="dim")
    for e in reversed(m.events):
        when = dt.datetime.fromtimestamp(e.at).strftime("%H:%M:%S")
        out.append(f"\n  {when} node {e.node} {e.kind}: {e.text}",
                   style=_CONCERN_STYLE.get(e.concern, ""))
        if e.meaning:
            out.append(f"  ({e.meaning})", style="dim")
    return out
