"""A fleet row is a pure function of one management-server-only snapshot."""

from __future__ import annotations

from ndbtop.fleet.rows import fleet_row
from ndbtop.mgm.status import NodeStatus
from ndbtop.mgm.version import make_version
from ndbtop.model.backups import Backup
from ndbtop.model.config import ClusterConfig, DataNodeConfig
from ndbtop.model.eta import Eta, EtaMissing
from ndbtop.model.findings import Finding, FindingSeverity, Threshold
from ndbtop.model.phases import StartTimeline
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus

NOW = 1_000.0
WALL = 1_800_000_000.0
V84 = make_version(8, 4, 3)


def node(node_id: int, status: str = "STARTED", group: int = 0, version: int = V84,
         phase: int = 0) -> NodeStatus:
    return NodeStatus(node_id, "NDB", status, version=version, node_group=group,
                      start_phase=phase, dynamic_id=node_id)


def snap(*nodes: NodeStatus, mgm: SourceStatus | None = None, **more: object
         ) -> ClusterSnapshot:
    mgm = mgm or SourceStatus("mgm", SourceState.CONNECTED, "127.0.0.1:1186", last_ok=NOW)
    return ClusterSnapshot(NOW, WALL, 2.0, (mgm,), mgm_address="127.0.0.1:1186",
                           mgm_version="8.4.3", nodes=nodes, **more)  # type: ignore[arg-type]


def finding(rule: str, severity: FindingSeverity) -> Finding:
    return Finding(rule, severity, f"{rule} holds", (), Threshold("x", "ndbtop"), "look")


def test_a_healthy_cluster_is_a_quiet_row() -> None:
    row = fleet_row("dr", snap(node(2), node(3), node(4, group=1), node(5, group=1)),
                    color="blue")
    assert row.answers and row.why is None
    assert (row.version, row.nodes_text(), row.risk_text()) == ("8.4.3", "4/4", "none")
    assert (row.finding_text(), row.activity_text(), row.age_text()) == ("none", "-", "0s")
    assert row.severity == 0


def test_a_cluster_that_does_not_answer_says_why() -> None:
    lost = SourceStatus("mgm", SourceState.RETRYING, "10.0.0.9:1186",
                        error="cannot connect to a management server: 10.0.0.9:1186: "
                        "connection refused", last_ok=None)
    row = fleet_row("staging", snap(mgm=lost))
    assert not row.answers and row.severity == 3
    assert row.why.endswith("10.0.0.9:1186: connection refused")
    assert (row.nodes_text(), row.risk_text(), row.finding_text(), row.age_text()) == (
        "-", "-", "-", "never")
    # One that answered once, and no longer: its age, stale.
    quiet = SourceStatus("mgm", SourceState.CONNECTED, "10.0.0.9:1186", last_ok=NOW - 75)
    row = fleet_row("staging", snap(node(2), mgm=quiet))
    assert not row.answers and row.why == "no answer for 1m15s" and row.stale
    assert row.age_text() == "1m15s"
    assert fleet_row("x", None, error="bad connect string").why == "bad connect string"


def test_groups_at_risk_and_the_most_severe_finding() -> None:
    found = (finding("mixed_versions", FindingSeverity.INFO),
             finding("node_group_one_left", FindingSeverity.WARNING),
             finding("replicas_same_host", FindingSeverity.WARNING))
    groups = ClusterConfig(1, "c", 2, (), tuple(
        DataNodeConfig(i, g) for i, g in ((2, 0), (3, 0), (4, 1), (5, 1))))
    # get status gives a node without contact node group 0: the configuration places it.
    row = fleet_row("prod", snap(node(2), node(3, "NO_CONTACT"), node(4, "NO_CONTACT", 0),
                                 node(5, "NO_CONTACT", 0), findings=found, config=groups))
    assert row.nodes_text() == "1/4"
    assert row.groups_at_risk == (0, 1) and row.groups_down == (1,)
    assert row.risk_text() == "ng 0, ng 1 down"
    assert row.finding_text() == "WARN node_group_one_left (+2): node_group_one_left holds"
    assert row.finding_short() == "WARN node_group_one_left (+2)"
    assert row.severity == 3


def test_a_node_restart_in_progress_with_its_estimate() -> None:
    t = StartTimeline(3, 2, WALL - 200, True, current_phase=5, current_since=WALL - 30)
    eta = Eta(190.0, 150.0, 240.0, WALL, ("start history (node 2)",))
    row = fleet_row("prod", snap(node(2), node(3, "STARTING", phase=4),
                                 timelines=(t,), start_etas=((3, eta),)))
    assert row.activity.startswith("node 3 node restart, 5 ")
    assert row.activity_short == "node 3 restart ph 5"
    assert row.activity_short_text().startswith("node 3 restart ph 5, ETA ")
    assert row.activity_short_text().endswith("(3m10s)")
    missing = fleet_row("prod", snap(node(3, "STARTING", phase=4), timelines=(t,),
                                     start_etas=((3, EtaMissing("no past start")),)))
    assert missing.activity_short_text() == "node 3 restart ph 5, no ETA"


def test_a_backup_in_progress() -> None:
    running = Backup(7, "running", started_at=WALL - 60)
    row = fleet_row("prod", snap(node(2), node(3), backups=(running,)))
    assert row.activity == "backup 7 running" and row.activity_short == "backup 7"


def test_versions_that_differ_are_all_named() -> None:
    row = fleet_row("prod", snap(node(2, version=make_version(8, 0, 40)), node(3)))
    assert row.version == "8.0.40 / 8.4.3"
