"""One estimate of a start ndbtop attached to mid-way, the same on every surface: ``--once``
(text and JSON), the Nodes view, the export and ``wait``.

S2's node restart as ndbtop finds it late: node 2 STARTING with ``startphase: 4`` (in phase
5, since who knows when; mgm-protocol.md §6), node 3 STARTED, and ``ndbinfo.restart_info``
holding node 3's completed restart (``node_restart_status_int`` 12, ndbinfo.md).
"""

from __future__ import annotations

from dataclasses import replace

from ndbtop.eta.node_evidence import StartEtaKeeper
from ndbtop.eta.node_text import eta_text
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.eta import Eta
from ndbtop.model.ndbinfo import MemoryUse, NdbinfoSample, RestartInfo
from ndbtop.model.phases import apply_status
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.start_evidence import clock_time
from ndbtop.ops.wait import NodeChange, _estimate
from ndbtop.report.render import report_json, report_text
from ndbtop.tui.views.node_eta import eta_line, eta_summary
from tests.export.export_helpers import NOW, samples, up, value
from tests.model.test_eta_node import GIB, config, rows

FIRST_SIGHT = 1_800_000_000.0
PARTNER_PHASE_5 = 300.0
"""Node 3's last restart: restore 100 s and wait for LCP 200 s, both phase 5."""


def attached_snapshot(seen: float) -> ClusterSnapshot:
    nodes = (NodeStatus(2, "NDB", "STARTING", 0, 0, 4, 0, 0, 1, "h"),
             NodeStatus(3, "NDB", "STARTED", 0, 0, 0, 0, 0, 1, "h"))
    timelines = apply_status({}, nodes, FIRST_SIGHT)
    done = RestartInfo(3, "Restart completed", 12,
                       rows(secs_restore_fragments=100, secs_wait_lcp_for_restart=200), 320)
    sample = NdbinfoSample(0.0, None, memory=(MemoryUse(3, "Data memory", 30 * GIB, 0,
                                                        64 * GIB, 0),),
                           restart_info=(done,))
    cfg = config()
    cfg = replace(cfg, data_nodes=tuple(replace(d, node_id=n) for d, n in
                                        zip(cfg.data_nodes, (2, 3))))
    now = FIRST_SIGHT + seen
    snap = ClusterSnapshot(taken_at=now, wall=now, interval=1.0, sources=(), nodes=nodes,
                           timelines=(timelines[2],), config=cfg, ndbinfo=sample)
    return replace(snap, start_etas=StartEtaKeeper().observe(snap))


def test_every_surface_gives_the_same_estimate_its_range_and_basis() -> None:
    snap = attached_snapshot(30.0)
    result = snap.start_eta(2)
    assert isinstance(result, Eta)
    assert result.basis[0] == "restart_info (node 3)"
    assert f"attached mid-start: phase 5 began before {clock_time(FIRST_SIGHT)}" in result.basis
    words = eta_text(result)
    # --once --json and text.
    node = next(n for n in report_json(snap)["nodes"] if n["node_id"] == 2)
    assert node["eta"] == result.as_json() and "eta_missing" not in node
    assert f"  node 2 {words}\n" in report_text(snap) + "\n"
    # The Nodes view: the line under the summary and the node's detail.
    shown = eta_line(snap, 2)
    summary = eta_summary(snap)
    assert shown is not None and shown.plain == f"node 2 {words}"
    assert summary is not None and summary.plain == f"node 2 {words}"
    # The export.
    found = samples(replace(snap, taken_at=NOW, sources=up("mgm", "ndbinfo")))
    assert value(found, "ndb_node_start_eta_seconds", node_id="2") == result.seconds
    assert value(found, "ndb_node_start_eta_low_seconds", node_id="2") == result.low
    assert value(found, "ndb_node_start_eta_high_seconds", node_id="2") == result.high
    # wait: the hub beside it gives the same estimate, and its line says it the same way.
    starting = snap.nodes[0]
    eta = _estimate(snap.start_eta, starting)
    assert eta == result
    change = NodeChange(snap.wall, 2, "STARTING", 4, "phase 5 copy data, wait LCP", 30.0, eta,
                        "first_seen", FIRST_SIGHT)
    assert change.text().endswith(f" · {words}")
    assert change.as_json()["eta"] == result.as_json()


def test_the_real_time_still_to_go_falls_inside_the_range() -> None:
    # Node 2's phase 5 takes what node 3's took (the same data in use); ndbtop came in 0 to
    # 250 s into it and looks 30 s later: what it sees is the same whenever it came in.
    result = attached_snapshot(30.0).start_eta(2)
    assert isinstance(result, Eta)
    for came_in in (0.0, 100.0, 250.0):
        left = PARTNER_PHASE_5 - came_in - 30.0
        # The phases after 5: norms of 2 s for 6..9 and 100, 10 s for the hand-over.
        after = 5 * 2.0 + 10.0
        assert result.low <= left + after <= result.high, (came_in, result)
