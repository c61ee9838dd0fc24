"""The newest entry of a failed data node's error log, parsed from the file as the data
node writes it (ErrorReporter.cpp) and read over SSH when the node goes away."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from ndbtop.collect.hosts import HostSet
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig, DataNodeConfig
from ndbtop.model.errorlog import parse_error_log
from tests.ssh.conftest import GOOD_HOSTS, PrivateSshd

MESSAGE_LENGTH = 999


def _entry(time: str, code: int, message: str, data: str, trace: str) -> str:
    text = (
        f"Time: {time}\n"
        "Status: Temporary error, restart node\n"
        f"Message: {message}\n"
        f"Error: {code}\n"
        f"Error data: {data}\n"
        "Error object: QMGR (Line: 7083) 0x00000002\n"
        "Program: ndbmtd\n"
        "Pid: 4242 thr: 0\n"
        "Version: mysql-8.4.3 ndb-8.4.3\n"
        f"Trace file name: {trace}\n"
        f"Trace file path: /var/lib/mysql-cluster/{trace} [t1..t9]\n"
        "***EOM***\n"
    )
    # Entries are padded with blanks to a fixed length, ending in a newline.
    return text + " " * (MESSAGE_LENGTH - 2 - len(text)) + "\n"


def error_log(entries: list[str], next_offset: int | None = None) -> str:
    body = "".join(entries)
    offset = 69 + len(body) if next_offset is None else next_offset
    header = f"Current byte-offset of file-pointer is: {offset}"
    header += " " * (66 - len(header)) + "\n\n\n"
    assert len(header) == 69
    return header + body


OLD = _entry("Monday 23 November 2026 - 09:12:01", 2341, "Internal program error "
             "(failed ndbrequire) (Internal error, programming error or missing error message, "
             "please report a bug)", "dblqh/DblqhMain.cpp", "ndb_2_trace.log.1")
NEW = _entry("Wednesday 25 November 2026 - 10:40:17", 2305,
             "Node lost connection to other nodes and can not form a unpartitioned cluster, "
             "please investigate if there are error(s) on other node(s) (Arbitration error)",
             "Arbitrator decided to shutdown this node. Caused by error 2305: 'Node lost "
             "connection to other nodes and can not form a unpartitioned cluster'",
             "ndb_2_trace.log.2_t3")


def test_the_newest_entry_is_the_one_before_the_offset() -> None:
    e = parse_error_log(error_log([OLD, NEW]), 2, "/d/ndb_2_error.log")
    assert (e.time, e.error_code, e.trace_file) == (
        "Wednesday 25 November 2026 - 10:40:17", 2305, "ndb_2_trace.log.2_t3")
    assert e.meaning == ("Node lost connection to other nodes and can not form a "
                         "unpartitioned cluster, please investigate if there are error(s) on "
                         "other node(s)")
    assert e.classification == "Arbitration error"
    assert e.status == "Temporary error, restart node"
    assert e.caused_by == ("Caused by error 2305: 'Node lost connection to other nodes and "
                           "can not form a unpartitioned cluster'")
    assert e.problem is None


def test_a_wrapped_log_has_its_newest_entry_before_the_offset_not_at_the_end() -> None:
    # NEW was written at the start over an older entry; OLD is still at the end.
    text = error_log([NEW, OLD], next_offset=69 + MESSAGE_LENGTH - 1)
    e = parse_error_log(text, 2, "x")
    assert e.error_code == 2305 and e.caused_by is not None


def test_the_offset_back_at_the_start_means_the_last_entry_is_the_newest() -> None:
    e = parse_error_log(error_log([OLD, NEW], next_offset=69), 2, "x")
    assert e.error_code == 2305
    assert parse_error_log(error_log([NEW, OLD], next_offset=69), 2, "x").error_code == 2341


def test_no_entry_is_a_problem_not_data() -> None:
    e = parse_error_log(error_log([]), 3, "/d/ndb_3_error.log")
    assert e.problem == "no entry in the error log" and e.error_code is None


async def test_a_node_lost_after_started_gets_its_error_log_read_on_its_host(
    sshd: PrivateSshd, tmp_path: Path
) -> None:
    datadir = tmp_path / "data dir; $(touch pwned)"
    datadir.mkdir()
    (datadir / "ndb_2_error.log").write_text(error_log([OLD, NEW]))
    config = ClusterConfig(1, "c", 2, (), (
        DataNodeConfig(2, 0, host=GOOD_HOSTS[0], data_dir=str(datadir)),
        DataNodeConfig(3, 0, host=GOOD_HOSTS[1], data_dir=str(tmp_path / "none")),
    ))
    changed = asyncio.Event()
    hosts = HostSet(None, sshd.options, 0.5, changed.set)
    up = (NodeStatus(2, "NDB", "STARTED"), NodeStatus(3, "NDB", "STARTED"))
    down = (NodeStatus(2, "NDB", "NO_CONTACT"), NodeStatus(3, "NDB", "NO_CONTACT"))
    hosts.allow_reads()
    try:
        hosts.update(up, config)
        assert set(hosts.remote) == set(GOOD_HOSTS) and not hosts.error_logs
        hosts.update(down, config)
        await hosts.read_error_logs([], config)
        e2, e3 = hosts.error_logs[2], hosts.error_logs[3]
        assert e2.error_code == 2305 and e2.path == f"{datadir}/ndb_2_error.log"
        assert e3.problem is not None and e3.error_code is None
        assert not (tmp_path / "pwned").exists()
        reports = {r.host: r for r in hosts.reports(down, (), config)}
        assert reports[GOOD_HOSTS[0]].error_logs == (e2,)
    finally:
        await hosts.stop()


async def test_the_bundle_holds_the_error_log_of_a_stopped_node(
    sshd: PrivateSshd, tmp_path: Path, start_sim: Any
) -> None:
    from ndbtop.collect.hub import Hub
    from ndbtop.mgm.connectstring import parse_connectstring
    from ndbtop.model.clock import RealClock
    from ndbtop.report.bundle import collect_bundle
    from ndbtop.sim.scenarios import ScenarioOptions, build_scenario

    cluster = build_scenario("threads", ScenarioOptions(data_node_hosts=GOOD_HOSTS))
    cluster.stop_nodes((3,))
    cluster.advance_to(cluster.now + 30)
    sim = await start_sim(cluster)
    (tmp_path / "ndb_3_error.log").write_text(error_log([OLD, NEW]))
    config = ClusterConfig(1, "c", 2, (), (
        DataNodeConfig(2, 0, host=GOOD_HOSTS[0], data_dir=str(tmp_path / "d2")),
        DataNodeConfig(3, 0, host=GOOD_HOSTS[1], data_dir=str(tmp_path)),
    ))
    clock = RealClock()
    hub = Hub(parse_connectstring(sim.connectstring), clock, 0.3, events=False,
              ssh=sshd.options)
    hub.cluster_config = lambda: config  # type: ignore[method-assign]
    try:
        bundle = await collect_bundle(hub, clock, events_seconds=0)
    finally:
        await hub.stop()
    text = bundle.files["error-logs.txt"].decode()
    assert text.startswith("node 3: error 2305: Node lost connection to other nodes ")
    assert "(Arbitration error); Wednesday 25 November 2026 - 10:40:17;" in text
    assert "Caused by error 2305" in text and "trace file ndb_2_trace.log.2_t3" in text
    # The whole entry follows, field by field.
    assert "    Error object: QMGR (Line: 7083) 0x00000002\n" in text
    assert json.loads(bundle.files["error-logs.json"])[0]["error_code"] == 2305
