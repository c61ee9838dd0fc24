"""What ``ndbtop export`` costs: one scrape of a large cluster, and the exporter at rest."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import gzip
import statistics
import subprocess
import time
import urllib.request
from typing import Any

import psutil
from harness import PYTHON, ROOT, SimProcess

OPENMETRICS = "application/openmetrics-text; version=1.0.0"


async def scrape_cost(scenario: str, rounds: int) -> dict[str, Any]:
    """CPU and size of one scrape of ``scenario``'s snapshot: built anew (the first scrape
    after a refresh), from the families kept for that snapshot, and over HTTP."""
    from prometheus_client import generate_latest
    from prometheus_client.openmetrics.exposition import CONTENT_TYPE_LATEST as OM_TYPE
    from prometheus_client.openmetrics.exposition import generate_latest as generate_om

    from ndbtop.collect.hub import Hub
    from ndbtop.export.server import MetricsServer, SnapshotCollector
    from ndbtop.host.samples import DiskCounters
    from ndbtop.host.view import HostView
    from ndbtop.mgm.connectstring import parse_connectstring
    from ndbtop.model.backups import RUNNING, Backup, NodeProgress
    from ndbtop.model.clock import RealClock
    from ndbtop.model.hosts import HostReport
    from ndbtop.model.sources import SourceState, SourceStatus
    from ndbtop.ndbinfo.collector import NdbinfoCollector
    from ndbtop.ndbinfo.options import MysqlOptions

    sim = SimProcess(scenario)
    try:
        options = MysqlOptions(host="127.0.0.1", port=sim.sql_port, user="root", password="")
        hub = Hub(parse_connectstring(f"127.0.0.1:{sim.mgm_port}"), RealClock(), 1.0,
                  ndbinfo=(NdbinfoCollector(options), "bench"), events=False)
        assert hub.sql is not None
        for _ in range(3):
            hub.mgm.health.ok()
            await hub.mgm.poll_once()
            await hub.sql.poll_once()
            hub.sql.health.ok()
            hub.changed()
            await asyncio.sleep(0.5)
        await hub.config.attempt()
        snap = hub.snapshot()
        await hub.stop()
    finally:
        sim.stop()
    data_nodes = [n.node_id for n in snap.nodes if n.type == "NDB"]
    backup = Backup(1, RUNNING, master=data_nodes[0], started_at=snap.wall - 60, nodes=tuple(
        NodeProgress(n, 10**6, 10**9, 10**3, 10**6, snap.wall) for n in data_nodes))
    # The events (not listened to here) are what tell of backups.
    events = SourceStatus("events", SourceState.CONNECTED, last_ok=time.monotonic())
    sources = tuple(events if s.name == "events" else s for s in snap.sources)
    snap = dataclasses.replace(snap, backups=(backup,), sources=sources)

    def hosts(at: float) -> tuple[HostReport, ...]:
        """Every data node on a host of its own read over SSH, four block devices each:
        read again at every refresh."""
        disks = tuple(DiskCounters(f"nvme{i}n1", 10**6, 10**7, 10**10, 10**11, 10**6, 10**7,
                                   10**6, 10, 20) for i in range(4))
        return tuple(HostReport(f"db{n}.example", "ssh", (n,), "ok", last_ok=at,
                                view=HostView(at, 1.0, (), None, (), disks))
                     for n in data_nodes)

    def changed(snap: Any, every: bool) -> Any:
        """The snapshot as the next refresh makes it: new values of the nodes, threads,
        hit ratios and hosts (read every refresh), and with ``every`` of every other panel
        and the backup's progress too."""
        ndbinfo = snap.ndbinfo
        fields = ("threads", "disk_page_buffer", "nodes")
        if every:
            fields += ("memory", "log_spaces", "activity", "restart_info")
        ndbinfo = dataclasses.replace(
            ndbinfo, **{f: tuple(copy.copy(v) for v in getattr(ndbinfo, f)) for f in fields})
        at = time.monotonic()
        return dataclasses.replace(
            snap, taken_at=at, interval=3600.0, ndbinfo=ndbinfo,
            nodes=tuple(copy.copy(n) for n in snap.nodes),
            hit_ratios=tuple(copy.copy(h) for h in snap.hit_ratios), hosts=hosts(at),
            backups=tuple(copy.copy(b) for b in snap.backups) if every else snap.backups)

    collector = SnapshotCollector()
    text_type = "text/plain; version=0.0.4; charset=utf-8"
    every, fresh, kept = [], [], []
    for _ in range(rounds):
        snap = changed(snap, True)
        collector.publish(snap)
        t0 = time.process_time()
        text = collector.render(generate_latest, text_type)
        every.append((time.process_time() - t0) * 1000)
        snap = changed(snap, False)
        collector.publish(snap)
        t0 = time.process_time()
        collector.render(generate_latest, text_type)
        fresh.append((time.process_time() - t0) * 1000)
        t0 = time.process_time()
        collector.render(generate_latest, text_type)
        kept.append((time.process_time() - t0) * 1000)
    om = collector.render(generate_om, OM_TYPE)
    server = MetricsServer(collector, "127.0.0.1", 0, "bench")
    server.start()
    http = []
    try:
        for _ in range(rounds):
            snap = changed(snap, False)
            collector.publish(snap)
            t0 = time.perf_counter()
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/metrics") as reply:
                reply.read()
            http.append((time.perf_counter() - t0) * 1000)
    finally:
        server.close()
    return {
        "scenario": scenario,
        "nodes": len(snap.nodes),
        "threads": len(snap.ndbinfo.threads) if snap.ndbinfo else 0,
        "hosts": len(snap.hosts),
        "series": sum(1 for line in text.splitlines() if not line.startswith(b"#")),
        "scrape_first_cpu_ms": every[0],
        "scrape_everything_new_cpu_ms_median": statistics.median(every),
        "scrape_everything_new_cpu_ms_max": max(every),
        "scrape_cpu_ms_median": statistics.median(fresh),
        "scrape_cpu_ms_max": max(fresh),
        "scrape_kept_cpu_ms_median": statistics.median(kept),
        "scrape_http_wall_ms_median": statistics.median(http),
        "text_bytes": len(text),
        "openmetrics_bytes": len(om),
        "text_gzip_bytes": len(gzip.compress(text)),
    }


