"""Cluster-log texts of every event type, checked against EventLogger.cpp's format strings."""

from __future__ import annotations

from datetime import datetime

import pytest

from ndbtop.mgm.events import CATALOGUE, Severity, cluster_log_line, event_text
from ndbtop.mgm.events.text import pack_string, unknown_text, unpack_string

V843 = (8 << 16) | (4 << 8) | 3
REF = (0xF4 << 16) | 1  # block reference of BACKUP on node 1
LQH_REF_NODE3 = (0xF7 << 16) | 3

ALL_NODES_1_TO_4 = 0b11110

TEXT_CASES: list[tuple[int, list[int], str]] = [
    (0, [3], "Node 3 Connected"),
    (1, [3], "Node 3 Disconnected"),
    (2, [4], "Communication to Node 4 closed"),
    (3, [4], "Communication to Node 4 opened"),
    (51, [50, V843, V843], "Node 50: API mysql-8.4.3 ndb-8.4.3"),
    (51, [50, (8 << 16) | 34, 0], "Node 50: API ndb-8.0.34"),
    (4, [1234], "Global checkpoint 1234 started"),
    (5, [1234], "Global checkpoint 1234 completed"),
    (6, [10, 20, 30], "Local checkpoint 10 started. Keep GCI = 20 oldest restorable GCI = 30"),
    (7, [10], "Local checkpoint 10 completed"),
    (8, [0], "Local Checkpoint stopped in CALCULATED_KEEP_GCI"),
    (8, [1], ""),
    (
        9,
        [2, 11, 3, 0xFFFFFF00, 77],
        "Table ID = 11, fragment ID = 3 has completed LCP on Node 2 "
        "maxGciStarted: -256 maxGciCompleted: 77",
    ),
    (38, [5, 6], "ACC Blocked 5 and TUP Blocked 6 times last second"),
    (
        73,
        [0, 1, 2, 3, 4, 0, 1024, 0, 256, 4, 16],
        "Logpart: 0 head=[ file: 1 mbyte: 2 ] tail=[ file: 3 mbyte: 4 ] total mb: 1024 "
        "free mb: 256 free%: 25",
    ),
    (10, [V843, V843], "Start initiated (mysql-8.4.3 ndb-8.4.3)"),
    (11, [V843, 0], "Started (ndb-8.4.3)"),
    (12, [], "STTORRY received after restart finished"),
    (13, [4, 0], "Start phase 4 completed (initial start)"),
    (14, [3, 2, (1 << 16) | 5], "CM_REGCONF president = 2, own Node = 3, our dynamic id = 1/5"),
    (15, [3, 2, 0], "CM_REGREF from Node 2 to our Node 3. Cause = Busy"),
    (15, [3, 2, 2], "CM_REGREF from Node 2 to our Node 3. Cause = Election with wait = false"),
    (15, [3, 2, 7], "CM_REGREF from Node 2 to our Node 3. Cause = No such cause"),
    (
        16,
        [3, 2, 4, 7],
        "We are Node 3 with dynamic ID 7, our left neighbour is Node 2, our right is Node 4",
    ),
    (17, [1], "Cluster shutdown initiated"),
    (17, [0], "Node shutdown initiated"),
    (53, [0, 0], "Node shutdown completed."),
    (
        53,
        [6, 15],
        "Node shutdown completed, restarting, no start, initial. Initiated by signal 15.",
    ),
    (
        59,
        [0, 0, 2341, 255, 0],
        "Forced node shutdown completed. Caused by error 2341: 'Internal program error "
        "(failed ndbrequire)(Internal error, programming error or missing error message, "
        "please report a bug). Temporary error, restart node'.",
    ),
    (
        59,
        [4, 9, 0, 4, 0],
        "Forced node shutdown completed, restarting, initial. Occurred during startphase 4. "
        "Initiated by signal 9.",
    ),
    (
        59,
        [1, 0, 2305, 255, 17],
        "Forced node shutdown completed. Caused by error 2305: 'Node lost connection to other "
        "nodes and can not form a unpartitioned cluster, please investigate if there are "
        "error(s) on other node(s)(Arbitration error). Temporary error, restart node'. "
        "(extra info 17)",
    ),
    (
        59,
        [0, 0, 9999, 255, 0],
        "Forced node shutdown completed. Caused by error 9999: 'No message slogan found "
        "(please report a bug if you get this error code)(Unknown). Unknown'.",
    ),
    (18, [], "Node shutdown aborted"),
    (86, [42], "Node Start completed restore of LCP id: 42"),
    (
        19,
        [2, 100, 200, 199],
        "Node: 2 StartLog: [GCI Keep: 100 LastCompleted: 200 NewestRestorable: 199]",
    ),
    (20, [1, 2, 3, 4], "Log part 1, start MB 2, stop MB 3, last GCI, log exec 4"),
    (21, [249, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9], " UNDO DBTUP 7 [1 2 3 4 5 6 7 8 9]"),
    (21, [248, 7], " UNDO DBACC 7 [0 0 0 0 0 0 0 0 0]"),
    (
        60,
        [3, 30, 1, ALL_NODES_1_TO_4, 0b110, 0, 0b11000, 0],
        "Waiting 30 sec for nodes 3 and 4 to connect, nodes [ all: 1, 2, 3 and 4 "
        "connected: 1 and 2 no-wait:  ]",
    ),
    (
        60,
        [1, 0, 1, 0b110, 0b10, 0, 0b100, 0],
        "Initial start, waiting for 2 to connect,  nodes [ all: 1 and 2 connected: 1 no-wait:  ]",
    ),
    (
        60,
        [6, 10, 1, 0b110, 0b10, 0, 0b100],
        "Initial start, waiting 10 for <unknown> to connect, nodes [ all: 1 and 2 connected: 1 "
        "missing: 2 no-wait:  no-nodegroup: <unknown> ]",
    ),
    (60, [0x8001, 0, 1, ALL_NODES_1_TO_4, ALL_NODES_1_TO_4], "Start with all nodes 1, 2, 3 and 4"),
    (
        60,
        [0x8003, 0, 1, 0b110, 0b10, 0, 0b100, 0],
        "Start potentially partitioned with nodes 1  [ missing: 2 no-wait:  ]",
    ),
    (60, [9, 0, 1, 1, 2, 4, 8, 16], "Unknown startreport: 0x9 [ 0 1 2 3 ]"),
    (
        71,
        [LQH_REF_NODE3, 16, 4, 1024, 256],
        "Local redo log file initialization status: #Total files: 16, Completed: 4 "
        "#Total MBytes: 1024, Completed: 256",
    ),
    (71, [LQH_REF_NODE3, 0, 0, 0, 0], "Node 3: Log file initializtion completed"),
    (
        72,
        [LQH_REF_NODE3, 16, 16, 1024, 1024],
        "Local redo log file initialization completed: #Total files: 16, Completed: 16 "
        "#Total MBytes: 1024, Completed: 1024",
    ),
    (77, [5, 1], "Start reading LCP for table 5 fragment: 1"),
    (78, [5, 1, 1, 2], "Restored LCP for table 5 fragment: 1 rows: 4294967298"),
    (
        79,
        [0, 1, 100, 100, 200, 0, 4, 1, 8, 3, 12],
        "Log part: 0 phase: 1 run redo from  gci: 100 (file: 0 mb: 4) to  gci: 200 "
        "(file: 3 mb: 12)",
    ),
    (
        79,
        [0, 1, 100, 200, 200, 0, 4, 1, 8, 3, 12],
        "Log part: 0 phase: 1 found stop  gci: 200 (file: 1 mb: 8)",
    ),
    (
        79,
        [0, 1, 100, 150, 200, 0, 4, 1, 8, 3, 12],
        "Log part: 0 phase: 1 at  gci: 150 (file: 1 mb: 8)",
    ),
    (80, [1, 7], "instace: 1 rebuild index: 7"),
    (22, [4], "Node restart completed copy of dictionary information to Node 4"),
    (22, [], "Node restart completed copy of dictionary information"),
    (22, [4, 5], "Node restart completed copy of dictionary information"),
    (23, [4], "Node restart completed copy of distribution information to Node 4"),
    (23, [], "Node restart completed copy of distribution information"),
    (24, [4], "Node restart starting to copy the fragments to Node 4"),
    (
        25,
        [4, 11, 2, 5, 0, 1000, 1],
        "Table ID = 11, fragment ID = 2 have been synced to Node 4 rows: 5 bytes: 4294968296 ",
    ),
    (26, [4], "Node restart completed copying the fragments to Node 4"),
    (27, [0, 3, 2], "Node 2 completed failure of Node 3"),
    (27, [0, 3, 0], "All nodes completed failure of Node 3"),
    (27, [245, 3, 0], "Node failure of 3 DBTC completed"),
    (27, [0x10B, 3, 0], "Node failure of 3 DBQLQH completed"),
    (27, [999, 3], "Node failure of 3  completed"),
    (28, [3, 5], "Node 3 has failed. The Node state at failure was 5"),
    (
        29,
        [(2 << 16) | 22, 50, 0x12345678, 0x9ABCDEF0],
        "Prepare arbitrator node 50 [ticket=123456789abcdef0]",
    ),
    (29, [(7 << 16) | 11], "President restarts arbitration thread [state=7]"),
    (29, [(3 << 16) | 32, 50], "Lost arbitrator node 50 - process failure [state=3]"),
    (29, [93, 50], "Lost arbitrator node 50 - invalid state [state=0]"),
    (29, [99, 50], "Lost arbitrator node 50 - unknown error [code=99] [state=0]"),
    (30, [43], "Arbitration check won - node group majority"),
    (30, [46, 50], "Arbitration won - positive reply from node 50"),
    (30, [47, 50], "Arbitration lost - negative reply from node 50"),
    (
        30,
        [50, 0, 0, 0, 6],
        "Continuing after wait for external arbitration, nodes: " + "0" * 63 + "6",
    ),
    (30, [(1 << 16) | 95], "Arbitration failure - unknown error [code=95] [state=1]"),
    (30, [94], "Arbitration failure - timeout [state=0]"),
    (31, [], "GCP Take over started"),
    (32, [], "GCP Take over completed"),
    (33, [], "LCP Take over started"),
    (34, [0xFFFFFFFF], "LCP Take over completed (state = -1)"),
    (
        82,
        [3, 4, 5, 1, 0b1110, 0],
        "Connectivity Check of 3 other nodes (0000000e) started due to Heartbeat failure "
        "from node 5.",
    ),
    (
        82,
        [3, 0, 0, 1, 0b1110, 0b1000],
        "Connectivity Check of 3 nodes (0000000e) restarting due to 1 suspect nodes (00000008).",
    ),
    (83, [3, 0, 0], "Connectivity Check completed on 3 nodes, connectivity ok"),
    (
        83,
        [3, 1, 2],
        "Connectivity Check completed on 3 nodes.  2 nodes failed.  1 nodes still suspect, "
        "repeating check.",
    ),
    (
        83,
        [3, 0, 2],
        "Connectivity Check completed on 3 nodes.  2 nodes failed.  Connectivity now OK",
    ),
    (
        83,
        [3, 1, 0],
        "Connectivity Check completed on 3 nodes.  1 nodes still suspect, repeating check.",
    ),
    (
        84,
        [9, 3, 4],
        "Received FAIL_REP (Connect Check Failure (9)) for node 3 sourced by suspect node 4.  "
        "Rejecting as failure of node 4.",
    ),
    (
        35,
        list(range(1, 11)),
        "Trans. Count = 1, Commit Count = 2, Read Count = 3, Simple Read Count = 4, "
        "Write Count = 5, AttrInfo Count = 6, Concurrent Operations = 7, Abort Count = 8 "
        "Scans = 9 Range scans = 10",
    ),
    (
        35,
        list(range(1, 13)),
        "Trans. Count = 1, Commit Count = 2, Read Count = 3, Simple Read Count = 4, "
        "Write Count = 5, AttrInfo Count = 6, Concurrent Operations = 7, Abort Count = 8 "
        "Scans = 9 Range scans = 10, Local Read Count = 11 Local Write Count = 12",
    ),
    (36, [77], "Operations=77"),
    (37, [12], "Table with ID =  12 created"),
    (39, [1500], "Mean loop Counter in doJob last 8192 times = 1500"),
    (68, [1, 2, 3, 4, 5], "8192 loops,tot 1 usec,exec 3 extra:loops = 4,time 5,const 2"),
    (40, [3, 2048], "Mean send size to Node = 3 last 4096 sends = 2048 bytes"),
    (41, [3, 2048], "Mean receive size to Node = 3 last 4096 sends = 2048 bytes"),
    (50, [0, 32768, 64, 1280, 249], "Data usage is 5%(64 32K pages of total 1280)"),
    (50, [1, 32768, 640, 1280, 248], "Index usage increased to 50%(640 32K pages of total 1280)"),
    (50, [0xFFFFFFFF, 8192, 1, 0, 7], "<unknown> usage decreased to 0%(1 8K pages of total 0)"),
    (
        70,
        [1, 2, 3, 4, 5],
        "Signals delivered from thread 1: prio A 2 (3 bytes) prio B 4 (5 bytes)",
    ),
    (74, [10, 2, 3, 4], "create object id: 10 version: 2 (from 4)"),
    (75, [10, 2, 3, 4], "alter object id: 10 version: 2 (from 4)"),
    (76, [10, 2, 3, 4], "drop object id: 10 version: 2 (from 4)"),
    (42, [3, 0x8013], "Transporter to node 3 reported error 0x8013: Receive buffer was full"),
    (42, [3, 0x99], "Transporter to node 3 reported error 0x99: unknown error"),
    (
        43,
        [3, 0x16],
        "Transporter to node 3 reported error 0x16: "
        "The send buffer was full, but sleeping for a while solved",
    ),
    (44, [3, 4], "Node 3 missed heartbeat 4"),
    (44, [3, 0xFFFFFFFF], "Node 3 missed heartbeat -1"),
    (45, [3], "Node 3 declared dead due to missed heartbeat"),
    (46, [0x00636261], "abc"),
    (46, [0x64636261, 0x00000065], "abcde"),
    (
        69,
        [1, 5, 10, 20, 30, 40],
        "Disconnecting node 5 because it has exceeded MaxBufferedEpochs (30 >= 40), epoch 20/10",
    ),
    (
        69,
        [2, 0, 10, 20],
        "Nodefailure while out of event buffer: informing subscribers of possibly missing "
        "event data, epoch 20/10",
    ),
    (69, [3, 5, 30], "Forcing disconnect of node 5 as it did not connect within 30 seconds."),
    (69, [4], ""),
    (47, [3], "Node Sent Heartbeat to node = 3"),
    (48, [1, 2, 3], "Log part 1, log file 2, MB 3"),
    (49, [0x00636261], "abc"),
    (
        58,
        [0, 0, 0, 1, 2, 3, 4],
        "Event buffer status: max=unlimited used=0B alloc=0B apply_epoch=2/1 latest_epoch=4/3",
    ),
    (
        58,
        [20000, 40000, 10 * 2**20, 1, 2, 3, 4],
        "Event buffer status: max=10240KB used=20KB(0% of max) alloc=40KB apply_epoch=2/1 "
        "latest_epoch=4/3",
    ),
    (
        58,
        [2**24, 0, 32 * 2**20, 1, 2, 3, 4],
        "Event buffer status: max=32MB used=16MB(50% of max) alloc=0B apply_epoch=2/1 "
        "latest_epoch=4/3",
    ),
    (
        85,
        [1000, 2000, 0, 1, 2, 3, 4, 0x100, 6],
        "Event buffer status (0x100): max=unlimited used=1000B alloc=2000Blatest_consumed_epoch"
        "=2/1 latest_buffered_epoch=4/3 report_reason=ENOUGH_FREE_EVENTBUFFER",
    ),
    (
        87,
        [0, 0, 0, 1, 2, 3, 4, 0x100, 9, 1, 0, 2],
        "Event buffer status (0x100): max=8GB used=4GB(50% of max) alloc=0B "
        "latest_consumed_epoch=2/1 latest_buffered_epoch=4/3 report_reason=UNKNOWN reason code",
    ),
    (52, [0], "Entering single user mode"),
    (52, [1, 5], "Entered single user mode Node 5 has exclusive access"),
    (52, [2], "Exiting single user mode"),
    (52, [3], "Unknown single user report 3"),
    (81, [1, 2, 3], "Saved event: 1 2 3"),
    (54, [REF, 7], "Backup 7 started from node 1"),
    (55, [REF, 1350], "Backup request from 1 failed to start. Error: 1350"),
    (
        56,
        [REF, 7, 100, 120, 5000, 50, 600, 6, 0, 0, 1, 0, 0, 0],
        "Backup 7 started from node 1 completed. StartGCP: 100 StopGCP: 120 #Records: 50 "
        "#LogRecords: 6 Data: 4294972296 bytes Log: 600 bytes",
    ),
    (57, [REF, 7, 1350], "Backup 7 started from 1 has been aborted. Error: 1350"),
    (
        62,
        [REF, 7, 5000, 0, 50, 0, 600, 0, 6, 0],
        "Local backup status: backup 7 started from node 1\n #Records: 50 #LogRecords: 6\n"
        " Data: 5000 bytes Log: 600 bytes",
    ),
    (62, [0], "Backup not started"),
    (66, [7, 2], "Restore started: backup 7 from node 2"),
    (
        63,
        [7, 2, 10, 1, 1, 2, 3],
        "Restore meta data: backup 7 from node 2 #Tables: 10\n #Tablespaces: 1 "
        "#Logfilegroups: 1 #datafiles: 2 #undofiles: 3",
    ),
    (
        64,
        [7, 2, 50, 0, 5000, 0],
        "Restore data: backup 7 from node 2 #Records: 50 Data: 5000 bytes",
    ),
    (65, [7, 2, 6, 0, 600, 0], "Restore log: backup 7 from node 2 #Records: 6 Data: 600 bytes"),
    (67, [7, 2], "Restore completed: backup 7 from node 2"),
]


