"""Each rule raised from the server's exact words or rows, and held quiet when they are
healthy.

Events are built as the management server sends them (Services.cpp ``logevent2str``:
``type=``, ``time=``, ``source_nodeid=``, then the body rows; a text event's words as one
``data=`` line of ``%u `` words) and decoded by ndbtop's own decoder. The texts are the
format strings quoted in shared/reference/diagnostics.md with their source functions.
"""

from __future__ import annotations

from ndbtop.findings import FindingsKeeper, Severity, evaluate
from ndbtop.mgm.event_stream import EventStreamParser
from ndbtop.mgm.events.decode import Event, decode_event
from ndbtop.mgm.events.text import pack_string
from ndbtop.mgm.status import NodeStatus
from ndbtop.mgm.wire import RawEvent
from ndbtop.model.config import ClusterConfig, DataNodeConfig
from ndbtop.model.derive import io_lag_rates, link_rates, redo_fill_rates
from ndbtop.model.findings import Finding
from ndbtop.model.ndbinfo import LogSpace, MemoryUse, NdbinfoSample, NodeLinks, ThreadCpu
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.ndbinfo.rows import parse_disk_write_speed, parse_links

WALL = 1_700_000_000.0
NOW = 5000.0


def wire_event(event_type: int, source: int, body: list[tuple[str, object]],
               at: float = WALL) -> Event:
    """One event block exactly as logevent2str writes it, parsed and decoded."""
    lines = ["log event reply", f"type={event_type}", "time=0", f"source_nodeid={source}",
             *(f"{k}={v}" for k, v in body), ""]
    parser = EventStreamParser()
    raw = None
    for line in lines:
        raw = parser.feed(line) or raw
    assert isinstance(raw, RawEvent)
    return decode_event(raw, at)


def text_event(event_type: int, source: int, text: str, at: float = WALL) -> Event:
    """WarningEvent (46) or InfoEvent (49): the text packed in words, on one data= line."""
    return wire_event(event_type, source,
                      [("data", "".join(f"{w} " for w in pack_string(text)))], at)


def ndb(node_id: int, status: str = "STARTED", version: int = 525315) -> NodeStatus:
    """A data node as get status gives it: 2 and 3 in group 0, 4 and 5 in group 1."""
    return NodeStatus(node_id, "NDB", status, version=version, node_group=(node_id - 2) // 2,
                      address=f"10.0.0.{node_id}")


UP = tuple(SourceStatus(n, SourceState.CONNECTED, last_ok=NOW)
           for n in ("mgm", "events", "ndbinfo"))
CONFIG = ClusterConfig(3, "c", 2, (), (DataNodeConfig(2, 0, host="db1"),
                                        DataNodeConfig(3, 0, host="db2"),
                                        DataNodeConfig(4, 1, host="db3"),
                                        DataNodeConfig(5, 1, host="db4")))


def snap(**fields: object) -> ClusterSnapshot:
    base: dict[str, object] = dict(taken_at=NOW, wall=WALL, interval=1.0, sources=UP,
                                   nodes=(ndb(2), ndb(3), ndb(4), ndb(5)), config=CONFIG)
    base.update(fields)
    return ClusterSnapshot(**base)  # type: ignore[arg-type]


def ids(s: ClusterSnapshot) -> list[tuple[str, str]]:
    return [(f.id, f.severity.value) for f in evaluate(s)]


def test_a_healthy_cluster_has_no_finding() -> None:
    assert ids(snap()) == []