COLLECT_ONLY = """
import asyncio, sys
from ndbtop.cli.parser import build_parser
from ndbtop.cli.sources import ndbinfo_reader
from ndbtop.collect.hub import Hub
from ndbtop.mgm.connectstring import resolve_connectstring
from ndbtop.model.clock import RealClock

async def main():
    args = build_parser().parse_args(sys.argv[1:])
    hub = Hub(resolve_connectstring(args.connectstring), RealClock(), args.interval,
              ndbinfo=ndbinfo_reader(args))
    await hub.start()
    print("serving nothing: collection only", file=sys.stderr, flush=True)
    while True:
        hub.snapshot()
        await asyncio.sleep(args.interval)

asyncio.run(main())
"""
"""The live view's sources without the live view: the same hub, a snapshot every interval."""


def _process_cpu(argv: list[str], sim: SimProcess, seconds: float,
                 scrape: bool) -> dict[str, float]:
    proc = subprocess.Popen([PYTHON, *argv, *sim.args], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        url = ""
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not url:
            line = proc.stderr.readline()
            if "serving" in line:
                url = line.split()[-3] if "http" in line else "-"
        ps = psutil.Process(proc.pid)

        def cpu() -> float:
            t = ps.cpu_times()
            return t.user + t.system

        time.sleep(10)
        c0, t0 = cpu(), time.monotonic()
        time.sleep(seconds)
        out = {"idle_cpu_pct": 100 * (cpu() - c0) / (time.monotonic() - t0)}
        if scrape:
            c0, t0 = cpu(), time.monotonic()
            end = t0 + seconds
            while time.monotonic() < end:
                with urllib.request.urlopen(url) as reply:
                    reply.read()
                time.sleep(max(0.0, 1.0 - (time.monotonic() - t0) % 1.0))
            out["scraped_every_second_cpu_pct"] = 100 * (cpu() - c0) / (time.monotonic() - t0)
        out["rss_mb"] = ps.memory_info().rss / 1024 / 1024
        return out
    finally:
        proc.terminate()
        proc.wait(10)


def idle_cost(scenario: str, seconds: float) -> dict[str, Any]:
    """CPU of the ``ndbtop export`` process on ``scenario`` at a 1 s interval, not scraped
    and scraped every second, next to a process running the same sources without serving
    them (what the live view spends on collecting)."""
    sim = SimProcess(scenario)
    try:
        collect = _process_cpu(["-c", COLLECT_ONLY], sim, seconds, scrape=False)
        export = _process_cpu(["-m", "ndbtop", "export", "--listen", "127.0.0.1:0"], sim,
                              seconds, scrape=True)
    finally:
        sim.stop()
    return {"scenario": scenario, "seconds": seconds,
            "collection_only_cpu_pct": collect["idle_cpu_pct"], **export}
