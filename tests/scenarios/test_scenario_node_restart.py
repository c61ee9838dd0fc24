"""S2, a node restart phase by phase, watched through the management protocol and
``ndbinfo.restart_info``: while node 3 restarts, the master reports where the restart is;
afterwards it holds the per-phase seconds of the field report (7.6.6: 6 min 49 s in
total; 7.5.10: 19 min 11 s)."""

from __future__ import annotations

from typing import Any

from scenario_watch import CLUSTER_LOG_LEVELS, ScenarioWatch, Watch, assert_reference_texts, only

from ndbtop.compat import zip_strict
from ndbtop.mgm.events.decode import start_phase

COLUMNS = (
    "node_restart_status",
    "node_restart_status_int",
    "secs_to_allocate_node_id",
    "secs_to_copy_meta_data",
    "secs_restore_fragments",
    "secs_undo_disk_data",
    "secs_exec_redo_log",
    "secs_index_rebuild",
    "secs_to_synchronize_starting_node",
    "secs_wait_lcp_for_restart",
    "secs_wait_subscription_handover",
    "total_restart_secs",
)
RESTART_INFO = f"SELECT {', '.join(COLUMNS)} FROM ndbinfo.restart_info WHERE node_id = 3"
STATUS_ORDER = (13, 14, *range(13))
"""node_restart_status_int in the order a restart passes them (failure handling first)."""


async def restart_of_node_3(w: ScenarioWatch, step: float, sample_every: float) -> list[int]:
    """Step until node 3 has restarted; returns the restart statuses sampled meanwhile."""
    statuses: list[int] = []
    next_sample = 0.0
    while w.arrived(11, 3) is None:
        assert w.now < 2000, "node 3 never restarted"
        await w.step(step)
        status = await w.status()
        assert status[2].status == "STARTED"
        if w.now >= next_sample:
            next_sample = w.now + sample_every
            rows = await w.query(
                "SELECT node_restart_status_int FROM ndbinfo.restart_info WHERE node_id = 3"
            )
            statuses += [r[0] for r in rows]
            if status[3].status != "STARTED":
                # Only node 2 answers a DBINFO scan meanwhile.
                assert await w.query("SELECT node_id FROM ndbinfo.nodes") == [(2,)]
    return statuses


def restart_info(row: tuple[Any, ...]) -> dict[str, Any]:
    """A restart_info row by column name."""
    return dict(zip_strict(COLUMNS, row))


def assert_walks_the_restart(statuses: list[int]) -> None:
    """Sampled statuses follow the restart's order and pass its long steps."""
    order = [STATUS_ORDER.index(s) for s in statuses]
    assert order == sorted(order), statuses
    assert {0, 8, 10} <= set(statuses) and statuses[-1] != 12


async def test_restart_info_holds_the_76_phase_figures(watch: Watch) -> None:
    # NODERESTART at 8 adds the failure reports (NODE_FAILREP, NodeFailCompleted).
    w = await watch("node-restart", levels={**CLUSTER_LOG_LEVELS, 254: 8})
    assert await w.query("SELECT node_id FROM ndbinfo.restart_info") == []
    statuses = await restart_of_node_3(w, step=2.5, sample_every=10.0)
    assert_walks_the_restart(statuses)
    assert statuses[0] in (13, 14)  # the master handles the failure first
    info = restart_info(only(await w.query(RESTART_INFO)))
    assert info["node_restart_status"] == "Restart completed"
    assert info["node_restart_status_int"] == 12
    assert info["secs_to_allocate_node_id"] == 26
    assert 1 <= info["secs_to_copy_meta_data"] <= 2
    assert info["secs_restore_fragments"] == 2 * 60 + 15
    assert info["secs_undo_disk_data"] == 0
    assert info["secs_exec_redo_log"] == 35
    assert info["secs_index_rebuild"] == 60 + 17
    assert info["secs_to_synchronize_starting_node"] <= 1
    assert info["secs_wait_lcp_for_restart"] == 2 * 60 + 8
    assert 5 <= info["secs_wait_subscription_handover"] <= 6
    assert abs(info["total_restart_secs"] - (6 * 60 + 49)) <= 5, info["total_restart_secs"]
    # The restart as the events tell it: same duration, wall to wall.
    began, ended = w.arrived(17, 3), w.arrived(11, 3)
    assert began is not None and ended is not None
    assert abs((ended - began) - info["total_restart_secs"]) <= 3.0

    status = await w.status()
    assert (status[2].status, status[3].status) == ("STARTED", "STARTED")
    assert status[3].connect_count == 2
    assert await w.query("SELECT node_id FROM ndbinfo.nodes ORDER BY node_id") == [(2,), (3,)]

    assert {s.source for s in w.seen(17)} == {3} and {s.source for s in w.seen(53)} == {3}
    assert_reference_texts(w.events)
    lines = [(s.source, s.line) for s in w.events]
    expected = [
        (3, "Node shutdown initiated"),
        (3, "Node shutdown completed, restarting."),
        (1, "Node 3 Disconnected"),
        (2, "Node 3 has failed. The Node state at failure was 0"),
        (2, "All nodes completed failure of Node 3"),
        (1, "Node 3 Connected"),
        (3, "CM_REGCONF president = 2, own Node = 3, our dynamic id = 0/3"),
        (3, "Start phase 1 completed (node restart)"),
        (2, "Node restart completed copy of dictionary information to Node 3"),
        (2, "Node restart completed copy of distribution information to Node 3"),
        (3, "Node Start completed restore of LCP id: 0"),
        (2, "Node restart starting to copy the fragments to Node 3"),
        (2, "Node restart completed copying the fragments to Node 3"),
        (3, "Start phase 101 completed (node restart)"),
    ]
    positions = [lines.index(item) for item in expected]
    assert positions == sorted(positions)
    (initiated,) = w.seen(10, 3)
    (started,) = w.seen(11, 3)
    assert initiated.line.startswith("Start initiated (") and started.line.startswith("Started (")
    assert initiated.line.endswith(" ndb-7.6.6)") and started.line.endswith(" ndb-7.6.6)")
    assert initiated.time < w.arrived(13, 3, phase=1) <= started.time  # type: ignore[operator]
    phases = [p.phase for s in w.seen(13, 3) if (p := start_phase(s.event))]
    assert phases == [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 100, 101]


async def test_the_same_restart_on_7510_takes_19_minutes(watch: Watch) -> None:
    w = await watch("node-restart", ndb_version="7.5.10")
    statuses = await restart_of_node_3(w, step=10.0, sample_every=60.0)
    assert_walks_the_restart(statuses)
    info = restart_info(only(await w.query(RESTART_INFO)))
    assert info["node_restart_status"] == "Restart completed"
    assert info["secs_to_allocate_node_id"] == 26
    assert info["secs_restore_fragments"] == 60 + 51
    assert info["secs_exec_redo_log"] == 51
    assert info["secs_index_rebuild"] == 2 * 60 + 4
    assert info["secs_wait_lcp_for_restart"] == 13 * 60 + 48
    assert abs(info["total_restart_secs"] - (19 * 60 + 11)) <= 5, info["total_restart_secs"]
    (started,) = w.seen(11, 3)
    assert started.line.startswith("Started (") and started.line.endswith(" ndb-7.5.10)")
    assert_reference_texts(w.events)
