"""The start estimate on the Nodes view: one line per starting data node."""

from __future__ import annotations

from ndbtop.eta.node_evidence import redo_mb_per_s
from ndbtop.eta.node_text import eta_text
from ndbtop.model.eta import Eta
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.safe import Text


def eta_line(snap: ClusterSnapshot, node_id: int) -> Text | None:
    """``node 10 ETA 12:41 (12:35–12:52) · redo 18 MB/s (events), last start``, or
    ``node 10 no ETA: <why>``; None for a node that is not starting."""
    result = snap.start_eta(node_id)
    if result is None:
        return None
    line = Text(f"node {node_id} ")
    words = eta_text(result, redo_mb_per_s(snap, node_id))
    line.append(words, style="bold cyan" if isinstance(result, Eta) else "dim")
    return line


def eta_lines(snap: ClusterSnapshot) -> list[Text]:
    """:func:`eta_line` of every starting data node, by id."""
    out = []
    for node_id, _ in sorted(snap.start_etas, key=lambda pair: pair[0]):
        line = eta_line(snap, node_id)
        if line is not None:
            out.append(line)
    return out