@pytest.mark.parametrize(("event_type", "words", "expected"), TEXT_CASES)
def test_event_text(event_type: int, words: list[int], expected: str) -> None:
    assert event_text(event_type, words) == expected


def test_text_cases_cover_every_catalogue_type() -> None:
    assert {t for t, _, _ in TEXT_CASES} == set(CATALOGUE)


@pytest.mark.parametrize(
    ("start_type", "suffix"),
    [
        (0, "(initial start)"),
        (1, "(system restart)"),
        (2, "(node restart)"),
        (3, "(initial node restart)"),
        (4, "(unknown = 4)"),
        (5, ""),
        (6, "(unknown = 6)"),
        (0xFFFFFFFF, "(unknown = -1)"),
    ],
)
def test_start_phase_completed_for_every_start_type(start_type: int, suffix: str) -> None:
    assert event_text(13, [5, start_type]) == f"Start phase 5 completed {suffix}"


def test_missing_words_read_as_zero() -> None:
    assert event_text(13, []) == "Start phase 0 completed (initial start)"
    assert event_text(6, [10]) == (
        "Local checkpoint 10 started. Keep GCI = 0 oldest restorable GCI = 0"
    )


def test_words_are_masked_to_32_bits() -> None:
    assert event_text(4, [(1 << 32) + 5]) == "Global checkpoint 5 started"
    assert event_text(44, [-1, -2]) == "Node -1 missed heartbeat -2"