def test_gcp_save_lag_from_the_real_log_line_and_the_computed_limit() -> None:
    # "WARNING -- Node 5: GCP Monitor: GCP_SAVE lag 60 seconds (no max lag)" (diagnostics.md
    # §a, a real log); DbdihMain.cpp checkGcpStopLab.
    warned = text_event(46, 5, "GCP Monitor: GCP_SAVE lag 60 seconds (no max lag)")
    (f,) = evaluate(snap(events=(warned,)))
    assert (f.id, f.severity, f.nodes) == ("gcp_save_lag", Severity.WARNING, (5,))
    assert "no kill" in f.summary and f.threshold.by == "server"
    assert f.threshold.value == "none"
    # The warning's own "(max lag: %us)": 60 s of a 120 s limit is half the way to the kill.
    near = text_event(46, 5, "GCP Monitor: GCP_SAVE lag 60 seconds (max lag: 120s)")
    (f,) = evaluate(snap(events=(near,)))
    assert f.severity is Severity.CRITICAL and "kills the stalled node at 120 s" in f.summary
    commit = text_event(46, 5, "GCP Monitor: GCP_COMMIT lag 10 seconds (max lag: 36)")
    assert ids(snap(events=(commit,))) == [("gcp_commit_lag", "warning")]
    # An old warning no longer counts: the lag went away.
    assert ids(snap(events=(text_event(46, 5, warned.text, WALL - 3600),))) == []


def test_no_max_lag_means_no_kill_whatever_limit_was_logged_before() -> None:
    # DbdihMain.cpp checkGcpStopLab prints "(no max lag)" when the current limit is 0
    # (TimeBetweenEpochsTimeout = 0): an older "Computed max GCP_SAVE lag" is stale.
    computed = text_event(49, 5, "GCP Monitor: Computed max GCP_SAVE lag to 120 seconds",
                          WALL - 600)
    warned = text_event(46, 5, "GCP Monitor: GCP_SAVE lag 60 seconds (no max lag)")
    (f,) = evaluate(snap(events=(computed, warned)))
    assert f.severity is Severity.WARNING and f.threshold.value == "none"
    assert "no kill" in f.summary
    # A warning without the parenthesis takes the last logged limit, and the master's
    # "unlimited lags allowed" (the 2018 line for both lags, the 8.x line per lag) ends it.
    bare = text_event(46, 5, "GCP Monitor: GCP_SAVE lag 60 seconds")
    (f,) = evaluate(snap(events=(computed, bare)))
    assert f.severity is Severity.CRITICAL and f.threshold.value == "120 s"
    for line in ("GCP Monitor: unlimited lags allowed",
                 "GCP Monitor: GCP_SAVE: unlimited lags allowed"):
        unlimited = text_event(49, 5, line, WALL - 300)
        (f,) = evaluate(snap(events=(computed, unlimited, bare)))
        assert f.severity is Severity.WARNING and f.threshold.value == "none", line
    # Neither in the warning nor logged: the limit is not known, which is not "no kill".
    (f,) = evaluate(snap(events=(bare,)))
    assert f.severity is Severity.WARNING and f.threshold.value == "unknown"
    assert "no kill" not in f.summary and "the kill limit is not known" in f.summary


def test_gcp_save_names_the_parameter_that_sets_its_limit() -> None:
    # DbdihMain.cpp setGCPStopTimeouts: save max = TimeBetweenGlobalCheckpoints +
    # MAX(TimeBetweenGlobalCheckpointsTimeout, TimeBetweenEpochsTimeout) + allowance, and 0
    # (no kill) while TimeBetweenEpochsTimeout = 0: TimeBetweenGlobalCheckpointsTimeout alone
    # moves nothing.
    near = text_event(46, 5, "GCP Monitor: GCP_SAVE lag 120 seconds (max lag: 204s)")
    (f,) = evaluate(snap(events=(near,)))
    assert f.threshold.parameter == "TimeBetweenEpochsTimeout"
    assert ("max(TimeBetweenGlobalCheckpointsTimeout, TimeBetweenEpochsTimeout)"
            in (f.threshold.reference or ""))
    assert "only with TimeBetweenEpochsTimeout > 0" in (f.threshold.reference or "")
    assert "TimeBetweenGlobalCheckpointsTimeout alone does not move" in f.advice


