"""The cluster log file's lines as real clusters write them, read back into time, node,
severity, text and the event each stands for; where the file is.

Test vectors, quoted from published logs:
- LISTING_17_1: *Pro MySQL NDB Cluster* (Jesper Wisborg Krogh, Mikiya Okuno), chapter 17,
  listing 17-1 ("cluster log when a data node failed due to missed heartbeats"; the
  "... snip ..." line of the book left out).
- MANUAL: the NDB Cluster manual, section "Event Reports Generated in NDB Cluster" (the
  sample "from an actual cluster log"), its management server's own lines included.
- PARTITIONED: *Pro MySQL NDB Cluster*, the StartPartitionedTimeout example ("Waiting 60
  sec for non partitioned start").
- BUG_19706: bugs.mysql.com #19706 (2006, the old ``[MgmSrvr]`` name; the report's page
  collapsed the padding to one space).
- BUG_57347: bugs.mysql.com #57347 (7.1): lines quoted without their time stamp.
- BLOG: a 2018 cluster logging under ``--log-name`` set to a path (westzq1.github.io,
  "ndbcluster: a case of brain split").
The layout: LogHandler.cpp ``getDefaultHeader`` (``"%s [%s] %s -- "``), Logger.cpp
``LoggerLevelNames`` (padded to 8), shared/reference/mgm-protocol.md §4.4.
"""

from __future__ import annotations

import datetime as dt

from ndbtop.mgm.cluster_log import log_place, parse_line, parse_lines
from ndbtop.mgm.events.decode import log_file_init

LISTING_17_1 = """\
2017-05-13 17:27:09 [MgmtSrvr] WARNING  -- Node 2: Node 1 missed heartbeat 2
2017-05-13 17:27:14 [MgmtSrvr] WARNING  -- Node 2: Node 1 missed heartbeat 3
2017-05-13 17:27:19 [MgmtSrvr] WARNING  -- Node 2: Node 1 missed heartbeat 4
2017-05-13 17:27:19 [MgmtSrvr] ALERT    -- Node 2: Node 1 declared dead due to missed heartbeat
2017-05-13 17:27:22 [MgmtSrvr] ALERT    -- Node 1: Forced node shutdown completed. Caused by \
error 2315: 'Node declared dead. See error log for details(Arbitration error). Temporary \
error, restart node'.
"""

MANUAL = """\
2021-06-10 10:01:07 [MgmtSrvr] INFO     -- Node 5: Start phase 5 completed (system restart)
2021-06-10 10:01:07 [MgmtSrvr] INFO     -- Node 5: President restarts arbitration thread [state=1]
2021-06-10 10:01:07 [MgmtSrvr] INFO     -- Node 6: Start phase 101 completed (system restart)
2021-06-10 10:01:07 [MgmtSrvr] INFO     -- Node 5: Started (mysql-9.5.0 ndb-9.5.0)
2021-06-10 10:01:08 [MgmtSrvr] INFO     -- Node 5: Started arbitrator node 50 \
[ticket=75fd00010fa8b608]
2021-06-10 10:01:36 [MgmtSrvr] INFO     -- Alloc node id 100 succeeded
2021-06-10 10:01:36 [MgmtSrvr] INFO     -- Nodeid 100 allocated for API at 127.0.0.1
2021-06-10 10:01:36 [MgmtSrvr] INFO     -- Node 5: Node 100 Connected
"""

PARTITIONED = ("2016-11-20 11:35:52 [MgmtSrvr] INFO     -- Node 1: Waiting 60 sec for non "
               "partitioned start, nodes [ all: 1 and 2 connected: 1 missing: 2 no-wait:  ]")

BUG_19706 = ("2006-05-11 04:12:44 [MgmSrvr] WARNING -- Node 17: Node 18 missed heartbeat 2")

BUG_57347 = "[MgmtSrvr] WARNING  -- Node 2: Node 3 missed heartbeat 2"

BLOG = ("2018-11-16 23:11:30 [/l01/mysql/cluster_data/6.log] ALERT    -- Node 6: Node 3 "
        "Disconnected")

UTC = dt.timezone.utc


def _at(text: str) -> float:
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


