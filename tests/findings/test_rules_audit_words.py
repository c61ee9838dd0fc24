"""Rules fed the server's exact words where an audit of the source found them judged wrong:
heartbeats by the node's type, a count printed -1, the 7.x LCP watchdog texts."""

from __future__ import annotations

from ndbtop.findings import Severity, evaluate
from ndbtop.mgm.status import NodeStatus
from tests.findings.test_rules_server_words import WALL, ids, ndb, snap, text_event, wire_event

API = NodeStatus(50, "API", "CONNECTED", version=525315, address="10.0.0.50")


def test_an_api_node_missing_heartbeats_is_a_warning_about_that_client() -> None:
    # QmgrMain.cpp apiHbHandlingLab sends MissedHeartbeat (44: node, count) and
    # DeadDueToHeartbeat (45: node) for API nodes too, against HeartbeatIntervalDbApi.
    nodes = (ndb(2), ndb(3), ndb(4), ndb(5), API)
    missed = wire_event(44, 2, [("node", 50), ("count", 3)], WALL - 5)
    dead = wire_event(45, 2, [("node", 50)], WALL - 1)
    (f,) = evaluate(snap(nodes=nodes, events=(missed, dead)))
    assert (f.id, f.severity, f.nodes) == ("missed_heartbeat", Severity.WARNING, (50,))
    assert f.threshold.parameter == "HeartbeatIntervalDbApi"
    assert f.summary.startswith("API node 50 declared dead (seen by data node 2)")
    # The same words about a data node are the heartbeat ring: critical.
    dead_data = wire_event(45, 2, [("node", 3)], WALL - 1)
    (f,) = evaluate(snap(nodes=nodes, events=(dead_data,)))
    assert (f.severity, f.threshold.parameter) == (Severity.CRITICAL, "HeartbeatIntervalDbDb")


def test_a_heartbeat_count_printed_minus_one_is_not_4294967295() -> None:
    # logevent2str prints the word with %d: "count=-1".
    e = wire_event(44, 2, [("node", 3), ("count", -1)])
    (f,) = evaluate(snap(events=(e,)))
    assert "4294967295" not in f.summary and f.summary.startswith("data node 3 missed heartbeats")
    # A heartbeat about a node the cluster does not have is no finding.
    assert ids(snap(events=(wire_event(44, 2, [("node", 99), ("count", 2)]),))) == []


def test_the_7x_lcp_watchdog_texts() -> None:
    # diagnostics.md §c: the 7.4 copies of DblqhMain.cpp checkLcpFragWatchdog warn with
    # "LCP Frag watchdog : No progress on table %u, frag %u for %u s." and announce the kill
    # with "... Checkpoint of table %u fragment %u too slow (no progress for > %u s).".
    warn = text_event(46, 4, "LCP Frag watchdog : No progress on table 12, frag 3 for 25 s.")
    (f,) = evaluate(snap(events=(warn,)))
    assert (f.id, f.severity, f.nodes) == ("lcp_stalled", Severity.WARNING, (4,))
    assert "no LCP progress for 25 s" in f.summary
    kill = text_event(46, 4, "LCP Frag watchdog : Checkpoint of table 12 fragment 3 too slow "
                             "(no progress for > 60 s).")
    (f,) = evaluate(snap(events=(warn, kill)))
    assert (f.severity, f.threshold.configured) == (Severity.CRITICAL, "60 s")
    assert "7200" in f.summary


def memory(kind: str, pct: float, min_free: int | None = None) -> list[tuple[str, str]]:
    from ndbtop.model.config import ClusterConfig, DataNodeConfig
    from ndbtop.model.ndbinfo import MemoryUse, NdbinfoSample
    from tests.findings.test_rules_server_words import NOW

    total = 1000 * 32768
    rows = (MemoryUse(2, kind, int(total * pct / 100), 0, total, 1000),)
    config = None
    if min_free is not None:
        config = ClusterConfig(3, "c", 2, (), (DataNodeConfig(2, 0, min_free_pct=min_free),
                                               DataNodeConfig(3, 0)))
    return evaluate(snap(ndbinfo=NdbinfoSample(NOW, None, memory=rows), config=config))


def test_only_data_memory_is_banded_by_the_server() -> None:
    # Cmvmi.cpp ZREPORT_MEMORY_USAGE bands DBTUP pages only (diagnostics.md §f).
    (f,) = memory("Long message buffer", 92)
    assert (f.severity, f.threshold.by) == (Severity.WARNING, "ndbtop")
    assert "bands only DataMemory" in (f.threshold.reference or "")
    (f,) = memory("Data memory", 92)
    assert (f.threshold.by, f.threshold.parameter) == ("server", "DataMemory")


def test_inserts_fail_from_100_less_min_free_pct() -> None:
    # MinFreePct (630, default 5) of DataMemory is kept for restarts (init_resource_spare):
    # 827 comes from about 95% in use, before the 99% band.
    (f,) = memory("Data memory", 96)
    assert f.severity is Severity.CRITICAL
    assert f.summary == ("node 2 Data memory 96% used (band 90%): inserts can fail with 827 "
                         "now (from about 95%: MinFreePct 5% is kept for restarts)")
    (f,) = memory("Data memory", 96, min_free=2)
    assert f.severity is Severity.WARNING and "827 from about 98%" in f.summary
    (f,) = memory("Data memory", 91, min_free=10)
    assert f.severity is Severity.CRITICAL