def test_a_lag_ends_with_the_kill_or_a_completed_checkpoint() -> None:
    warned = text_event(46, 2, "GCP Monitor: GCP_SAVE lag 180 seconds (max lag: 204s)",
                        WALL - 30)
    kill = text_event(46, 2, "Detected GCP stop(3)...sending kill to [SignalCounter: "
                             "m_count=1 0000000000000008]", WALL - 5)
    assert ids(snap(events=(warned, kill))) == [("gcp_stop", "critical")]
    # GlobalCheckpointCompleted (5, gci): the durable GCI moved, the save lag is over.
    done = wire_event(5, 2, [("gci", 4100)], WALL - 10)
    assert ids(snap(events=(warned, done))) == []


def test_gcp_stop_from_the_master_and_from_the_victim() -> None:
    # DbdihMain.cpp crashSystemAtGcpStop: "Detected GCP stop(%d)...sending kill to %s".
    kill = text_event(46, 2, "Detected GCP stop(3)...sending kill to [SignalCounter: "
                             "m_count=1 0000000000000008]")
    assert ids(snap(events=(kill,))) == [("gcp_stop", "critical")]
    (f,) = evaluate(snap(events=(kill,)))
    # The signal counter's hex mask names the killed node: bit 3.
    assert f.nodes == (3,) and "killing node 3" in f.summary
    forced = wire_event(59, 3, [("action", 1), ("signum", 0), ("error", 2303), ("sphase", 0),
                                ("extra", 0)], WALL + 2)
    (f,) = evaluate(snap(events=(kill, forced)))
    # The master's kill and the victim's forced stop a moment later are one stop, told in
    # the past tense.
    assert (f.id, f.key) == ("gcp_stop", "3")
    assert f.summary == "node 3 was killed by the DIH master, node 2, for a GCP stop (2303)"
    # Another error is not a GCP stop.
    other = wire_event(59, 3, [("action", 1), ("signum", 0), ("error", 2315), ("sphase", 0),
                               ("extra", 0)])
    assert ids(snap(events=(other,))) == [("node_stopped", "warning")]


def test_lcp_watchdog_warning_and_kill() -> None:
    # DblqhMain.cpp checkLcpFragWatchdog, 8.x wording.
    warn = text_event(46, 4, "LCP Frag watchdog : No progress for 25 s, MaxWaitTime 60 s, "
                             "lcp state LCP_SCANNING Completion Status 0 rows, table 12, frag 3")
    (f,) = evaluate(snap(events=(warn,)))
    assert (f.id, f.severity, f.threshold.configured) == ("lcp_stalled", Severity.WARNING, "60 s")
    kill = text_event(46, 4, "Waited too long with LCP not progressing.")
    assert ids(snap(events=(warn, kill))) == [("lcp_stalled", "critical")]


def test_an_lcp_overdue_against_the_last_ones_duration() -> None:
    # LocalCheckpointStarted (6: lci, keep_gci, restore_gci) and Completed (7: lci), from
    # the master; the last LCP took 200 s, the running one started 700 s ago.
    def lcp(event_type: int, lci: int, at: float) -> Event:
        body = [("lci", lci)] + ([("keep_gci", 2990), ("restore_gci", 3050)]
                                 if event_type == 6 else [])
        return wire_event(event_type, 2, body, WALL - at)

    done = (lcp(6, 40, 1500), lcp(7, 40, 1300))
    (f,) = evaluate(snap(events=(*done, lcp(6, 41, 700))))
    assert (f.id, f.severity, f.key) == ("lcp_stalled", Severity.WARNING, "lcp:41")
    assert f.threshold.by == "ndbtop" and "the last one took 200 s" in f.summary
    # Within three times the last duration, or completed: nothing.
    assert ids(snap(events=(*done, lcp(6, 41, 500)))) == []
    assert ids(snap(events=(*done, lcp(6, 41, 700), lcp(7, 41, 10)))) == []
    # No complete LCP seen yet: nothing to compare with.
    assert ids(snap(events=(lcp(6, 41, 3000),))) == []