def test_the_books_heartbeat_failure_reads_as_its_events() -> None:
    lines = parse_lines(LISTING_17_1, UTC)
    assert [(ln.time, ln.node, ln.severity) for ln in lines] == [
        (_at("2017-05-13 17:27:09"), 2, "WARNING"), (_at("2017-05-13 17:27:14"), 2, "WARNING"),
        (_at("2017-05-13 17:27:19"), 2, "WARNING"), (_at("2017-05-13 17:27:19"), 2, "ALERT"),
        (_at("2017-05-13 17:27:22"), 1, "ALERT")]
    events = [ln.event for ln in lines]
    assert all(e is not None and not e.malformed for e in events)
    assert [(e.name, e.source_node, dict(e.fields)) for e in events if e is not None] == [
        ("MissedHeartbeat", 2, {"node": 1, "count": 2}),
        ("MissedHeartbeat", 2, {"node": 1, "count": 3}),
        ("MissedHeartbeat", 2, {"node": 1, "count": 4}),
        ("DeadDueToHeartbeat", 2, {"node": 1}),
        ("NDBStopForced", 1, {"action": 0, "signum": 0, "error": 2315, "sphase": 255,
                              "extra": 0})]
    # Each keeps the line's own time and text, and its category where the type is known.
    assert events[0] is not None and events[0].received_at == _at("2017-05-13 17:27:09")
    assert lines[0].text == "Node 1 missed heartbeat 2" and lines[0].category == "ERROR"
    assert lines[4].category == "STARTUP" and lines[4].origin == "file"


def test_the_manuals_sample_with_the_servers_own_lines() -> None:
    lines = parse_lines(MANUAL, UTC)
    assert len(lines) == 8
    phase, president, last, started, arbitrator, alloc, allocated, connected = lines
    assert phase.event is not None and phase.event.name == "StartPhaseCompleted"
    assert dict(phase.event.fields) == {"phase": 5, "starttype": 1}
    assert last.event is not None and last.event.word(1) == 101
    assert started.event is not None and started.event.name == "NDBStartCompleted"
    assert started.text == "Started (mysql-9.5.0 ndb-9.5.0)"
    # Arbitration texts stay text lines, read as the text-mode listener's are.
    assert president.event is not None and president.event.name == "Text"
    assert president.event.source_node == 5 and not president.event.malformed
    assert arbitrator.text.startswith("Started arbitrator node 50")
    # The management server's own lines: no node, kept whole, never taken for an event.
    for own in (alloc, allocated):
        assert own.node is None and own.severity == "INFO" and own.category is None
    assert allocated.text == "Nodeid 100 allocated for API at 127.0.0.1"
    assert connected.node == 5 and connected.text == "Node 100 Connected"


def test_a_start_waiting_for_a_partitioned_start_reads_back_as_its_report() -> None:
    line = parse_line(PARTITIONED, UTC)
    e = line.event
    assert e is not None and e.name == "StartReport" and e.text == line.text
    assert e.words[:2] == (5, 60)


def test_old_names_collapsed_spaces_and_a_path_for_a_name() -> None:
    old = parse_line(BUG_19706, UTC)
    assert (old.logger, old.node, old.severity) == ("MgmSrvr", 17, "WARNING")
    assert old.event is not None and dict(old.event.fields) == {"node": 18, "count": 2}
    blog = parse_line(BLOG, UTC)
    assert (blog.logger, blog.node, blog.severity, blog.text) == (
        "/l01/mysql/cluster_data/6.log", 6, "ALERT", "Node 3 Disconnected")


def test_a_line_of_another_layout_is_kept_whole() -> None:
    (line,) = parse_lines(BUG_57347 + "\n")
    assert (line.time, line.node, line.severity, line.text) == (None, None, None, BUG_57347)
    assert line.event is None


