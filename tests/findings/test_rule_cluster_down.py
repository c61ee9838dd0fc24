"""``cluster_down``: no data node started and no start moving on is critical, whatever
surface judges it; a start that visibly moves on is not."""

from __future__ import annotations

from ndbtop.findings import Severity, evaluate
from ndbtop.findings.coverage import unjudged
from ndbtop.model.phases import StartTimeline
from tests.findings.test_rules_server_words import WALL, ndb, snap


def test_every_data_node_down_is_critical() -> None:
    down = snap(nodes=(ndb(2, "NO_CONTACT"), ndb(3, "NOT_STARTED"), ndb(4, "NO_CONTACT"),
                       ndb(5, "NO_CONTACT")))
    found = [f for f in evaluate(down) if f.id == "cluster_down"]
    assert len(found) == 1
    (f,) = found
    assert f.severity is Severity.CRITICAL and f.nodes == (2, 3, 4, 5)
    assert "no data node is starting" in f.summary
    assert f.evidence[0].value == ("0 of 4; 2 NO_CONTACT, 3 NOT_STARTED, 4 NO_CONTACT, "
                                   "5 NO_CONTACT")
    # node_group_down stays for a group lost while others run: not raised here.
    assert not [f for f in evaluate(down) if f.id == "node_group_down"]


def test_one_started_node_is_not_a_cluster_down() -> None:
    part = snap(nodes=(ndb(2, "NO_CONTACT"), ndb(3, "STARTED"), ndb(4, "NO_CONTACT"),
                       ndb(5, "NO_CONTACT")))
    ids = {f.id for f in evaluate(part)}
    assert "cluster_down" not in ids and "node_group_down" in ids


def test_a_start_moving_on_is_not_down_but_a_stalled_one_is() -> None:
    nodes = tuple(ndb(i, "STARTING") for i in (2, 3, 4, 5))
    # Phase 3 (normally 10 s) entered 15 s ago: a start under way.
    moving = tuple(StartTimeline(i, 1, WALL - 15, True, current_phase=3,
                                 current_since=WALL - 15) for i in (2, 3, 4, 5))
    assert "cluster_down" not in {f.id for f in evaluate(snap(nodes=nodes, timelines=moving))}
    # The same phase for ten hours: past twice its normal length on every node.
    stuck = tuple(StartTimeline(i, 1, WALL - 36_000, True, current_phase=3,
                                current_since=WALL - 36_000)
                  for i in (2, 3, 4, 5))
    (f,) = [f for f in evaluate(snap(nodes=nodes, timelines=stuck)) if f.id == "cluster_down"]
    assert "stopped moving on" in f.summary


def test_a_start_seen_for_a_second_with_no_cluster_log_leaves_it_unjudged() -> None:
    # check and --once attached to start-waiting: node 10 starting for ever, its StartReports
    # neither heard nor read from the file. Nothing says the start moves on, nothing that
    # it does not: not "NDB OK" as if judged.
    nodes = (ndb(2, "STARTING"), ndb(3, "NO_CONTACT"), ndb(4, "STARTING"), ndb(5, "NO_CONTACT"))
    shot = snap(nodes=nodes)
    assert "cluster_down" not in {f.id for f in evaluate(shot)}
    (rules,) = [ids for why, ids in unjudged(shot, 1.0) if why.startswith("no cluster log")]
    assert rules[0] == "cluster_down"
    # Once a node is started, or the file was read, get status alone decides.
    started = snap(nodes=(ndb(2, "STARTED"), *nodes[1:]))
    assert all("cluster_down" not in ids for _, ids in unjudged(started, 1.0))
    assert all("cluster_down" not in ids for _, ids in unjudged(shot, None))
