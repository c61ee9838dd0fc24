"""The start estimate on the Nodes view: one line under the summary, and one in the
selected node's detail."""

from __future__ import annotations

from ndbtop.eta.node_evidence import redo_mb_per_s
from ndbtop.eta.node_text import eta_text
from ndbtop.model.eta import Eta
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.safe import Text


def eta_line(snap: ClusterSnapshot, node_id: int) -> Text | None:
    """``node 10 ETA 12:41 (12:35–12:52) · redo 18 MB/s (events), last start``, or
    ``node 10 no ETA: <why>``; None for a node that is not starting."""
    return _line(snap, (node_id,))


def eta_summary(snap: ClusterSnapshot, skip: frozenset[int] = frozenset()) -> Text | None:
    """Every starting node's estimate on one line, but those of ``skip``: nodes whose
    estimates read the same share it (``nodes 10, 11 ETA 12:41 ...``, S1's two nodes
    creating their redo logs); None when there is none to show."""
    groups: dict[str, list[int]] = {}
    for node_id, _ in sorted(snap.start_etas, key=lambda pair: pair[0]):
        if node_id not in skip:
            groups.setdefault(_words(snap, node_id), []).append(node_id)
    parts = [_line(snap, tuple(ids)) for ids in groups.values()]
    line = Text()
    for part in parts:
        if part is not None:
            if line.plain:
                line.append("  ·  ")
            line.append_text(part)
    return line if line.plain else None


def _words(snap: ClusterSnapshot, node_id: int) -> str:
    return eta_text(snap.start_eta(node_id), redo_mb_per_s(snap, node_id))


def _line(snap: ClusterSnapshot, node_ids: tuple[int, ...]) -> Text | None:
    result = snap.start_eta(node_ids[0])
    if result is None:
        return None
    who = f"node {node_ids[0]}" if len(node_ids) == 1 else \
        f"nodes {', '.join(map(str, node_ids))}"
    line = Text(f"{who} ")
    line.append(_words(snap, node_ids[0]), style="bold cyan" if isinstance(result, Eta)
                else "dim")
    return line
