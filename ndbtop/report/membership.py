"""Membership and arbitration in the ``--once`` report and the bundle."""

from __future__ import annotations

import datetime as dt
from typing import Any

from ndbtop.model.membership import FROM_NDBINFO, Membership, headline, membership
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.tables import format_table, iso_utc
from ndbtop.sanitise import Laid, sanitise


def membership_json(snap: ClusterSnapshot) -> dict[str, Any]:
    """The ``membership`` object."""
    m = membership(snap)
    a = m.arbitrator
    return {
        "from": m.source,
        "president": m.president,
        "successor": m.successor,
        "arbitrator": {
            "node_id": a.node_id,
            "rank": a.rank,
            "state": a.state,
            "agreed": a.agreed,
            "agreed_by": a.agreed_by,
            "data_nodes": a.data_nodes,
            "connected": a.connected,
            "dissent": [{"node_id": n, "arbitrator": other} for n, other in a.dissent],
        },
        "ring": None if m.source != FROM_NDBINFO else
        [[node, left, right] for node, left, right in m.ring],
        "node_groups": [{"group": g.group, "members": list(g.members), "live": list(g.live)}
                        for g in m.groups],
        "candidates": [{"node_id": c.node_id, "type": c.node_type, "rank": c.rank,
                        "connected": c.connected} for c in m.candidates],
        "events": [{"time": iso_utc(e.at), "node_id": e.node, "type": e.kind, "text": e.text,
                    "meaning": e.meaning or None} for e in m.events],
        "note": m.note or None,
        "flagged": list(m.flagged),
    }


def membership_text(snap: ClusterSnapshot) -> list[str]:
    """The section of the text report."""
    return ["", "Membership and arbitration:", *membership_lines(membership(snap))]


def membership_lines(m: Membership) -> list[str]:
    """The membership as plain lines (the report and the bundle)."""
    lines = [f"  {headline(m)}"]
    if m.note:
        lines.append(f"  ({m.note})")
    lines += [sanitise(f"  contradicts get status: {f}") for f in m.flagged]
    if m.ring:
        rows = [(node, "-" if left is None else left, "-" if right is None else right)
                for node, left, right in m.ring]
        lines += ["", "  Heartbeat ring (from the president, right neighbour next):",
                  _indent(format_table(("node", "left", "right"), rows, right=(0, 1, 2)))]
    if m.groups:
        rows2 = [(g.group, " ".join(map(str, g.members)) or "-",
                  " ".join(map(str, g.live)) or "none", f"{len(g.live)}/{len(g.members)}")
                 for g in m.groups]
        lines += ["", "  Node groups:",
                  _indent(format_table(("group", "members", "started", "live"), rows2,
                                       right=(0, 3)))]
    if m.candidates:
        rows3 = [(c.node_id, c.node_type, c.rank,
                  "?" if c.connected is None else ("yes" if c.connected else "no"))
                 for c in m.candidates]
        lines += ["", "  Arbitrator candidates (ArbitrationRank of the configuration):",
                  _indent(format_table(("node", "type", "rank", "connected"), rows3,
                                       right=(0, 2)))]
    if m.events:
        lines += ["", "  Last arbitration events:"]
        for e in m.events:
            when = dt.datetime.fromtimestamp(e.at).strftime("%H:%M:%S")
            meaning = f"  ({e.meaning})" if e.meaning else ""
            lines.append(sanitise(f"    {when} node {e.node} {e.kind}: {e.text}{meaning}"))
    else:
        lines += ["", "  Last arbitration events: none seen since ndbtop connected"]
    return lines


def _indent(table: Laid) -> Laid:
    return Laid("\n".join(f"    {line}" for line in table.split("\n")))