def test_failure_handling_not_completed() -> None:
    # QmgrMain.cpp checkStartInterface.
    e = text_event(46, 2, "Failure handling of node 3 has not completed in 30 seconds - "
                          "state = 3")
    (f,) = evaluate(snap(events=(e,)))
    assert (f.id, f.nodes) == ("node_failure_handling_slow", (3,))


def test_missed_heartbeats_then_declared_dead() -> None:
    # The 7.5.6 sequence of diagnostics.md §e: counts 2, 3, 4 an interval apart, then dead.
    beats = [wire_event(44, 2, [("node", 3), ("count", c)], WALL - 10 + 5 * i)
             for i, c in enumerate((2, 3, 4))]
    (f,) = evaluate(snap(events=tuple(beats[:2])))
    assert (f.id, f.severity, f.nodes) == ("missed_heartbeat", Severity.WARNING, (3,))
    assert "missed heartbeat 3" in f.summary
    dead = wire_event(45, 2, [("node", 3)])
    (f,) = evaluate(snap(events=(*beats, dead)))
    assert f.severity is Severity.CRITICAL and "declared dead" in f.summary


def test_memory_bands_are_the_servers() -> None:
    def memory(pct: float) -> ClusterSnapshot:
        total = 1000 * 32768
        rows = (MemoryUse(2, "Data memory", int(total * pct / 100), 0, total, 1000),)
        return snap(ndbinfo=NdbinfoSample(NOW, None, memory=rows))

    assert ids(memory(79.9)) == []
    assert ids(memory(80)) == [("memory_high", "info")]
    assert ids(memory(92)) == [("memory_high", "warning")]
    (f,) = evaluate(memory(99.5))
    assert f.severity is Severity.CRITICAL and f.threshold.value == "99%; 827 from 95%"
    assert f.threshold.parameter == "DataMemory" and "827" in f.advice


def test_a_redo_part_filling_while_the_others_sit_low() -> None:
    total = 256 << 20
    parts = tuple(LogSpace(2, "REDO", 0, p, total, used)
                  for p, used in ((0, 250 << 20), (1, 20 << 20), (2, 22 << 20), (3, 21 << 20)))
    (f,) = evaluate(snap(ndbinfo=NdbinfoSample(NOW, None, log_spaces=parts)))
    assert (f.id, f.severity, f.parts) == ("redo_part_filling", Severity.CRITICAL, (0,))
    assert "410" in f.summary and "other parts are at 8-9%" in f.summary
    # The others at one figure: said once.
    even = parts[:2] + tuple(LogSpace(2, "REDO", 0, p, total, 20 << 20) for p in (2, 3))
    (f,) = evaluate(snap(ndbinfo=NdbinfoSample(NOW, None, log_spaces=even)))
    assert f.summary.endswith("; the node's other parts are at 8%")


def test_a_redo_part_past_its_tail_limit_refuses_writes_now() -> None:
    # DblqhMain.cpp c_free_mb_tail_problem_limit = 4 ("If less than 4Mb set TAIL_PROBLEM"):
    # under it writes fail with 410 (ZTAIL_PROBLEM_IN_LOG_ERROR) already, not "in 0 s".
    total = 1024 << 20
    full = LogSpace(2, "REDO", 0, 0, total, total - (2 << 20))
    (f,) = evaluate(snap(ndbinfo=NdbinfoSample(NOW, None, log_spaces=(full,))))
    assert f.severity is Severity.CRITICAL
    assert f.summary == ("node 2 redo log part 0 100% used, 2 MB free: writes fail with 410 "
                         "now (under 4 MB free)")


