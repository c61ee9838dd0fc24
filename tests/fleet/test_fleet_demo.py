"""demo --fleet's three clusters: prod in a rolling restart, dr healthy, staging with a
finding; and the contexts the demo names them with."""

from __future__ import annotations

from ndbtop.cli.demo_fleet import demo_contexts
from ndbtop.demo.capture import CaptureSpec, capture
from ndbtop.fleet.rows import fleet_row
from ndbtop.model.eta import Eta
from ndbtop.sim.scenarios import ScenarioOptions
from ndbtop.sim.scenarios.fleet import BUILDERS, FLEET


def states(name: str, at: float) -> dict[int, str]:
    cluster = BUILDERS[name](ScenarioOptions(seed=1))
    cluster.advance_to(at)
    return {n.node_id: n.state for n in cluster.data_nodes.values()}


def test_prod_restarts_one_node_after_the_other_and_the_others_stay_started() -> None:
    assert states("prod", 30.0) == {2: "STARTING", 3: "STARTED", 4: "STARTED", 5: "STARTED"}
    assert states("prod", 600.0) == {2: "STARTED", 3: "STARTING", 4: "STARTED", 5: "STARTED"}
    assert states("prod", 1000.0)[4] == "STARTING"
    assert set(states("prod", 2400.0).values()) == {"STARTED"}
    assert set(states("dr", 3600.0).values()) == {"STARTED"}


async def test_the_rows_tell_the_three_stories() -> None:
    rows = {}
    for name, colour, production, _ in FLEET:
        at = 600.0 if name == "prod" else 20.0
        cap = await capture(CaptureSpec(f"fleet:{name}", at, samples=5,
                                        panels=("restart_info",)))
        rows[name] = fleet_row(name, cap.snapshot, color=colour, production=production)
    prod, dr, staging = rows["prod"], rows["dr"], rows["staging"]
    assert prod.production and prod.activity_short == "node 3 restart ph 5"
    # Estimated from node 2's restart before it (ndbinfo.restart_info).
    assert isinstance(prod.eta, Eta) and "restart_info (node 2)" in prod.eta.basis
    assert (dr.finding, dr.activity, dr.nodes_text()) == (None, None, "4/4")
    assert staging.finding is not None and staging.finding.id == "replicas_same_host"


def test_the_demo_contexts_are_prod_dr_and_staging() -> None:
    contexts = demo_contexts()
    assert [(c.name, c.color, c.production) for c in contexts] == [
        ("prod", "red", True), ("dr", "blue", False), ("staging", "green", False)]
