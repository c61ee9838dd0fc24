"""``ndbtop --once --json --ssh`` against the simulator whose data nodes are on loopback
aliases served by the private sshd."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from tests.conftest import run_cli
from tests.ssh.conftest import (
    GOOD_HOSTS,
    NO_SSHD_HOST,
    PrivateSshd,
    StandIn,
    s1_with_node_10_creating_its_redo_log,
)


def _threads_on(*hosts: str) -> Any:
    return build_scenario("threads", ScenarioOptions(data_node_hosts=hosts))


def test_once_json_has_every_host_with_its_nodes_and_threads(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, sshd: PrivateSshd,
    standins: list[StandIn], tmp_path: Path,
) -> None:
    standins.append(StandIn(2, tmp_path, angel=True))
    standins.append(StandIn(3, tmp_path))
    sim = threaded_sim(_threads_on(*GOOD_HOSTS), speed=1.0)
    status, out, err = run_cli(capsys, [
        "--once", "--json", "--no-sql", "--no-host", "--interval", "0.3", "-c", sim.connectstring,
        "--ssh", "--ssh-config", str(sshd.config), "--ssh-option", "ConnectTimeout=3",
    ])
    assert (status, err) == (0, "")
    hosts = {h["host"]: h for h in json.loads(out)["hosts"]}
    assert set(hosts) == set(GOOD_HOSTS)
    for node_id, host in ((2, GOOD_HOSTS[0]), (3, GOOD_HOSTS[1])):
        h = hosts[host]
        assert (h["via"], h["node_ids"], h["state"], h["error"]) == ("ssh", [node_id], "ok", None)
        # Two readings of the host, the second a refresh after the first (how long after
        # depends on the machine's load, so only its sign is the code's).
        assert h["interval_s"] is not None and h["interval_s"] > 0
        assert h["disks"] and {"disk", "w_s", "await_ms", "util_pct"} <= set(h["disks"][0])
        assert h["cpu"] is not None and h["cpu"]["idle"] is not None
        threads = {(t["node_id"], t["tid"]): t["thread_name"] for t in h["threads"]}
        # Both stand-ins run on this machine: each host sees both, each known by node id,
        # its threads by tid (every one's comm is ndbmtd, as on a real host).
        working = {(s.node_id, tid) for s in standins for tid in s.tids}
        assert len(working) == 4 and working <= set(threads)
        assert {threads[k] for k in working} == {"ndbmtd"}
        assert "redo_init" not in h


def test_once_with_a_host_down_finishes_within_the_connect_timeout_plus_an_interval(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, sshd: PrivateSshd,
) -> None:
    # 10.255.255.1 is not on loopback: nothing may connect there, so the simulator reports
    # one data node on an alias with no sshd and the other on a good one.
    sim = threaded_sim(_threads_on(NO_SSHD_HOST, GOOD_HOSTS[0]), speed=1.0)
    began = time.monotonic()
    status, out, err = run_cli(capsys, [
        "--once", "--json", "--no-sql", "--no-host", "--interval", "0.5", "-c", sim.connectstring,
        "--ssh", "--ssh-config", str(sshd.config), "--ssh-option", "ConnectTimeout=2",
    ])
    took = time.monotonic() - began
    # The report is printed; a source asked for did not answer: one line, status 3.
    assert status == 3 and err.count("\n") == 1
    assert err.startswith(f"ndbtop: error: host {NO_SSHD_HOST} ") and "Connection refused" in err
    hosts = {h["host"]: h for h in json.loads(out)["hosts"]}
    assert hosts[NO_SSHD_HOST]["state"] == "error"
    assert "Connection refused" in hosts[NO_SSHD_HOST]["error"]
    assert hosts[NO_SSHD_HOST]["disks"] == []
    assert hosts[GOOD_HOSTS[0]]["state"] == "ok"
    assert took < 2 + 0.5 + 2.0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--ssh-user", "x"], "--ssh-user needs --ssh"),
        (["--ssh", "--ssh-option=-oProxyCommand=x"], "--ssh-option '-oProxyCommand=x' refused"),
        (["--ssh", "--ssh-config", "/nonexistent/cfg"], "--ssh-config /nonexistent/cfg: no such"),
    ],
)
def test_ssh_usage_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run_cli(capsys, ["--once", "-c", "127.0.0.1:1", *argv])
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_once_json_has_the_redo_progress_of_an_initialising_node(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, sshd: PrivateSshd,
    standins: list[StandIn], tmp_path: Path,
) -> None:
    sim = s1_with_node_10_creating_its_redo_log(threaded_sim, standins, tmp_path)
    status, out, err = run_cli(capsys, [
        "--once", "--json", "--no-sql", "--no-host", "--interval", "0.3", "-c", sim.connectstring,
        "--ssh", "--ssh-config", str(sshd.config),
    ])
    assert (status, err) == (0, "")
    hosts = {h["host"]: h for h in json.loads(out)["hosts"]}
    redo = hosts[GOOD_HOSTS[0]]["redo_init"]
    assert [r["node_id"] for r in redo] == [10]
    assert redo[0]["files_done"] == 5 + 4 + 5 + 3
    assert redo[0]["bytes_written"] >= 4 << 20
    # Totals come from the configuration: S1 has 4 parts of 42 files of 256 MB, initialised
    # SPARSE (one 32 KiB page per MiB written, 1/32 of the log).
    assert redo[0]["files_total"] == 4 * 42
    assert redo[0]["bytes_expected"] == 4 * 42 * (256 << 20) // 32
    # Node 11's host sees the stand-in too (one machine here), but it is not its node.
    assert "redo_init" not in hosts[GOOD_HOSTS[1]]


def test_ssh_missing_from_path_is_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    status, out, err = run_cli(capsys, ["--once", "-c", "127.0.0.1:1", "--ssh"])
    assert (status, out) == (2, "")
    assert err == "ndbtop: error: --ssh needs the OpenSSH client: no 'ssh' in PATH\n"