def test_redo_status_with_zero_total_does_not_divide() -> None:
    assert event_text(73, [0] * 11).endswith("total mb: 0 free mb: 0 free%: 0")


def test_memory_usage_percent_wraps_like_a_c_int() -> None:
    # used * 100 overflows a 32-bit int on the server; the text shows the wrapped result.
    used = 30_000_000
    wrapped = (used * 100) & 0xFFFFFFFF
    wrapped -= 1 << 32 if wrapped >= 1 << 31 else 0
    expected = int(wrapped / 60_000_000)
    text = event_text(50, [0, 32768, used, 60_000_000, 249])
    assert text == f"Data usage is {expected}%({used} 32K pages of total 60000000)"


def test_packed_strings_round_trip() -> None:
    for text in ("", "a", "abcd", "Node 2: disk almost full", "naïve"):
        assert unpack_string(pack_string(text)) == text
        assert event_text(49, pack_string(text)) == text
    assert pack_string("abc") == (0x00636261,)
    assert pack_string("abcd") == (0x64636261, 0)


def test_unknown_type_gets_a_neutral_text() -> None:
    assert event_text(61, [1, 2]) == "Unknown event type 61 [1 2]"
    assert event_text(500, []) == "Unknown event type 500"
    assert unknown_text(61, [0xFFFFFFFF]) == "Unknown event type 61 [4294967295]"


def test_cluster_log_line_format() -> None:
    when = datetime(2008, 10, 24, 13, 3, 3)
    line = cluster_log_line(when, 10, Severity.INFO, event_text(13, [4, 0]))
    assert line == (
        "2008-10-24 13:03:03 [MgmtSrvr] INFO     -- Node 10: Start phase 4 completed "
        "(initial start)"
    )


@pytest.mark.parametrize(
    ("severity", "label"),
    [
        (Severity.ALERT, "ALERT   "),
        (Severity.WARNING, "WARNING "),
        (Severity.CRITICAL, "CRITICAL"),
        (4, "ERROR   "),
    ],
)
def test_cluster_log_line_severity_labels(severity: Severity | int, label: str) -> None:
    when = datetime(2024, 5, 1, 12, 0, 0)
    line = cluster_log_line(when, 2, severity, "x", category_name="MgmSrvr")
    assert line == f"2024-05-01 12:00:00 [MgmSrvr] {label} -- Node 2: x"


def test_cluster_log_line_without_node() -> None:
    line = cluster_log_line(datetime(2024, 5, 1, 12, 0, 0), 0, Severity.INFO, "x")
    assert line == "2024-05-01 12:00:00 [MgmtSrvr] INFO     -- x"