def test_a_redo_part_filling_fast_before_it_is_full() -> None:
    # logspaces (node_id, log_type, log_id, log_part, total, used; bytes), read twice 10 s
    # apart: part 1 at 50% gains 30 MB in 10 s, 4 MB free in about 41 s.
    total = 256 << 20
    quiet = LogSpace(2, "REDO", 0, 0, total, 20 << 20)
    before = (quiet, LogSpace(2, "REDO", 0, 1, total, 98 << 20))
    after = (quiet, LogSpace(2, "REDO", 0, 1, total, 128 << 20))

    def judged(a: tuple[LogSpace, ...], b: tuple[LogSpace, ...], gap: float) -> ClusterSnapshot:
        return snap(ndbinfo=NdbinfoSample(NOW, None, log_spaces=b),
                    redo_fill_rates=redo_fill_rates(a, b, gap))

    (f,) = evaluate(judged(before, after, 10.0))
    assert (f.id, f.severity, f.parts) == ("redo_part_filling", Severity.CRITICAL, (1,))
    assert "in 41 s at 3.0 MB/s" in f.summary and f.threshold.by == "ndbtop"
    # The same gain over 200 s: 410 in about 14 min, past the 10 min warning.
    assert ids(judged(before, after, 200.0)) == []
    # Over 60 s: 410 in about 4 min.
    assert ids(judged(before, after, 60.0)) == [("redo_part_filling", "warning")]
    # A checkpoint moved the tail (used went down): no rate, no finding.
    assert ids(judged(after, before, 10.0)) == []


def test_one_hot_thread_among_idle_peers() -> None:
    threads = (ThreadCpu(2, 2, "ldm", os_user_pct=97.0), ThreadCpu(2, 3, "ldm", os_user_pct=8.0),
               ThreadCpu(2, 4, "ldm", os_user_pct=9.0))
    (f,) = evaluate(snap(ndbinfo=NdbinfoSample(NOW, None, threads=threads)))
    assert (f.id, f.key) == ("thread_saturated", "2:2")
    # Every LDM busy is load, not one hot partition.
    busy = tuple(t._replace(os_user_pct=95.0) for t in threads)
    assert ids(snap(ndbinfo=NdbinfoSample(NOW, None, threads=busy))) == []


def test_node_groups_from_the_configuration() -> None:
    one_left = snap(nodes=(ndb(2), ndb(3, "NO_CONTACT", 0), ndb(4), ndb(5)))
    (f,) = evaluate(one_left)
    assert (f.id, f.nodes, f.key) == ("node_group_one_left", (2,), "0")
    down = snap(nodes=(ndb(2, "NO_CONTACT", 0), ndb(3, "NO_CONTACT", 0), ndb(4), ndb(5)))
    assert ids(down) == [("node_group_down", "critical")]
    # Nothing started at all: a start in progress, not a group lost from a running cluster.
    starting = snap(nodes=tuple(ndb(i, "STARTING") for i in (2, 3, 4, 5)))
    assert ids(starting) == []


def test_replicas_on_one_host_versions_and_single_user() -> None:
    same = ClusterConfig(3, "c", 2, (), (DataNodeConfig(2, 0, host="db1"),
                                          DataNodeConfig(3, 0, host="db1")))
    assert ids(snap(config=same, nodes=(ndb(2), ndb(3)))) == [("replicas_same_host", "warning")]
    mixed = snap(nodes=(ndb(2), ndb(3, version=525316), ndb(4), ndb(5)))
    assert ids(mixed) == [("mixed_versions", "info")]
    single = snap(nodes=tuple(ndb(i, "SINGLE USER MODE") for i in (2, 3, 4, 5)))
    assert ids(single) == [("single_user_mode", "info")]


def test_ignore_leaves_a_rule_out() -> None:
    single = snap(nodes=tuple(ndb(i, "SINGLE USER MODE") for i in (2, 3, 4, 5)))
    assert evaluate(single, ignore=("single_user_mode",)) == ()


