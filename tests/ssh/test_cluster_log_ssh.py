"""The cluster log file read over ``--ssh`` from the management server's host (a loopback
alias served by the private sshd), as the simulated management server writes it in its
DataDir: ``check --ssh`` warns from a GCP lag logged before it ran, ``--once`` shows an
hour-old heartbeat death as history, never as a current finding, and dates a start it came
to late from the file's lines."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from tests.conftest import run_cli
from tests.eta.test_dated_surfaces import phase_4_began, s1_attached
from tests.ssh.conftest import GOOD_HOSTS, PrivateSshd


def _stamp(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def _gcp_stall_at(data_dir: Path, at: float) -> Any:
    """gcp-stall played to ``at`` s, its data nodes and management server on the sshd's
    aliases, the management server's cluster log in ``data_dir``."""
    cluster = build_scenario("gcp-stall", ScenarioOptions(
        data_node_hosts=GOOD_HOSTS, mgm_host=GOOD_HOSTS[0], mgm_data_dir=str(data_dir)))
    cluster.advance_to(at)
    return cluster


def _ssh(sshd: PrivateSshd) -> list[str]:
    return ["--ssh", "--ssh-config", str(sshd.config), "--ssh-option", "ConnectTimeout=3"]


def test_check_warns_from_a_gcp_lag_logged_before_it_ran(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, sshd: PrivateSshd, tmp_path: Path,
) -> None:
    # Node 3's disk stops at 30 s; the master warns of 60 s of GCP_SAVE lag at 90 s (limit
    # 204 s): at 140 s the warning is 50 s old and the next one 10 s away. The simulated
    # clock barely moves while check runs.
    sim = threaded_sim(_gcp_stall_at(tmp_path, 140.0), speed=0.05)
    log = (tmp_path / "ndb_1_cluster.log").read_text()
    assert "[MgmtSrvr] WARNING  -- Node 2: GCP Monitor: GCP_SAVE lag 60 seconds" in log
    argv = ["check", "-c", sim.connectstring, "--no-sql", "--no-host", "--interval", "0.3"]
    status, out, _ = run_cli(capsys, [*argv, *_ssh(sshd)])
    assert status == 1, out
    assert out.startswith("NDB WARNING - 1 warning: gcp_save_lag: GCP_SAVE lag 60 s on the "
                          "DIH master (node 2)")
    # Without --ssh the file cannot be read: check says so, and what it could not judge.
    status, out, _ = run_cli(capsys, argv)
    assert status == 0 and "cluster-log not read" in out and "gcp_save_lag" in out.split("|")[0]


def test_once_shows_an_hour_old_heartbeat_death_as_history(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, sshd: PrivateSshd, tmp_path: Path,
) -> None:
    # The book's listing 17-1 an hour ago, on this cluster: node 5 died and runs again.
    hour_ago = time.time() - 3600 + 60
    old = [(0, "WARNING", "Node 4: Node 5 missed heartbeat 2"),
           (5, "WARNING", "Node 4: Node 5 missed heartbeat 3"),
           (10, "WARNING", "Node 4: Node 5 missed heartbeat 4"),
           (10, "ALERT", "Node 4: Node 5 declared dead due to missed heartbeat")]
    (tmp_path / "ndb_1_cluster.log").write_text("".join(
        f"{_stamp(hour_ago + s)} [MgmtSrvr] {sev:<8} -- {text}\n" for s, sev, text in old))
    sim = threaded_sim(_gcp_stall_at(tmp_path, 20.0), speed=0.05)
    argv = ["--once", "-c", sim.connectstring, "--no-sql", "--no-host", "--interval", "0.3",
            *_ssh(sshd)]
    status, out, err = run_cli(capsys, [*argv, "--json"])
    assert (status, err) == (0, "")
    report = json.loads(out)
    assert [f["id"] for f in report["findings"]] == []
    dead = [e for e in report["cluster_log"] if "declared dead" in e["text"]]
    assert dead == [{"time": dead[0]["time"], "node": 4, "severity": "ALERT",
                     "category": "ERROR", "text": "Node 5 declared dead due to missed heartbeat",
                     "from": "file", "mgm_node": 1, "repeated": 1}]
    # The simulated server's own lines follow in the same file, in order.
    froms = [e["from"] for e in report["cluster_log"]]
    assert froms[:4] == ["file"] * 4 and len(froms) > 4
    source = next(s for s in report["sources"] if s["name"] == "cluster-log")
    assert (source["state"], source["unavailable"]) == ("connected", [])
    status, out, err = run_cli(capsys, argv)
    assert status == 0
    assert "history ALERT    node 4: Node 5 declared dead due to missed heartbeat" in out
    assert "Findings: none" in out


def test_once_dates_an_attached_start_from_the_file_read_over_ssh(
    capsys: pytest.CaptureFixture[str], threaded_sim: Any, sshd: PrivateSshd, tmp_path: Path,
) -> None:
    # S1 1000 s in, its management server's file on the sshd's alias: phase 4's beginning
    # and the kind of start from the file's lines, read over the same --ssh options.
    cluster = s1_attached(tmp_path, GOOD_HOSTS[0], data_node_hosts=GOOD_HOSTS)
    sim = threaded_sim(cluster, speed=0.05)
    began = phase_4_began(tmp_path)
    argv = ["--once", "--json", "-c", sim.connectstring, "--no-sql", "--no-host",
            "--interval", "0.3", *_ssh(sshd)]
    status, out, err = run_cli(capsys, argv)
    assert (status, err) == (0, "")
    report = json.loads(out)
    t = next(x for x in report["start_timelines"] if x["node_id"] == 10)
    assert (t["phase_in_progress"], t["in_phase_from"], t["start_type"]) == (4, "file", 0)
    eta = next(n for n in report["nodes"] if n["node_id"] == 10)["eta"]
    assert eta is not None
    assert eta["basis"][-1] == f"attached mid-start: phase 4 began at {began} (the cluster log)"
    assert eta["basis"][0] == "redo rate (cluster log)"
