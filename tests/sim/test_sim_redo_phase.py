"""Which start phase creates the redo log in the simulator: phase 2 as in current
releases (redo-init.md §2), phase 4 only in the S1 replay of the 6.x field log."""

from __future__ import annotations

from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.config import simple_config
from ndbtop.sim.scenarios import SCENARIOS, ScenarioOptions, build_scenario


def _statuses(cluster: SimCluster) -> dict[int, tuple[str, int]]:
    return {n.node_id: (n.status, n.start_phase) for n in cluster.node_statuses()
            if n.type == "NDB"}


def test_current_releases_create_the_redo_log_in_phase_2_and_wait_at_3_for_the_slowest() -> None:
    config = simple_config("current", ((10, "h10", 0), (11, "h11", 0)),
                           fragment_log_file_size_mb=16, no_of_fragment_log_files=16,
                           redo_init_mb_per_sec=10.0)
    cluster = SimCluster(config, seed=3)
    cluster.launch((10, 11), initial=True)
    cluster.advance_to(20.0)
    # While the files are created, get status says "last completed phase 1".
    assert _statuses(cluster) == {10: ("STARTING", 1), 11: ("STARTING", 1)}
    assert {n.activity() for n in cluster.data_nodes.values()} == {"redo_init"}
    ends = {}
    for node in cluster.data_nodes.values():
        redo = next(s for s in node.plan if s.activity == "redo_init")
        wait = next(s for s in node.plan if s.phase == 3)
        assert redo.phase == 2
        ends[node.node_id] = (redo.seconds, wait.seconds)
    fast, slow = sorted(ends, key=lambda n: ends[n][0])
    assert ends[fast][0] < ends[slow][0]
    # The node done first waits in phase 3 exactly until the slowest is done.
    assert ends[fast][0] + ends[fast][1] == ends[slow][0] + ends[slow][1]
    cluster.advance_to(1.0 + ends[fast][0] + 0.4 + (ends[slow][0] - ends[fast][0]) / 2)
    statuses = _statuses(cluster)
    assert statuses[fast] == ("STARTING", 2) and statuses[slow] == ("STARTING", 1)
    cluster.advance_to(600.0)
    assert all(status == "STARTED" for status, _ in _statuses(cluster).values())


def test_the_s1_replay_keeps_the_field_logs_phase_4_and_says_so() -> None:
    cluster = build_scenario("initial-start", ScenarioOptions())
    cluster.advance_to(600.0)
    assert _statuses(cluster) == {10: ("STARTING", 3), 11: ("STARTING", 3)}
    assert "current releases create the redo log in phase 2" in SCENARIOS["initial-start"].summary
