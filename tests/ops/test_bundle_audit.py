"""The bundle's audit log holds only the bundled cluster's actions.

Records are written as the action runner writes them (``actions/runner.py``: ``target``
is the management server that answered, ``str(MgmAddress)``)."""

from __future__ import annotations

from pathlib import Path

from ndbtop.actions.audit import AuditLog
from ndbtop.actions.target import audit_fields
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.report.audit_tail import cluster_targets, this_cluster


def test_only_records_naming_one_of_this_clusters_management_servers_are_kept(
        tmp_path: Path) -> None:
    connectstring = parse_connectstring("mgm-a:1186,mgm-b:1186")
    nodes = (NodeStatus(1, "MGM", "CONNECTED", address="10.0.0.1"),
             NodeStatus(2, "MGM", "CONNECTED", address="10.0.0.2"),
             NodeStatus(50, "API", "CONNECTED", address="10.0.0.50"))
    snap = ClusterSnapshot(0.0, 0.0, 1.0, (), nodes=nodes, mgm_address="mgm-a:1186")
    targets = cluster_targets(connectstring, snap)
    assert targets == {"mgm-a:1186", "mgm-b:1186", "10.0.0.1:1186", "10.0.0.2:1186"}

    audit = AuditLog(tmp_path / "audit.log")
    for target, command in (("mgm-a:1186", "2 RESTART"), ("other-mgm:1186", "5 STOP"),
                            ("10.0.0.2:1186", "3 RESTART"), ("mgm-a:1187", "9 STOP"),
                            ("", "4 STOP")):
        audit.write(event="sent", **audit_fields(target, 4), command=command)
    lines = [*audit.path.read_text().splitlines(), "not a record", "[1, 2]"]
    kept, left = this_cluster(lines, targets)
    assert [line.split('"command": ')[1] for line in kept] == ['"2 RESTART"}', '"3 RESTART"}']
    assert left == 5


def test_an_ipv6_management_node_is_named_as_the_runner_names_it() -> None:
    connectstring = parse_connectstring("[fd00::1]:1186")
    nodes = (NodeStatus(1, "MGM", "CONNECTED", address="fd00::2"),)
    snap = ClusterSnapshot(0.0, 0.0, 1.0, (), nodes=nodes)
    assert cluster_targets(connectstring, snap) == {"[fd00::1]:1186", "[fd00::2]:1186"}
