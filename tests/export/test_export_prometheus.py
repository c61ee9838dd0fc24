"""A real Prometheus scrapes ``ndbtop export`` every second; its HTTP API shows what arrived.

Prometheus runs privately: its own configuration, storage directory and a
loopback port, with the alert rules of contrib/ loaded as a user would.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from export_helpers import STARTING_NODE, Served
from prometheus_server import DEADLINE, ROOT, Prometheus

from ndbtop.mgm.status import STATUS_STRINGS
from ndbtop.mgm.version import version_text
from ndbtop.model.phases import next_phase, phase_name


@pytest.fixture
def prometheus_factory(tmp_path: Path) -> Iterator[Callable[[str], Prometheus]]:
    started: list[Prometheus] = []

    def start(target: str) -> Prometheus:
        p = Prometheus(tmp_path, target)
        started.append(p)
        return p

    yield start
    for p in started:
        p.stop()


def variables(expr: str) -> str:
    """A dashboard query with its variables set: any exporter, every context ("All")."""
    return expr.replace("$instance", ".+").replace("$cluster", ".*")


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
    every = await asyncio.to_thread(
        prom.wait_for, f'ndb_node_status{{node_id="{STARTING_NODE}"}}', len(STATUS_STRINGS))
    assert {r["metric"]["status"]: r["value"][1] for r in every} == {
        s: "1" if s == "STARTING" else "0" for s in STATUS_STRINGS}
    # The dashboard's status timeline maps STARTING to 3.
    dashboard = json.loads((ROOT / "contrib" / "grafana" / "ndb-cluster.json").read_text())
    timeline = next(p for p in dashboard["panels"] if p["title"] == "Data node status")
    shown = await asyncio.to_thread(
        prom.wait_for, variables(timeline["targets"][0]["expr"]))
    assert by_node(shown)[str(STARTING_NODE)] == 3
    versions = await asyncio.to_thread(
        prom.wait_for, f'ndb_node_version_info{{node_id="{STARTING_NODE}"}}')
    assert versions[0]["metric"]["version"] == version_text(cluster.config.ndb_version)
    single = await asyncio.to_thread(prom.wait_for, "ndb_single_user_mode")
    assert [r["value"][1] for r in single] == ["0"]
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

    # Every data node host of the simulated cluster, with its disks, however it was read.
    names = {(h.host, h.via) for h in snap.hosts}
    hosts = await asyncio.to_thread(prom.wait_for, "ndbtop_host_up", len(names))
    assert {(r["metric"]["host"], r["metric"]["via"]): r["value"][1] for r in hosts} == {
        n: "1" for n in names}
    disks = await asyncio.to_thread(
        prom.wait_for, "count by (host) (ndbtop_host_disk_io_time_seconds_total)", len(names))
    assert {r["metric"]["host"] for r in disks} == {h for h, _ in names}
    # The recording rule gives the same series under node_exporter's name, for old queries.
    old = await asyncio.to_thread(
        prom.wait_for, "count by (host) (node_disk_io_time_seconds_total)", len(names))
    assert {(r["metric"]["host"], r["value"][1]) for r in old} == {
        (r["metric"]["host"], r["value"][1]) for r in disks}

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
            query = variables(t["expr"]).replace("$__rate_interval", "1m")
            if await asyncio.to_thread(prom.query, query):
                answered.add(panel["title"])
    # Every query is valid PromQL (prom.query checks); those over what this started cluster
    # has at once give answers.
    assert answered >= {"Data node status", "Data node thread CPU", "Sources",
                        "Node versions", "Single-user mode"}