def test_repeated_lines_and_warnings_as_the_rules_read_them() -> None:
    line = parse_line("2024-05-01 12:00:00 [MgmtSrvr] WARNING  -- Node 5: GCP Monitor: "
                      "GCP_SAVE lag 60 seconds (no max lag) - Repeated 3 times", UTC)
    assert line.repeated == 3
    assert line.text == "GCP Monitor: GCP_SAVE lag 60 seconds (no max lag)"
    assert line.event is not None and line.event.name == "WarningEvent"
    assert line.event.text == line.text
    # MemoryUsage read back from getTextMemoryUsage's words: 90% of 128 pages is 115.
    mem = parse_line("2024-05-01 12:00:00 [MgmtSrvr] INFO     -- Node 2: Data usage "
                     "increased to 90%(116 32K pages of total 128)", UTC)
    assert mem.event is not None and mem.event.name == "MemoryUsage"
    assert dict(mem.event.fields)["pages_used"] == 116
    # A text that reads back wrongly stays text: 115 of 128 pages is 89%, not 90%.
    wrong = parse_line("2024-05-01 12:00:00 [MgmtSrvr] INFO     -- Node 2: Data usage "
                       "increased to 90%(115 32K pages of total 128)", UTC)
    assert wrong.event is not None and wrong.event.name == "Text"


def test_the_redo_log_progress_lines_read_back_with_their_figures() -> None:
    # EventLogger.cpp getTextLogFileInitStatus / getTextLogFileInitCompStatus: the block
    # reference is left out of the text ("//  refToNode(theData[1])"), but in the
    # "completed" form, which names the node itself after the line's own "Node N: ".
    status = parse_line("2024-05-01 12:00:10 [MgmtSrvr] INFO     -- Node 10: Local redo log "
                        "file initialization status: #Total files: 42, Completed: 3 "
                        "#Total MBytes: 10752, Completed: 768", UTC)
    done = parse_line("2024-05-01 12:09:10 [MgmtSrvr] INFO     -- Node 10: Local redo log "
                      "file initialization completed: #Total files: 42, Completed: 42 "
                      "#Total MBytes: 10752, Completed: 10752", UTC)
    short = parse_line("2024-05-01 12:09:10 [MgmtSrvr] INFO     -- Node 10: Node 10: Log file "
                       "initializtion completed", UTC)
    found = [log_file_init(ln.event) if ln.event is not None else None
             for ln in (status, done, short)]
    assert [(f.node_id, f.total_files, f.files_done, f.total_mbytes, f.mbytes_done,
             f.completed) for f in found if f is not None] == [
        (10, 42, 3, 10752, 768, False), (10, 42, 42, 10752, 10752, True),
        (10, 0, 0, 0, 0, True)]
    # The completed form of another node than the line's reads back as no such event.
    other = parse_line("2024-05-01 12:09:10 [MgmtSrvr] INFO     -- Node 10: Node 11: Log file "
                       "initializtion completed", UTC)
    assert other.event is not None and other.event.name == "Text"


def test_times_are_the_hosts_local_time() -> None:
    plus_one = dt.timezone(dt.timedelta(hours=1))
    line = parse_line("2017-05-13 17:27:09 [MgmtSrvr] INFO     -- Node 2: x", plus_one)
    assert line.time == _at("2017-05-13 16:27:09")
    bad = parse_line("2017-13-45 17:27:09 [MgmtSrvr] INFO     -- Node 2: x", UTC)
    assert bad.time is None and bad.text.startswith("2017-13-45")


def test_where_each_management_server_writes_its_log() -> None:
    # MgmtSrvr.cpp setClusterLog: the default FILE destination in the DataDir.
    default = log_place(1, "mgm1", "/var/lib/mysql-cluster", "")
    assert (default.path, default.max_files) == ("/var/lib/mysql-cluster/ndb_1_cluster.log", 6)
    own = log_place(49, "mgm2", "/data", "FILE:filename=cluster.log,maxsize=10000000,"
                                        "maxfiles=10;CONSOLE")
    assert (own.path, own.max_files) == ("/data/cluster.log", 10)
    absolute = log_place(49, "mgm2", "/data", "FILE:filename=/logs/c.log")
    assert absolute.path == "/logs/c.log"
    syslog = log_place(1, "mgm1", "/data", "SYSLOG:facility=syslog")
    assert syslog.path is None and syslog.why == "LogDestination is SYSLOG: no file to read"
    console = log_place(1, "mgm1", "/data", "CONSOLE")
    assert console.path is None and "CONSOLE" in (console.why or "")
    relative = log_place(1, "mgm1", ".", "")
    assert relative.path is None and "relative" in (relative.why or "")
