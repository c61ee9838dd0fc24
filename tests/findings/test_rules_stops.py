"""Why a data node stopped, from the server's own words: a GCP stop only when the master or
the victim says so, any other 2303 as "killed by node N", and each kept while the node is
down.

Texts: DbdihMain.cpp ``crashSystemAtGcpStop`` ("Detected GCP stop(%d)...sending kill to
%s"); NdbcntrMain.cpp ``Ndbcntr::execSYSTEM_ERROR`` (the error data of a 2303: "Node %d
killed this node because GCP stop was detected", "Killed by node %d as copyfrag failed,
error: %u", "System error %d,  this node was killed by node %d"); EventLogger.cpp
NDBStopForced (59: action, signum, error, sphase, extra).
"""

from __future__ import annotations

from ndbtop.findings import Severity, evaluate
from ndbtop.findings.engine import MAX_PER_RULE
from ndbtop.findings.rules_stops import killed_by
from ndbtop.mgm.events.decode import Event
from ndbtop.model.hosts import ErrorLogEntry, HostReport
from tests.bounds.conftest import GROWTH_LIMIT, growth
from tests.findings.test_rules_server_words import WALL, ids, ndb, snap, text_event, wire_event


def forced(node: int, error: int, at: float = WALL, signum: int = 0) -> Event:
    return wire_event(59, node, [("action", 1), ("signum", signum), ("error", error),
                                 ("sphase", 255), ("extra", 0)], at)


def error_log(node: int, code: int, data: str) -> HostReport:
    entry = ErrorLogEntry(node, f"/data/ndb_{node}_error.log", error_code=code,
                          error_data=data)
    return HostReport(f"db{node}", "ssh", (node,), "ok", error_logs=(entry,))


def test_a_bare_2303_is_a_kill_by_another_node_not_a_gcp_stop() -> None:
    down = (ndb(2), ndb(3, "NO_CONTACT"), ndb(4), ndb(5))
    assert ids(snap(nodes=down, events=(forced(3, 2303),))) == [
        ("node_group_one_left", "warning"), ("node_stopped", "warning")]
    (f,) = evaluate(snap(events=(forced(3, 2303),)))
    assert (f.id, f.severity, f.nodes) == ("node_stopped", Severity.WARNING, (3,))
    assert f.summary == ("node 3 was killed by another node (2303); its error log says which "
                         "and why")
    # Unread, the error data may name any kill: the advice claims no failed copy.
    assert f.advice.startswith("read node 3's error log") and "copy" not in f.advice
    # With the error log read: the killer and the error data, CopyFragRefError's words.
    host = error_log(3, 2303, "Killed by node 2 as copyfrag failed, error: 1501")
    (f,) = evaluate(snap(events=(forced(3, 2303),), hosts=(host,)))
    assert f.id == "node_stopped"
    assert f.summary == "node 3 was killed by node 2 (2303): copyfrag failed, error: 1501"
    assert any(e.what == "error data" for e in f.evidence)
    assert f.advice.startswith("a restart repeats what failed")
    # The default case ("System error %d,  this node was killed by node %d"): no copy named.
    host = error_log(3, 2303, "System error 99,  this node was killed by node 2")
    (f,) = evaluate(snap(events=(forced(3, 2303),), hosts=(host,)))
    assert f.summary == "node 3 was killed by node 2 (2303): System error 99"
    assert f.advice == "clear what the error data names before starting node 3 again"


def test_the_victims_error_data_makes_it_a_gcp_stop() -> None:
    host = error_log(3, 2303, "Node 2 killed this node because GCP stop was detected")
    (f,) = evaluate(snap(events=(forced(3, 2303),), hosts=(host,)))
    assert (f.id, f.nodes, f.severity) == ("gcp_stop", (3,), Severity.CRITICAL)


def test_the_killers_in_every_form_of_execsystem_error() -> None:
    assert killed_by("Node 2 killed this node because it replied StartFragRef error code: "
                     "1501.") == (2, "it replied StartFragRef error code: 1501")
    assert killed_by("System error 99,  this node was killed by node 4") == (4, "System error 99")
    assert killed_by("something else") == (None, "something else")


def test_a_stop_stays_while_the_node_is_down_and_clears_once_it_started() -> None:
    # LQH's watchdog: exit 7200 (ndbd_exit_codes.cpp NDBD_EXIT_LCP_SCAN_WATCHDOG_FAIL).
    stop = forced(4, 7200, WALL - 3600)
    (f,) = evaluate(snap(events=(stop,)))
    assert f.id == "node_stopped" and f.summary.startswith("node 4 stopped with error 7200: "
                                                           "LCP fragment scan watchdog")
    # NDBStartCompleted (11) from node 4 after the stop: over.
    started = wire_event(11, 4, [("version", 525315)], WALL - 60)
    assert ids(snap(events=(stop, started))) == []


def test_a_permanent_exit_is_critical_and_says_a_plain_restart_fails() -> None:
    # ndbd_exit_codes.cpp: {NDBD_EXIT_NO_MORE_REDOLOG, XCR, ...}: "Permanent error".
    (f,) = evaluate(snap(events=(forced(2, 2354),)))
    assert (f.id, f.severity) == ("node_stopped", Severity.CRITICAL)
    assert "NoOfFragmentLogFiles" in f.summary and "a plain restart stops again" in f.advice


def test_a_gcp_kill_naming_nodes_that_do_not_exist_is_no_finding_about_them() -> None:
    # Bits 9 and 200: nodes neither get status nor the configuration have.
    mask = (1 << 9) | (1 << 200)
    kill = text_event(46, 2, "Detected GCP stop(3)...sending kill to [SignalCounter: "
                             f"m_count=2 {mask:064x}]")
    (f,) = evaluate(snap(events=(kill,)))
    assert f.nodes == (2,) and "9" not in f.summary and "200" not in f.summary


def test_failure_handling_naming_node_0_or_an_unknown_node_is_no_finding() -> None:
    # QmgrMain.cpp checkStartInterface: "Failure handling of node %d has not completed ...".
    for node in (0, 9):
        e = text_event(46, 2, f"Failure handling of node {node} has not completed in 30 "
                              "seconds - state = 3")
        assert ids(snap(events=(e,))) == []


def test_one_gcp_stop_per_victim_and_a_capped_flood() -> None:
    kills = tuple(text_event(46, 2, "Detected GCP stop(3)...sending kill to [SignalCounter: "
                                    "m_count=1 0000000000000008]", WALL - 600 + i * 0.5)
                  for i in range(667))
    assert ids(snap(events=kills)) == [("gcp_stop", "critical")]


def flood(n: int) -> tuple[Event, ...]:
    """``n`` forced stops spread over 255 node ids, as a hostile stream could send them."""
    return tuple(forced(1 + i % 255, 2308, WALL - n + i) for i in range(n))


def test_the_findings_of_a_flood_are_capped_and_grow_linearly() -> None:
    from ndbtop.findings.engine import forget

    def run(events: tuple[Event, ...]) -> None:
        forget()
        evaluate(snap(nodes=(), config=None, events=events))

    found = evaluate(snap(nodes=(), config=None, events=flood(2000)))
    assert len(found) == MAX_PER_RULE
    (more,) = [f for f in found if f.key == "more"]
    assert more.summary.startswith(f"{255 - MAX_PER_RULE + 1} more node_stopped findings")
    assert growth(flood, run, 2000) < GROWTH_LIMIT