def test_the_data_nodes_own_memory_report_is_judged_by_min_free_pct_too() -> None:
    # Without a SQL node: the node's MemoryUsage event (50: gth, page_size_bytes,
    # pages_used, pages_total, block; Cmvmi.cpp reportDMUsage, DBTUP = 249) at 96% is past
    # the 95% where 827 can come, though its band is 90.
    from ndbtop.mgm.events.text import DBTUP

    e = wire_event(50, 2, [("gth", 1), ("page_size_bytes", 32768), ("pages_used", 960),
                           ("pages_total", 1000), ("block", DBTUP)])
    (f,) = evaluate(snap(events=(e,)))
    assert (f.id, f.severity, f.nodes) == ("memory_high", Severity.CRITICAL, (2,))
    assert f.summary == ("node 2 Data memory 96% used (band 90%): inserts can fail with 827 "
                         "now (from about 95%: MinFreePct 5% is kept for restarts)")
    assert f.threshold.value == "90%; 827 from 95%"


def test_7x_index_memory_is_banded_by_the_server_with_its_own_parameter() -> None:
    # 7.x ndbinfo.memoryusage has an "Index memory" row, and 7.x Cmvmi.cpp
    # ZREPORT_MEMORY_USAGE reports its "Index memory threshold" crossings too; a full
    # IndexMemory fails inserts with 625 (ndberror.c: "Out of memory in Ndb Kernel, hash index
    # part (increase IndexMemory)"), not a LongMessageBuffer matter.
    (f,) = memory("Index memory", 92)
    assert (f.severity, f.threshold.by, f.threshold.parameter) == (
        Severity.WARNING, "server", "IndexMemory")
    assert "625" in f.advice and "LongMessageBuffer" not in f.advice


def test_a_waiting_initial_start_names_nowait_nodes_not_start_partial_timeout() -> None:
    # EventLogger.cpp getTextStartReport type 1: "Initial start, waiting for %s to connect,
    # nodes [ all: %s connected: %s no-wait: %s ]"; QmgrMain.cpp check_startup: an initial
    # start waits for every node whatever StartPartialTimeout says.
    from ndbtop.model.config import ClusterConfig, DataNodeConfig
    from tests.findings.test_rules_server_words import start_report

    starting = (ndb(10, "STARTING"), ndb(11, "NO_CONTACT", 0))
    config = ClusterConfig(3, "c", 2, (), (DataNodeConfig(10, 0), DataNodeConfig(11, 0)))
    initial = start_report(1, 0xFFFFFFFF, 11)
    assert initial.text.startswith("Initial start, waiting for 11 to connect")
    found = evaluate(snap(nodes=starting, config=config, events=(initial,)))
    # A start that waits for ever with no data node started is also cluster_down.
    assert sorted(x.id for x in found) == ["cluster_down", "start_waiting_for_nodes"]
    (f,) = (x for x in found if x.id == "start_waiting_for_nodes")
    assert (f.severity, f.nodes) == (Severity.WARNING, (11,))
    assert f.threshold.parameter == "--nowait-nodes / StartNoNodegroupTimeout"
    assert "StartPartialTimeout" not in f.advice and "--nowait-nodes=11" in f.advice
    assert f.summary == "node 10's initial start waits for node 11 with no timeout"


def test_a_link_count_older_than_its_window_is_not_judged() -> None:
    # The links are read in rotation: a growth counted over 10 s between two readings says
    # nothing once that reading is 20 s old (the live view kept "+4 in 10 s" meanwhile).
    from ndbtop.model.derive import link_rates
    from ndbtop.model.ndbinfo import NdbinfoSample
    from ndbtop.ndbinfo.rows import parse_links
    from tests.findings.test_rules_server_words import NOW

    def links(pressure: str, sent: int) -> tuple:
        return tuple(parse_links([(2, 3, 3, sent, 900, None, None, None, pressure)]))

    before, after = links("3:1:4", 1000), links("3:5:40", 2000)
    rates = link_rates(before, after, 10.0)

    def judged(read_at: float) -> list[tuple[str, str]]:
        sample = NdbinfoSample(NOW, None, links=after, read_at=(("links", read_at),))
        return ids(snap(ndbinfo=sample, link_rates=rates))

    assert judged(NOW - 2) == [("send_buffer_overload", "warning")]
    (f,) = evaluate(snap(ndbinfo=NdbinfoSample(NOW, None, links=after,
                                                read_at=(("links", NOW - 2),)),
                         link_rates=rates))
    assert f.evidence[0].age_s is not None and 2 <= f.evidence[0].age_s < 3
    assert judged(NOW - 20) == []


def test_a_failed_arbitration_is_told_as_what_happened() -> None:
    # QmgrMain.cpp: ArbitResult (30: code, arbit_node, ticket) PARTITIONING then LOSE_NORUN
    # (ArbitSignalData.hpp: "no arbitrator was running"): every data node has shut down
    # (2305). The advice is for the next start, not "a partition now shuts the cluster down".
    from ndbtop.model.arbitration import ArbitCode

    def result(code: int, at: float) -> object:
        return wire_event(30, 2, [("code", int(code)), ("arbit_node", 0),
                                  ("ticket_0", 0x4A2B0001), ("ticket_1", 7200000)], at)

    events = (result(ArbitCode.PARTITIONING, WALL - 13), result(ArbitCode.LOSE_NORUN, WALL - 12))
    (f,) = (x for x in evaluate(snap(events=events)) if x.id == "no_arbitrator")
    assert (f.severity, f.threshold.by) == (Severity.CRITICAL, "server")
    assert f.summary.startswith("arbitration failed") and "data nodes shut down" in f.summary
    assert f.advice.startswith("the data nodes shut down for want of an arbitrator")
    assert "now shuts the cluster down" not in f.advice
