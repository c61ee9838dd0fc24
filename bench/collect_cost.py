"""What one refresh costs: collecting it, drawing it, recording it.

``python bench/collect_cost.py [SCENARIO]`` prints the client CPU of the ``ndbinfo``
reads (:func:`ndbinfo_read_cost`, ``max`` by default) as JSON.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from harness import SimProcess


async def refresh_cost(scenario: str, rounds: int) -> dict[str, Any]:
    """Collect (both sources), build and render one snapshot, ``rounds`` times."""
    from ndbtop.collect.hub import Hub
    from ndbtop.mgm.connectstring import parse_connectstring
    from ndbtop.model.clock import RealClock
    from ndbtop.ndbinfo.collector import NdbinfoCollector
    from ndbtop.ndbinfo.options import MysqlOptions

    sim = SimProcess(scenario)
    try:
        options = MysqlOptions(host="127.0.0.1", port=sim.sql_port, user="root", password="")
        hub = Hub(parse_connectstring(f"127.0.0.1:{sim.mgm_port}"), RealClock(), 1.0,
                  ndbinfo=(NdbinfoCollector(options), "bench"), events=False)
        walls, cpus, builds, queries, rows, snaps = [], [], [], [], [], []
        assert hub.sql is not None
        for i in range(rounds + 2):
            cpu0, t0 = time.process_time(), time.perf_counter()
            await hub.mgm.poll_once()
            sample = await hub.sql.poll_once()
            hub.changed()
            b0 = time.perf_counter()
            snap = hub.snapshot()
            b1 = time.perf_counter()
            if i >= 2:
                walls.append((b1 - t0) * 1000)
                cpus.append((time.process_time() - cpu0) * 1000)
                builds.append((b1 - b0) * 1000)
                queries.append(sample.queries)
                rows.append(sample.rows)
                snaps.append(snap)
            await asyncio.sleep(0.5)
        render = await render_cost(snaps)
        await hub.stop()
    finally:
        sim.stop()
    return {
        "scenario": scenario,
        "threads": len(snap.ndbinfo.threads) if snap.ndbinfo else 0,
        "collect_wall_ms_median": statistics.median(walls),
        "collect_cpu_ms_median": statistics.median(cpus),
        "build_ms_median": statistics.median(builds),
        "ndbinfo_queries_per_refresh_max": max(queries),
        "ndbinfo_rows_per_refresh_median": statistics.median(rows),
        **render,
    }


async def render_cost(snaps: list[Any]) -> dict[str, Any]:
    """CPU to draw successive snapshots into the Nodes and the Threads view (120x40).

    Each view is shown the collected snapshots in turn, as the live view is at every
    refresh; the time is this process's CPU time for ``show()`` and the repaint that
    follows it, so that the pilot's waits for idleness are not counted.
    """
    from ndbtop.actions.audit import AuditLog
    from ndbtop.mgm.connectstring import parse_connectstring
    from ndbtop.tui.app import NdbtopApp
    from ndbtop.tui.source import FrozenSource

    source = FrozenSource(snaps[0], parse_connectstring("127.0.0.1:1"))

    async def start() -> FrozenSource:
        return source

    app = NdbtopApp(start, audit=AuditLog(Path("/tmp/ndbtop-bench-audit.log")))
    out: dict[str, Any] = {}
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        for view, key in (("nodes", "1"), ("threads", "2")):
            await pilot.press(key)
            await pilot.pause()
            times = []
            for snap in snaps * 2:
                t0 = time.process_time()
                app.current_view.show(snap, snap.wall)
                await pilot.pause()
                times.append((time.process_time() - t0) * 1000)
            out[f"render_{view}_ms_median"] = statistics.median(times)
    return out


async def recording_cost(scenario: str, rounds: int) -> dict[str, Any]:
    """The flight recorder on ``scenario``: CPU to write a key frame and a delta, bytes on
    disk per snapshot, and the reader's CPU to open the file, to seek back to a snapshot
    (rebuilt from its key frame) and to move one snapshot on."""
    import tempfile

    from ndbtop.collect.hub import Hub
    from ndbtop.mgm.connectstring import parse_connectstring
    from ndbtop.model.clock import RealClock
    from ndbtop.ndbinfo.collector import NdbinfoCollector
    from ndbtop.ndbinfo.options import MysqlOptions
    from ndbtop.record.reader import read_recording
    from ndbtop.record.recorder import Recorder

    sim = SimProcess(scenario)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.ndbrec"
        try:
            options = MysqlOptions(host="127.0.0.1", port=sim.sql_port, user="root", password="")
            hub = Hub(parse_connectstring(f"127.0.0.1:{sim.mgm_port}"), RealClock(), 1.0,
                      ndbinfo=(NdbinfoCollector(options), "bench"), events=False)
            assert hub.sql is not None
            recorder = Recorder(path)
            writes = []
            for _ in range(rounds):
                await hub.mgm.poll_once()
                await hub.sql.poll_once()
                hub.changed()
                snap = hub.snapshot()
                cpu0 = time.process_time()
                recorder.write(snap)
                writes.append((time.process_time() - cpu0) * 1000)
                await asyncio.sleep(0.5)
            recorder.close()
            await hub.stop()
        finally:
            sim.stop()
        size = path.stat().st_size
        cpu0 = time.process_time()
        recording = read_recording(path)
        opened = time.process_time() - cpu0
        recording.snapshot(rounds - 1)
        cpu0 = time.process_time()
        recording.snapshot(rounds // 2)
        seek = time.process_time() - cpu0
        cpu0 = time.process_time()
        recording.snapshot(rounds // 2 + 1)
        step = time.process_time() - cpu0
    return {
        "scenario": scenario,
        "snapshots": rounds,
        "key_frame_write_cpu_ms": writes[0],
        "delta_write_cpu_ms_median": statistics.median(writes[1:]),
        "bytes_per_snapshot": size / rounds,
        "open_ms": opened * 1000,
        "seek_ms": seek * 1000,
        "step_ms": step * 1000,
    }


TEXT_PANELS = ("disk_page_buffer", "disk_stat", "log_spaces", "log_buffers", "memory")
"""The panels whose reads :func:`ndbinfo_read_cost` times one by one."""


def ndbinfo_read_cost(scenario: str, reads: int = 60, samples: int = 60) -> dict[str, Any]:
    """Client CPU (this thread's) of the ``ndbinfo`` collector on ``scenario``.

    Each panel of :data:`TEXT_PANELS`: the median of ``reads`` reads one after the other,
    each one decoded and parsed in full (what a read costs when its rows changed since
    the last), and again when they read as at the last read (``same_read``: back to
    back, most rows have not changed). Then the mean CPU of ``samples`` refreshes one
    second apart while nothing wants the per-thread CPU, as the Nodes view does (the disk
    page buffer and one slow-tier query, cpustat one time in 30).
    """
    from ndbtop.ndbinfo import queries as q
    from ndbtop.ndbinfo.collector import NdbinfoCollector
    from ndbtop.ndbinfo.options import MysqlOptions
    from ndbtop.ndbinfo.statements import Tally

    sim = SimProcess(scenario)
    try:
        collector = NdbinfoCollector(
            MysqlOptions(host="127.0.0.1", port=sim.sql_port, user="root")
        )
        collector.connect()
        collector.threads_wanted = False
        by_panel = {query.panel: query for query in vars(q).values()
                    if isinstance(query, q.Query) and query.panel in TEXT_PANELS}
        out: dict[str, Any] = {"scenario": scenario}
        for panel in TEXT_PANELS:
            for changed in (True, False):
                times = []
                for _ in range(reads + 2):
                    if changed:
                        getattr(collector, "_rows_read", {}).clear()
                    t0 = time.thread_time()
                    collector._read_panel(by_panel[panel], Tally())
                    times.append((time.thread_time() - t0) * 1000)
                kind = "read" if changed else "same_read"
                out[f"{panel}_{kind}_cpu_ms_median"] = statistics.median(times[2:])
        cpus, queries = [], []
        for _ in range(samples):
            time.sleep(1.0)
            t0 = time.thread_time()
            sample = collector.sample()
            cpus.append((time.thread_time() - t0) * 1000)
            queries.append(sample.queries)
        collector.close()
    finally:
        sim.stop()
    out["sample_cpu_ms_mean"] = statistics.mean(cpus)
    out["queries_per_sample_max"] = max(queries)
    return out


if __name__ == "__main__":
    print(json.dumps(ndbinfo_read_cost(sys.argv[1] if len(sys.argv) > 1 else "max"), indent=1))
