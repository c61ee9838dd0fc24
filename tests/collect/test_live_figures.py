"""No figure of a data node outlives its node: a node that leaves STARTED loses its live
figures at once in every output, and the cluster's sums count only live nodes."""

from __future__ import annotations

from typing import Any

from ndbtop.demo.hub import demo_hub
from ndbtop.export.families import snapshot_families
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.render import report_json
from ndbtop.sim.clock import SimClock
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.tui.views.node_facts import cluster_transactions

PER_NODE = ("ndb_node_uptime_seconds", "ndb_transactions_total", "ndb_thread_cpu_ratio",
            "ndb_memory_used_bytes", "ndb_disk_page_buffer_hit_ratio", "ndb_log_space_used_bytes")


def figures_of(snap: ClusterSnapshot, node_id: int) -> list[str]:
    """Where a live figure of ``node_id`` shows in the snapshot, the JSON or the export."""
    found = []
    ni = snap.ndbinfo
    panels = {"activity rate": snap.activity_rates, "link rate": snap.link_rates,
              "hit ratio": snap.hit_ratios}
    if ni is not None:
        panels.update(uptime=ni.nodes, threads=ni.threads, memory=ni.memory,
                      activity=ni.activity, write_speed=ni.disk_write_speed)
    found += [name for name, rows in panels.items() if any(r.node_id == node_id for r in rows)]
    for node in report_json(snap)["nodes"]:
        if node["node_id"] == node_id:
            found += [k for k in ("uptime_s", "transactions_per_s") if node[k] is not None]
    for family in snapshot_families(snap, snap.taken_at):
        found += [s.name for s in family.samples
                  if s.name in PER_NODE and s.labels.get("node_id") == str(node_id)]
    return found


async def _watch(scenario: str, act: Any, until: Any, check: Any, what: str) -> None:
    cluster = build_scenario(scenario, ScenarioOptions())
    sim = Simulator(cluster, SimClock(speed=20.0, start_at=cluster.now))
    await sim.start(sql_port=0)
    hub = demo_hub(sim, 0.1)
    await hub.start()
    try:
        await until(lambda: all(figures_of(hub.snapshot(), n) for n in (2, 3)),
                    timeout=30.0, what="both nodes' figures")
        act(sim.cluster)
        await until(lambda: check(hub.snapshot()), timeout=30.0, what=what)
    finally:
        await hub.stop()
        await sim.close()


async def test_a_restarting_node_shows_no_figure_from_before_its_restart(until: Any) -> None:
    seen: list[list[str]] = []

    def restarting(snap: ClusterSnapshot) -> bool:
        # Every snapshot in which node 3 is not STARTED: none of its figures.
        node = snap.node(3)
        if node is None or node.status == "STARTED":
            return False
        seen.append(figures_of(snap, 3))
        return len(seen) >= 5 and node.status == "STARTING"

    await _watch("node-restart", lambda c: c.restart_nodes((3,)), until, restarting,
                 "node 3 restarting for five refreshes")
    assert seen and all(found == [] for found in seen), seen


async def test_after_initial_forced_restart_of_all_the_cluster_sums_nothing(until: Any) -> None:
    seen: list[tuple[float | None, list[str]]] = []

    def down(snap: ClusterSnapshot) -> bool:
        if any(n.status == "STARTED" for n in snap.nodes if n.type == "NDB"):
            return False
        seen.append((cluster_transactions(snap), figures_of(snap, 2) + figures_of(snap, 3)))
        return len(seen) >= 5

    await _watch("node-restart",
                 lambda c: c.restart_nodes((2, 3), initial=True, force=True), until, down,
                 "every data node down for five refreshes")
    assert all(found == (None, []) for found in seen), seen
