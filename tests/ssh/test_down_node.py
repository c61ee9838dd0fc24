"""A data node that was already down when ndbtop arrived: its newest error-log entry, the
processes on its host and its DataDir's file system, read over SSH.

The error log is written here as ErrorReporter writes it (storage/ndb/src/kernel/error/
ErrorReporter.cpp, ``WriteMessage``/``formatMessage``): a 69-byte header, entries of
MESSAGE_LENGTH 999 (998 bytes written: the text, ``***EOM***``, blanks, a newline), the
offset going back to 69 after MaxNoOfSavedMessages entries. Exit texts and
classifications are those of ndbd_exit_codes.cpp.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from ndbtop.cli import main
from ndbtop.collect.node_files import process_state
from ndbtop.host.procfs import parse_df
from ndbtop.host.samples import ProcessSeen
from ndbtop.model.errorlog import parse_error_log
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from tests.ssh.conftest import GOOD_HOSTS, PrivateSshd, StandIn

MESSAGE_LENGTH = 999


def format_message(fields: list[tuple[str, str]]) -> str:
    """formatMessage: the fields, ``\\n***EOM***\\n``, blanks while strlen <= 996, then
    byte 997 set to a newline (998 bytes)."""
    text = "\n".join(f"{k}: {v}" for k, v in fields) + "\n***EOM***\n"
    while len(text) <= MESSAGE_LENGTH - 3:
        text += " "
    return text[:MESSAGE_LENGTH - 2] + "\n"


def write_message(log: str | None, entry: str, saved: int) -> str:
    """WriteMessage: a new file gets the header with 69; otherwise the entry goes at the
    header's offset, and the offset moves on, or back to 69 past the last slot."""
    if log is None:
        log = "Current byte-offset of file-pointer is: 69" + " " * 24 + "\n\n\n"
    offset = int(log[40:].split()[0])
    log = log[:offset] + entry + log[offset + len(entry):]
    offset += len(entry)
    last_slot = offset > 69 + saved * MESSAGE_LENGTH - MESSAGE_LENGTH
    head = "69" + " " * 13 if last_slot else str(offset)
    return log[:40] + head + log[40 + len(head):]


def crash(time: str, code: int, message: str, classification: str, data: str,
          pid: str, trace: str) -> str:
    return format_message([
        ("Time", time), ("Status", "Temporary error, restart node"),
        ("Message", f"{message} ({classification})"), ("Error", str(code)),
        ("Error data", data), ("Error object", "DBLQH (Line: 1851) 0x00000002"),
        ("Program", "ndbmtd"), ("Pid", pid), ("Version", "mysql-8.4.3 ndb-8.4.3"),
        ("Trace file name", trace.rsplit("/", 1)[-1].split(" ")[0]),
        ("Trace file path", trace),
    ])


FULL = crash("Thursday 26 November 2026 - 23:41:56", 2810, "The file system is full",
             "File system full", "DBLQH: File system write failed. OS errno: 28",
             "30777 thr: 2", "/data/ndb_3_trace.log.2 [t1..t4]")
"""Error data as SimulatedBlock::fsRefError words it; ``Pid: N thr: T`` and
``[t1..tN]`` as formatMessage appends them for ndbmtd."""


def test_an_entry_as_formatmessage_writes_it_reads_field_by_field() -> None:
    log = write_message(None, FULL, saved=25)
    assert len(log) == 69 + 998 and log[40:45] == "1067 "
    e = parse_error_log(log, 3, "/data/ndb_3_error.log")
    assert (e.error_code, e.meaning, e.classification) == (
        2810, "The file system is full", "File system full")
    assert (e.pid, e.thread, e.program) == (30777, 2, "ndbmtd")
    assert (e.trace_path, e.trace_threads) == ("/data/ndb_3_trace.log.2", 4)
    assert e.error_object == "DBLQH (Line: 1851) 0x00000002"
    assert e.summary() == ("error 2810: The file system is full (File system full); "
                           "Thursday 26 November 2026 - 23:41:56; trace file "
                           "ndb_3_trace.log.2")


def test_error_data_over_several_lines_stays_error_data() -> None:
    # Problem data is free text: lines that hold a colon, even "Error: ", continue it.
    data = "Detected GCP stop(3)...sending kill to [SignalCounter: m_count=1 0000000000000004]\n" \
           "Error: in DIH\nCaused by error 2303: 'System error, node killed during node restart'"
    e = parse_error_log(write_message(None, crash(
        "Friday 27 November 2026 - 01:02:03", 2303,
        "System error, node killed during node restart by other node",
        "Internal error, programming error or missing error message, please report a bug",
        data, "4242", "/data/ndb_3_trace.log.3"), saved=25), 3, "x")
    assert e.error_code == 2303 and e.error_data == data
    assert e.caused_by == "Caused by error 2303: 'System error, node killed during node restart'"
    assert e.pid == 4242 and e.thread is None and e.trace_threads is None
    assert e.lines()[4:7] == (
        "Error data: Detected GCP stop(3)...sending kill to [SignalCounter: m_count=1 "
        "0000000000000004]", "  Error: in DIH",
        "  Caused by error 2303: 'System error, node killed during node restart'")


def test_a_wrapped_log_gives_the_entry_before_the_offset() -> None:
    log = None
    for i in range(5):  # three slots: entries 3 and 4 overwrite 0 and 1
        log = write_message(log, crash(f"day {i}", 2341 + i, "m", "c", "d", "1", "/t"), saved=3)
    assert log is not None and log[40:44] == "2065"
    assert parse_error_log(log, 3, "x").time == "day 4"
    log = write_message(log, crash("day 5", 1, "m", "c", "d", "1", "/t"), saved=3)
    assert log[40:44] == "69  "  # the last slot written: the offset goes back to the start
    assert parse_error_log(log, 3, "x").time == "day 5"


