"""The cluster log file's lines judged by the same rules as live events, each by its own
time: a warning of the last two minutes counts as now, a death an hour ago is history."""

from __future__ import annotations

import time

from ndbtop.findings import Severity, evaluate
from ndbtop.mgm.cluster_log import parse_lines
from ndbtop.report.cluster_log import cluster_log_text
from tests.findings.test_rules_server_words import WALL, ndb, snap, text_event


def _stamp(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def _file(*lines: tuple[float, str, str]) -> tuple:
    """Lines in the file's layout (LogHandler.cpp getDefaultHeader), this host's time."""
    text = "".join(f"{_stamp(WALL - ago)} [MgmtSrvr] {sev:<8} -- {rest}\n"
                   for ago, sev, rest in lines)
    return tuple(parse_lines(text))


def test_a_gcp_lag_logged_a_minute_ago_is_a_current_warning_named_from_the_file() -> None:
    log = _file((3600, "INFO", "Node 2: GCP Monitor: Computed max GCP_SAVE lag to 204 seconds"),
                (60, "WARNING", "Node 2: GCP Monitor: GCP_SAVE lag 60 seconds (max lag: 204s)"))
    (f,) = evaluate(snap(cluster_log=log))
    assert (f.id, f.severity, f.nodes) == ("gcp_save_lag", Severity.WARNING, (2,))
    (ev,) = f.evidence
    assert ev.age_s is not None and abs(ev.age_s - 60) <= 1
    assert ev.source.endswith(f"(cluster log file, {_stamp(WALL - 60)[11:]})")


def test_an_hour_old_heartbeat_death_is_history_only() -> None:
    # The book's listing 17-1, an hour before now; node 1's group runs again.
    log = _file((3613, "WARNING", "Node 2: Node 3 missed heartbeat 2"),
                (3608, "WARNING", "Node 2: Node 3 missed heartbeat 3"),
                (3603, "WARNING", "Node 2: Node 3 missed heartbeat 4"),
                (3603, "ALERT", "Node 2: Node 3 declared dead due to missed heartbeat"),
                (3600, "ALERT", "Node 3: Forced node shutdown completed. Caused by error "
                                "2315: 'Node declared dead. See error log for details"
                                "(Arbitration error). Temporary error, restart node'."))
    assert evaluate(snap(cluster_log=log)) == ()
    # The same lines two minutes ago still count, as live events would.
    recent = _file((130, "WARNING", "Node 2: Node 3 missed heartbeat 4"),
                   (125, "ALERT", "Node 2: Node 3 declared dead due to missed heartbeat"))
    (f,) = evaluate(snap(cluster_log=recent))
    assert (f.id, f.severity, f.nodes) == ("missed_heartbeat", Severity.CRITICAL, (3,))


def test_a_line_also_received_as_an_event_is_judged_once() -> None:
    text = "GCP Monitor: GCP_SAVE lag 60 seconds (no max lag)"
    log = _file((1, "WARNING", f"Node 5: {text}"))
    live = text_event(46, 5, text, WALL - 1.4)
    found = evaluate(snap(cluster_log=log, events=(live,)))
    assert [(f.id, f.nodes) for f in found] == [("gcp_save_lag", (5,))]
    # Judged from the live event: its evidence names no file.
    assert "cluster log file" not in found[0].evidence[0].source


def test_a_node_stopped_long_ago_and_still_down_is_a_current_finding() -> None:
    # The gcp-stall scenario ten minutes after the kill (DbdihMain.cpp crashSystemAtGcpStop;
    # Ndbcntr::execSYSTEM_ERROR exits 2303): a live view that saw it keeps gcp_stop while
    # node 3 is down, and so does a one-shot reading the file.
    log = _file((600, "WARNING", "Node 2: Detected GCP stop(3)...sending kill to "
                                 "[SignalCounter: m_count=1 0000000000000008]"),
                (600, "ALERT", "Node 3: Forced node shutdown completed. Caused by error 2303: "
                               "'System error, node killed during node restart by other node"
                               "(Internal error, programming error or missing error message, "
                               "please report a bug). Temporary error, restart node'."),
                (3000, "ALERT", "Node 5: Forced node shutdown completed. Caused by error "
                                "2315: 'Node declared dead. See error log for details"
                                "(Arbitration error). Temporary error, restart node'."))
    down = (ndb(2), ndb(3, "NO_CONTACT"), ndb(4), ndb(5, "NO_CONTACT"))
    found = {(f.id, f.severity, f.nodes) for f in evaluate(snap(cluster_log=log, nodes=down))
             if f.id in ("gcp_stop", "node_stopped")}
    assert found == {("gcp_stop", Severity.CRITICAL, (3,)),
                     ("node_stopped", Severity.WARNING, (5,))}
    # Started again (its Started line rotated away or not): history only.
    assert evaluate(snap(cluster_log=log)) == ()
    # Node 5 started after its stop, then left without an error: its stop is over.
    again = (*log, *_file((1200, "INFO", "Node 5: Started (mysql-8.4.3 ndb-8.4.3)")))
    assert [f.id for f in evaluate(snap(cluster_log=again, nodes=down))
            if f.nodes == (5,) and f.id == "node_stopped"] == []


def test_once_shows_the_files_warnings_as_history() -> None:
    log = _file((3600, "INFO", "Node 2: GCP Monitor: Computed max GCP_SAVE lag to 204 seconds"),
                (60, "WARNING", "Node 2: GCP Monitor: GCP_SAVE lag 60 seconds (max lag: 204s)"))
    lines = cluster_log_text(snap(cluster_log=log))
    assert lines[1:] == [
        "Cluster log history (from the file, 2 lines in its last hour; 1 warning or worse):",
        f"  {_stamp(WALL - 60)[11:]} history WARNING  node 2: GCP Monitor: GCP_SAVE lag 60 "
        "seconds (max lag: 204s)"]
