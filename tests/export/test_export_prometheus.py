"""A real Prometheus scrapes ``ndbtop export`` every second; its HTTP API shows what arrived.

Prometheus runs privately: its own configuration, storage directory and a
loopback port, with the alert rules of contrib/ loaded as a user would.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from export_helpers import STARTING_NODE, Served, fetch

from ndbtop.model.phases import next_phase, phase_name

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "contrib" / "prometheus" / "ndb-alerts.yml"
DEADLINE = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Prometheus:
    """``prometheus`` scraping one target every second."""

    def __init__(self, directory: Path, target: str) -> None:
        self.port = free_port()
        config = directory / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
            f"rule_files:\n  - {json.dumps(str(RULES))}\n"
            "scrape_configs:\n  - job_name: ndbtop\n"
            f"    static_configs:\n      - targets: [{json.dumps(target)}]\n")
        self.log = (directory / "prometheus.log").open("wb")
        self.proc = subprocess.Popen(
            ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={directory / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}", "--log.level=warn"],
            stdout=self.log, stderr=subprocess.STDOUT)

    def api(self, path: str, **params: str) -> dict:
        url = f"http://127.0.0.1:{self.port}/api/v1/{path}"
        if params:
            url += "?" + urllib.parse.urlencode(params)
        status, _, body = fetch(url)
        assert status == 200, body
        reply = json.loads(body)
        assert reply["status"] == "success", reply
        return reply["data"]  # type: ignore[no-any-return]

    def query(self, expr: str) -> list[dict]:
        return self.api("query", query=expr)["result"]  # type: ignore[no-any-return]

    def wait_for(self, expr: str, count: int = 1) -> list[dict]:
        """Poll an instant query until it returns at least ``count`` series."""
        deadline = time.monotonic() + DEADLINE
        while True:
            if self.proc.poll() is not None:
                raise AssertionError(f"prometheus exited with {self.proc.returncode}")
            try:
                result = self.query(expr)
            except OSError:
                result = []
            if len(result) >= count:
                return result
            if time.monotonic() > deadline:
                raise AssertionError(f"no {expr} in Prometheus after {DEADLINE} s")
            time.sleep(0.2)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


@pytest.fixture
def prometheus_factory(tmp_path: Path) -> Iterator[type[Prometheus]]:
    started: list[Prometheus] = []

    def start(target: str) -> Prometheus:
        p = Prometheus(tmp_path, target)
        started.append(p)
        return p

    yield start  # type: ignore[misc]
    for p in started:
        p.stop()


def by_node(result: list[dict]) -> dict[str, float]:
    return {r["metric"]["node_id"]: float(r["value"][1]) for r in result}


async def test_prometheus_receives_the_start_phase_of_a_starting_node(
        served_starting: Served, prometheus_factory) -> None:  # type: ignore[no-untyped-def]
    prom = prometheus_factory(f"127.0.0.1:{served_starting.server.port}")
    cluster = served_starting.sim.cluster
    starting = {str(n.node_id): float(n.start_phase) for n in cluster.data_nodes.values()
                if n.state == "STARTING"}
    result = await asyncio.to_thread(prom.wait_for, "ndb_node_start_phase", len(starting))
    assert by_node(result) == starting
    assert by_node(result)[str(STARTING_NODE)] >= 2
    assert {r["metric"]["job"] for r in result} == {"ndbtop"}
    status = await asyncio.to_thread(
        prom.wait_for, f'ndb_node_status{{node_id="{STARTING_NODE}"}}')
    assert [r["metric"]["status"] for r in status] == ["STARTING"]
    up = await asyncio.to_thread(prom.wait_for, "ndbtop_source_up", 4)
    got = {r["metric"]["source"]: r["value"][1] for r in up}
    assert {k: got[k] for k in ("mgm", "events", "ndbinfo", "host")} == {
        "mgm": "1", "events": "1", "ndbinfo": "0", "host": "1"}
    info = await asyncio.to_thread(
        prom.wait_for, f'ndb_node_start_info{{node_id="{STARTING_NODE}"}}')
    labels = info[0]["metric"]
    # The phase running is the one after the last completed, named from the phase table.
    # The exporter came in mid-start: the start's kind was in events it did not see, so
    # there is no start_type label rather than a guess.
    assert int(labels["phase"]) == next_phase(int(starting[str(STARTING_NODE)]))
    assert labels["phase_name"] == phase_name(int(labels["phase"]), None)
    assert "start_type" not in labels
    scrape = await asyncio.to_thread(prom.wait_for, "up")
    assert scrape[0]["value"][1] == "1"


async def test_prometheus_receives_threads_and_evaluates_the_alert_rules(
        served: Served, prometheus_factory) -> None:  # type: ignore[no-untyped-def]
    prom = prometheus_factory(f"127.0.0.1:{served.server.port}")
    snap = served.hub.snapshot()
    assert snap.ndbinfo is not None
    threads = snap.ndbinfo.threads
    result = await asyncio.to_thread(prom.wait_for, "ndb_thread_cpu_ratio", len(threads))
    got = {(r["metric"]["node_id"], r["metric"]["thread_no"], r["metric"]["thread_name"]):
           float(r["value"][1]) for r in result}
    assert got == {(str(t.node_id), str(t.thr_no), t.thread_name): t.cpu_pct / 100
                   for t in threads}

    def rules_evaluated() -> list[dict]:
        deadline = time.monotonic() + DEADLINE
        while True:
            groups = prom.api("rules")["groups"]
            rules = [r for g in groups for r in g["rules"]]
            if rules and all(r.get("lastEvaluation", "").startswith("20") for r in rules):
                return rules
            if time.monotonic() > deadline:
                raise AssertionError("the alert rules were not evaluated")
            time.sleep(0.2)

    rules = await asyncio.to_thread(rules_evaluated)
    assert {r["health"] for r in rules} == {"ok"}
    assert {r["name"] for r in rules} >= {"NdbDataNodeDown", "NdbNodeGroupOneNodeLeft",
                                          "NdbStartPhaseStuck", "NdbLowHitRatio",
                                          "NdbHotThread"}


async def test_the_dashboards_queries_run_on_prometheus(
        served: Served, prometheus_factory) -> None:  # type: ignore[no-untyped-def]
    prom = prometheus_factory(f"127.0.0.1:{served.server.port}")
    await asyncio.to_thread(prom.wait_for, "ndb_thread_cpu_ratio")
    dashboard = json.loads((ROOT / "contrib" / "grafana" / "ndb-cluster.json").read_text())
    answered = set()
    for panel in dashboard["panels"]:
        for t in panel.get("targets", ()):
            query = t["expr"].replace("$instance", ".+").replace("$__rate_interval", "1m")
            if await asyncio.to_thread(prom.query, query):
                answered.add(panel["title"])
    # Every query is valid PromQL (prom.query checks); those over what this started cluster
    # has at once give answers.
    assert answered >= {"Data node status", "Data node thread CPU", "Sources"}
