"""``ndbtop export --ssh`` against the simulator whose data nodes are on loopback aliases
served by the private sshd: every data node host's series, as Prometheus scrapes them."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from tests.export.prometheus_server import Prometheus
from tests.ssh.conftest import (
    GOOD_HOSTS,
    NO_SSHD_HOST,
    PrivateSshd,
    StandIn,
    s1_with_node_10_creating_its_redo_log,
)

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 30.0
Found = dict[tuple[str, frozenset[tuple[str, str]]], float]


class Exporter:
    """``ndbtop export`` as a process: its URL once it serves, its stderr lines."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ndbtop", "export", "--listen", "127.0.0.1:0", *argv],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.lines: list[str] = []
        self._served = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self._served.wait(DEADLINE):
            raise AssertionError(f"ndbtop export did not serve: {self.lines}")
        self.url = next(line.split()[3] for line in self.lines if "serving http" in line)

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))
            if "serving http" in line:
                self._served.set()

    def scrape(self) -> tuple[bytes, Found]:
        with urllib.request.urlopen(self.url, timeout=5) as reply:
            body = reply.read()
        found = {(s.name, frozenset(s.labels.items())): s.value
                 for f in text_string_to_metric_families(body.decode()) for s in f.samples}
        return body, found

    def wait_for(self, ready: Callable[[Found], bool], what: str) -> tuple[bytes, Found]:
        """Scrape until ``ready`` holds (a scrape reads the last snapshot: polling is cheap)."""
        deadline = time.monotonic() + DEADLINE
        while True:
            body, found = self.scrape()
            if ready(found):
                return body, found
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"no {what}: {self.lines}\n{body.decode()[-3000:]}")
            time.sleep(0.1)

    def stop(self) -> int:
        self.proc.terminate()
        try:
            return self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()


@pytest.fixture
def exporters() -> Iterator[Callable[[Sequence[str]], Exporter]]:
    started: list[Exporter] = []

    def start(argv: Sequence[str]) -> Exporter:
        started.append(Exporter(argv))
        return started[-1]

    yield start
    for e in started:
        if e.proc.poll() is None:
            e.stop()


def hosts_of(found: Found, name: str) -> dict[str, float]:
    return {dict(k[1])["host"]: v for k, v in found.items() if k[0] == name}