def test_a_finding_does_not_flicker_and_keeps_its_since() -> None:
    keeper = FindingsKeeper(clear_after=30.0)
    full = MemoryUse(2, "Data memory", 92 * 32768, 0, 100 * 32768, 100)
    high = snap(ndbinfo=NdbinfoSample(NOW, None, memory=(full,)))
    (f,) = keeper.update(evaluate(high), WALL)
    assert f.since == WALL
    (f,) = keeper.update(evaluate(high), WALL + 10)
    assert f.since == WALL
    # A figure near a threshold comes and goes: it stays until false for 30 s.
    assert len(keeper.update((), WALL + 20)) == 1
    assert keeper.update((), WALL + 40) == ()


def test_a_finding_on_a_state_clears_when_the_state_is_over() -> None:
    # A node group complete again is no longer "down to its last node": get status says so.
    keeper = FindingsKeeper(clear_after=30.0)
    one_left = snap(nodes=(ndb(2), ndb(3, "NO_CONTACT"), ndb(4), ndb(5)))
    assert [f.id for f in keeper.update(evaluate(one_left), WALL)] == ["node_group_one_left"]
    assert keeper.update(evaluate(snap()), WALL + 1) == ()


def start_report(kind: int, remaining: int, waited: int, source: int = 10) -> Event:
    """StartReport (60) as the mgmd sends it: no body rows, one data= line of the words
    (diagnostics.md §g; EventLogger.cpp getTextStartReport): type, remaining seconds, the
    bitmask size (5 words in 8.x), then the masks all, connected, no-wait, waited for and no
    node group."""
    def mask(*nodes: int) -> list[int]:
        words = [0] * 5
        for n in nodes:
            words[n // 32] |= 1 << (n % 32)
        return words

    words = [kind, remaining, 5, *mask(10, waited), *mask(10), *mask(), *mask(waited), *mask()]
    return wire_event(60, source, [("data", "".join(f"{w} " for w in words))])


def test_a_start_waiting_for_ever_for_a_node() -> None:
    starting = (ndb(10, "STARTING"), ndb(11, "NO_CONTACT", 0))
    config = ClusterConfig(3, "c", 2, (), (DataNodeConfig(10, 0), DataNodeConfig(11, 0)))
    forever = start_report(2, 0xFFFFFFFF, 11)
    assert forever.text.startswith("Waiting until nodes: 11 connects")
    # No data node started and the only start waits for ever: the cluster is down too.
    down, f = evaluate(snap(nodes=starting, config=config, events=(forever,)))
    assert (down.id, down.severity) == ("cluster_down", Severity.CRITICAL)
    assert (f.id, f.severity, f.nodes) == ("start_waiting_for_nodes", Severity.WARNING, (11,))
    assert f.threshold.by == "server" and "StartPartialTimeout" in (f.threshold.parameter or "")
    # "Waiting %u sec for nodes %s to connect": a long wait is worth knowing, a short not.
    long = start_report(3, 900, 11)
    (f,) = evaluate(snap(nodes=starting, config=config, events=(long,)))
    assert (f.severity, f.threshold.by) == (Severity.INFO, "ndbtop") and "900 s" in f.summary
    assert ids(snap(nodes=starting, config=config, events=(start_report(3, 25, 11),))) == []
    # A later report that says how the node starts ends the wait; so does the node started.
    go = start_report(0x8001, 0, 11)
    assert ids(snap(nodes=starting, config=config, events=(forever, go))) == []
    started = (ndb(10), ndb(11, "NO_CONTACT", 0))
    assert "start_waiting_for_nodes" not in {
        f.id for f in evaluate(snap(nodes=started, config=config, events=(forever,)))}
    # Words cut short decode to no finding rather than to a wrong node.
    cut = wire_event(60, 10, [("data", "2 4294967295 5 3072 0 ")])
    assert ids(snap(nodes=starting, config=config, events=(cut,))) == []


def test_redo_io_lag_rising_between_two_readings() -> None:
    # disk_write_speed_aggregate_node's columns with the per-LDM sum of
    # slowdowns_due_to_io_lag (ndbinfo.md: cumulative seconds, alert on increase).
    before = parse_disk_write_speed([(2, 1000, 52000, 1000, 50000, 900, 48000, 14),
                                     (3, 1000, 52000, 1000, 50000, 900, 48000, 0)])
    after = parse_disk_write_speed([(2, 1000, 9000, 1000, 12000, 900, 30000, 22),
                                    (3, 1000, 52000, 1000, 50000, 900, 48000, 0)])
    (f,) = evaluate(snap(io_lag_rates=io_lag_rates(before, after, 10.0)))
    assert (f.id, f.severity, f.nodes) == ("redo_io_lag", Severity.WARNING, (2,))
    assert "slowed down 8 s in the last 10 s" in f.summary and "1234" in f.summary
    assert f.threshold.by == "ndbtop"
    # Flat: an old slowdown is no finding; a node restarted (counter back) neither.
    assert ids(snap(io_lag_rates=io_lag_rates(after, after, 10.0))) == []
    restarted = parse_disk_write_speed([(2, 0, 0, 0, 0, 0, 0, 3),
                                        (3, 1000, 52000, 1000, 50000, 900, 48000, 0)])
    assert ids(snap(io_lag_rates=io_lag_rates(after, restarted, 10.0))) == []
    # NULL (the per-LDM table has no row for the node): not known, not rising.
    unknown = parse_disk_write_speed([(2, 1000, 9000, 1000, 12000, 900, 30000, None)])
    assert unknown[0].slowdowns_io_lag is None
    assert ids(snap(io_lag_rates=io_lag_rates(before, unknown, 10.0))) == []


def test_send_buffer_overload_from_the_flags_and_from_the_counts() -> None:
    # The links query's row per data node: node_id, links, connects, bytes sent and
    # received, then GROUP_CONCATs of the down, overloaded and slowed-down remote nodes and
    # of remote:overload_count:slowdown_count (ndbinfo.md transporters; NULL when none).
    def links(overloaded: str | None, slowdown: str | None, pressure: str | None,
              sent: int = 1000) -> tuple[NodeLinks, ...]:
        return parse_links([(2, 3, 3, sent, 900, None, overloaded, slowdown, pressure),
                            (3, 3, 3, 900, 1000, None, None, None, None)])

    def judged(before: tuple[NodeLinks, ...], after: tuple[NodeLinks, ...]) -> list[Finding]:
        return list(evaluate(snap(ndbinfo=NdbinfoSample(NOW, None, links=after),
                                  link_rates=link_rates(before, after, 10.0))))

    quiet = links(None, None, None)
    assert judged(quiet, quiet) == []
    # Overloaded at the reading (TCP_Transporter.cpp: past 80% of SendBufferMemory).
    (f,) = judged(quiet, links("3", "3", "3:1:4"))
    assert (f.id, f.severity, f.links) == ("send_buffer_overload", Severity.WARNING, ((2, 3),))
    # Between two readings: the flag is clear again, but overload_count grew.
    (f,) = judged(links(None, "3", "3:1:4"), links(None, "3", "3:5:40", sent=2000))
    assert (f.severity, f.links) == (Severity.WARNING, ((2, 3),))
    assert "overload_count +4, slowdown_count +36" in f.evidence[1].value
    # Only slowdowns grew: smaller scan batches, not failures.
    (f,) = judged(links(None, None, "3:5:40"), links(None, None, "3:5:52", sent=2000))
    assert (f.severity, f.links) == (Severity.INFO, ((2, 3),))
    # Counts from long ago that no longer grow are no finding.
    old = links(None, None, "3:5:52")
    assert judged(old, old) == []
