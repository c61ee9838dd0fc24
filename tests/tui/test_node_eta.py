"""The start estimates under the Nodes view's summary: one line, nodes whose estimates read
the same sharing it."""

from __future__ import annotations

from ndbtop.eta.node_text import clock
from ndbtop.model.eta import Eta, EtaMissing
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.tui.views.node_eta import eta_line, eta_summary

NOW = 1_800_000_000.0


def snap(*etas: tuple[int, object]) -> ClusterSnapshot:
    return ClusterSnapshot(taken_at=0.0, wall=NOW, interval=1.0, sources=(),
                           start_etas=etas)  # type: ignore[arg-type]


def test_nodes_with_the_same_estimate_share_one_line_and_others_follow_on_it() -> None:
    same = Eta(600.0, 300.0, 1200.0, NOW, ("last start", "typical"))
    why = EtaMissing("phase 5 (copy data, wait LCP): no restart_info, no past start")
    line = eta_summary(snap((11, same), (10, same), (12, why)))
    assert line is not None
    span = f"{clock(NOW + 600)} ({clock(NOW + 300)}–{clock(NOW + 1200)})"
    assert line.plain == (f"nodes 10, 11 ETA {span} · last start, typical  ·  node 12 no ETA: "
                          "phase 5 (copy data, wait LCP): no restart_info, no past start")
    assert eta_summary(snap()) is None


def test_the_detail_line_names_one_node_and_none_when_it_is_not_starting() -> None:
    s = snap((3, EtaMissing("kind of start not known yet")))
    line = eta_line(s, 3)
    assert line is not None and line.plain == "node 3 no ETA: kind of start not known yet"
    assert eta_line(s, 4) is None