def test_an_unreadable_field_is_marked_not_dropped() -> None:
    e = parse_error_log(write_message(None, FULL.replace("Error: 2810", "Error: 28²0", 1),
                                      saved=25), 3, "x")
    assert e.error_code is None and e.unreadable == ("Error",) and e.raw_error == "28²0"
    assert e.meaning == "The file system is full"
    assert "Error: 28²0 (unreadable)" in e.lines()
    assert e.summary().startswith("error 28²0 (unreadable): The file system is full")


@pytest.mark.parametrize(("processes", "alone", "state"), [
    ((ProcessSeen(10, 3, True), ProcessSeen(11, 3, False)), False, "angel and worker"),
    ((ProcessSeen(10, 3, True),), False, "angel only"),
    ((ProcessSeen(11, 3, False),), False, "worker only"),
    ((ProcessSeen(10, 4, True), ProcessSeen(11, 4, False)), False, "none"),
    ((ProcessSeen(10, None, True),), True, "angel only"),  # the host's only data node
    ((ProcessSeen(10, None, True),), False, "none"),  # another node's, maybe
])
def test_process_state(processes: tuple[ProcessSeen, ...], alone: bool, state: str) -> None:
    assert process_state(processes, 3, alone) == state


def test_df_lines_as_posix_df_prints_them() -> None:
    d = parse_df("/dev/sdb1        515928320 515928320         0     100% /var/lib/mysql-cluster",
                 "/var/lib/mysql-cluster/3")
    assert d is not None and d.full and d.mount == "/var/lib/mysql-cluster"
    assert (d.total_bytes, d.available_bytes, d.used_pct) == (515928320 * 1024, 0, 100)
    spaced = parse_df("map auto_home  0 0 0 100% /mnt/data node", "/mnt/data node/3")
    assert spaced is not None and spaced.mount == "/mnt/data node"
    assert parse_df("Filesystem 1024-blocks Used Available Capacity Mounted on", "/x") is None
    assert parse_df("/dev/sdb1 ²5 1 1 1% /x", "/x") is None


def _once(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return status, out, err


def _down_scenario(tmp_path: Path) -> Any:
    """node-down with its data nodes on GOOD_HOSTS and node 3's DataDir in ``tmp_path``."""
    cluster = build_scenario("node-down", ScenarioOptions(data_node_hosts=GOOD_HOSTS))
    placed = []
    for cfg in cluster.config.data_nodes:
        new = dataclasses.replace(cfg, data_dir=str(tmp_path / f"d{cfg.node_id}"))
        cluster.data_nodes[cfg.node_id].cfg = new
        placed.append(new)
    cluster.config = dataclasses.replace(cluster.config, data_nodes=tuple(placed))
    return cluster


def test_once_json_reads_the_host_of_a_node_down_before_ndbtop_started(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, sshd: PrivateSshd, tmp_path: Path,
) -> None:
    """get status gives no address for a NO_CONTACT node: its host comes from the
    configuration, and its error log is read although ndbtop never saw it fail."""
    datadir = tmp_path / "d3"
    datadir.mkdir()
    (datadir / "ndb_3_error.log").write_text(write_message(None, FULL, saved=25))
    sim = threaded_sim(_down_scenario(tmp_path), speed=1.0)
    status, out, err = _once(capsys, [
        "--once", "--json", "--no-sql", "--no-host", "--interval", "0.3", "-c",
        sim.connectstring, "--ssh", "--ssh-config", str(sshd.config),
    ])
    assert (status, err) == (0, "")
    report = json.loads(out)
    node3 = next(n for n in report["nodes"] if n["node_id"] == 3)
    assert node3["status"] == "NO_CONTACT"
    host = next(h for h in report["hosts"] if 3 in h["node_ids"])
    assert host["host"] == GOOD_HOSTS[1] and host["state"] == "ok"
    (entry,) = [e for e in host["error_logs"] if e["node_id"] == 3]
    assert (entry["error_code"], entry["classification"], entry["pid"], entry["thread"]) == (
        2810, "File system full", 30777, 2)
    (down,) = host["down_nodes"]
    assert down["node_id"] == 3 and down["processes"] == "none"
    assert down["data_dir"]["path"] == str(datadir) and down["data_dir"]["total_bytes"] > 0
    assert down["data_dir"]["available_bytes"] <= down["data_dir"]["total_bytes"]


def test_once_text_says_the_angel_runs_and_the_datadir_is_missing(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, sshd: PrivateSshd,
    standins: list[StandIn], tmp_path: Path,
) -> None:
    standins.append(StandIn(3, tmp_path, angel=True))
    sim = threaded_sim(_down_scenario(tmp_path / "none"), speed=1.0)
    status, out, err = _once(capsys, [
        "--once", "--no-sql", "--no-host", "--interval", "0.3", "-c", sim.connectstring,
        "--ssh", "--ssh-config", str(sshd.config),
    ])
    assert (status, err) == (0, "")
    section = out.split("Data nodes that are down:\n", 1)[1].split("\n\n", 1)[0]
    assert section.splitlines()[0] == f"  node 3 NO_CONTACT (host {GOOD_HOSTS[1]}):"
    assert "ndb_3_error.log: no error log there" in section
    # The stand-in angel and its worker run on this machine, which every alias reaches.
    assert f"its angel and worker run; DataDir {tmp_path / 'none' / 'd3'} not found" in section