def test_export_ssh_serves_every_data_node_hosts_disks_and_its_state(
    threaded_sim: Any, sshd: PrivateSshd, standins: list[StandIn], tmp_path: Path,
    exporters: Callable[[Sequence[str]], Exporter],
) -> None:
    # Node 2 on a good host, node 3 on an alias where no sshd listens.
    standins.append(StandIn(2, tmp_path))
    sim = threaded_sim(build_scenario("threads", ScenarioOptions(
        data_node_hosts=(GOOD_HOSTS[0], NO_SSHD_HOST))), speed=1.0)
    exporter = exporters(["-c", sim.connectstring, "--no-sql", "--no-host", "--interval", "0.3",
                          "--ssh", "--ssh-config", str(sshd.config),
                          "--ssh-option", "ConnectTimeout=2"])
    good, down = GOOD_HOSTS[0], NO_SSHD_HOST

    def both_known(found: Found) -> bool:
        ups = hosts_of(found, "ndbtop_host_up")
        return ups.get(good) == 1 and down in ups and bool(
            hosts_of(found, "ndbtop_host_disk_written_bytes_total"))

    body, found = exporter.wait_for(both_known, "both hosts with the good one's disks")
    assert found[("ndbtop_host_up", frozenset({("host", good), ("via", "ssh")}))] == 1
    assert found[("ndbtop_host_up", frozenset({("host", down), ("via", "ssh")}))] == 0
    assert found[("ndbtop_host_data_node", frozenset({("host", good), ("node_id", "2")}))] == 1
    assert found[("ndbtop_host_data_node", frozenset({("host", down), ("node_id", "3")}))] == 1
    # The good host's block devices under ndbtop's names; none for the host not read.
    assert set(hosts_of(found, "ndbtop_host_disk_io_time_seconds_total")) == {good}
    assert set(hosts_of(found, "ndbtop_host_disk_reads_completed_total")) == {good}
    # Each host is also a source of its own, with its age.
    assert found[("ndbtop_source_up", frozenset({("source", f"host {good}")}))] == 1
    assert found[("ndbtop_source_up", frozenset({("source", f"host {down}")}))] == 0
    lint = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True,
                          timeout=30)
    assert (lint.returncode, lint.stdout, lint.stderr) == (0, b"", b"")
    # A real Prometheus scraping the exporter every second stores the same.
    prom = Prometheus(tmp_path, exporter.url.removeprefix("http://").removesuffix("/metrics"))
    try:
        ups = prom.wait_for('ndbtop_host_up{via="ssh"}', 2)
        assert {r["metric"]["host"]: r["value"][1] for r in ups} == {good: "1", down: "0"}
        util = prom.wait_for("rate(ndbtop_host_disk_io_time_seconds_total[5s])")
        assert {r["metric"]["host"] for r in util} == {good}
        assert all(0 <= float(r["value"][1]) <= 1.05 for r in util)
    finally:
        prom.stop()
    # The host that cannot be read is named in the log, once per state change, with ssh's
    # reason; SIGTERM ends the exporter cleanly.
    assert exporter.stop() == 0
    states = [line for line in exporter.lines if line.startswith(f"ndbtop export: host {down} ")]
    assert states[0] == f"ndbtop export: host {down} connecting ({down})"
    assert states[1].startswith(f"ndbtop export: host {down} retrying ({down}): ssh: ")
    assert "Connection refused" in states[1]
    assert not [line for line in exporter.lines if "Traceback" in line], exporter.lines


def test_export_ssh_serves_the_redo_progress_measured_on_the_host(
    threaded_sim: Any, sshd: PrivateSshd, standins: list[StandIn], tmp_path: Path,
    exporters: Callable[[Sequence[str]], Exporter],
) -> None:
    sim = s1_with_node_10_creating_its_redo_log(threaded_sim, standins, tmp_path)
    exporter = exporters(["-c", sim.connectstring, "--no-sql", "--no-host", "--interval", "0.3",
                          "--ssh", "--ssh-config", str(sshd.config)])
    ten = frozenset({("node_id", "10")})
    body, found = exporter.wait_for(
        lambda f: ("ndb_redo_init_files_done", ten) in f and ("ndb_redo_init_bytes", ten) in f
        and ("ndb_node_phase_normal_seconds", ten) in f,
        "node 10's redo progress measured on its host")
    log = 4 * 42 * (256 << 20)
    assert found[("ndb_redo_init_files_done", ten)] == 5 + 4 + 5 + 3
    assert found[("ndb_redo_log_files", ten)] == 4 * 42
    assert found[("ndb_redo_log_bytes", ten)] == log
    # SPARSE: one 32 KiB page per MiB, 1/32 of the log.
    assert found[("ndb_redo_init_expected_bytes", ten)] == log // 32
    written = found[("ndb_redo_init_written_bytes", ten)]
    assert written >= 4 << 20
    # The progress against the whole log is the measured share of what is to be written.
    assert found[("ndb_redo_init_bytes", ten)] == pytest.approx(written / (log // 32) * log,
                                                                 rel=1e-6)
    # Seen creating its log on its host, the phase in progress is the redo phase, whatever
    # its number: its normal duration is the configured log at 50 MB/s.
    assert found[("ndb_node_phase_normal_seconds", ten)] == pytest.approx(43008 / 50)
    # Node 11's host runs no node 11 process: nothing measured for it.
    assert ("ndb_redo_init_files_done", frozenset({("node_id", "11")})) not in found
    lint = subprocess.run(["promtool", "check", "metrics"], input=body, capture_output=True,
                          timeout=30)
    assert (lint.returncode, lint.stdout, lint.stderr) == (0, b"", b"")
