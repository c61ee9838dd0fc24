"""ndbtop benchmarks against the simulator's ``large`` and ``max`` scenarios.

Run with ``.venv/bin/python bench/run.py`` (``--quick`` shortens the long runs).
The simulated cluster runs in its own process so that only ndbtop's own costs
are measured; the live view runs in a pseudo-terminal of 120x40. Results are
printed as a table and written as JSON (``--json FILE``).
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import json
import os
import platform
import pty
import select
import socket
import statistics
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Any

import psutil

ROOT = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

TARGETS = {
    "collect_ms": 30.0,
    "render_ms": 20.0,
    "cpu_pct": 5.0,
    "startup_s": 1.5,
    "rss_mb": 150.0,
    "mgm_requests": 1.0,
    "ndbinfo_queries": 4.0,
    "output_kb_s": 4.0,
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class SimProcess:
    """``ndbtop sim`` in its own process."""

    def __init__(self, scenario: str, speed: float = 1.0) -> None:
        self.mgm_port = free_port()
        self.sql_port = free_port()
        self.proc = subprocess.Popen(
            [PYTHON, "-m", "ndbtop", "sim", "--scenario", scenario, "--speed", str(speed),
             "--mgm-port", str(self.mgm_port), "--sql-port", str(self.sql_port)],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        )
        deadline = time.monotonic() + 30
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if line.startswith("Ctrl-C"):
                return
        raise RuntimeError("the simulator did not start")

    @property
    def args(self) -> list[str]:
        return ["-c", f"127.0.0.1:{self.mgm_port}", "--mysql-host", "127.0.0.1",
                "--mysql-port", str(self.sql_port), "--mysql-user", "root", "--no-host"]

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


class Terminal:
    """ndbtop in a 120x40 pseudo-terminal: its CPU, memory and every byte it draws."""

    def __init__(self, argv: list[str], cols: int = 120, rows: int = 40) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(cols), LINES=str(rows),
                   XDG_STATE_HOME="/tmp/ndbtop-bench-state")
        self.started = time.monotonic()
        self.proc = subprocess.Popen([PYTHON, "-m", "ndbtop", *argv], cwd=ROOT, stdin=slave,
                                     stdout=slave, stderr=slave, env=env, close_fds=True)
        os.close(slave)
        self.ps = psutil.Process(self.proc.pid)
        self.output = bytearray()
        self.total_bytes = 0

    def pump(self, seconds: float) -> None:
        """Read what the program draws for ``seconds``."""
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            ready, _, _ = select.select([self.master], [], [], min(left, 0.1))
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    return
                self.total_bytes += len(chunk)
                self.output += chunk
                if len(self.output) > 2_000_000:
                    del self.output[:1_000_000]

    def wait_for(self, marker: bytes, timeout: float) -> float | None:
        """Seconds from start until ``marker`` was drawn (None on timeout)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            self.pump(0.02)
            if marker in self.output:
                return time.monotonic() - self.started
        return None

    def press(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def cpu_seconds(self) -> float:
        t = self.ps.cpu_times()
        return t.user + t.system

    def rss_mb(self) -> float:
        return self.ps.memory_info().rss / 1024 / 1024

    def stop(self) -> None:
        self.press("q")
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self.master)


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
            hub._changed()
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
                hub._changed()
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


def steady_state(scenario: str, seconds: float) -> dict[str, Any]:
    """CPU and terminal output of the live view on ``scenario``; Nodes then Threads."""
    sim = SimProcess(scenario)
    term = Terminal(sim.args)
    try:
        term.wait_for(b"data nodes started", 30)
        term.pump(5)
        cpu0, bytes0, t0 = term.cpu_seconds(), term.total_bytes, time.monotonic()
        term.pump(seconds / 2)
        term.press("2")
        term.pump(seconds / 2)
        elapsed = time.monotonic() - t0
        cpu = term.cpu_seconds() - cpu0
        sent = term.total_bytes - bytes0
        return {"scenario": scenario, "seconds": round(elapsed, 1),
                "cpu_pct": 100 * cpu / elapsed, "output_kb_s": sent / elapsed / 1024,
                "rss_mb": term.rss_mb()}
    finally:
        term.stop()
        sim.stop()


def startup() -> dict[str, Any]:
    """Seconds from ``ndbtop demo`` to the first screen drawn from the management server's
    answer: every node of the cluster listed with its state (``mgm 0s`` in the header).

    The package's bytecode is compiled first, as ``pip install`` does, so that every
    run measures what an installed ndbtop does rather than compiling its sources.
    """
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(ROOT / "ndbtop")], check=True)
    times = []
    for _ in range(5):
        term = Terminal(["demo"])
        try:
            seen = term.wait_for(b"mgm 0s", 20)
            times.append(seen if seen is not None else float("inf"))
        finally:
            term.stop()
    return {"startup_s_median": statistics.median(times), "startup_s_all": times}


def memory_growth(scenario: str, seconds: float) -> dict[str, Any]:
    """RSS of the live view over ``seconds`` on ``scenario`` (peak and growth).

    The history behind the sparklines fills during its first ``HISTORY_POINTS``
    refreshes; growth is measured after that (when the run is long enough), as
    the mean RSS of the last third of the rest minus that of its first third.
    """
    from ndbtop.collect.hub import HISTORY_POINTS

    sim = SimProcess(scenario)
    term = Terminal(sim.args)
    samples: list[tuple[float, float]] = []
    try:
        term.wait_for(b"data nodes started", 30)
        term.press("2")
        start = time.monotonic()
        end = start + seconds
        while time.monotonic() < end:
            term.pump(min(10.0, end - time.monotonic()))
            samples.append((time.monotonic() - start, term.rss_mb()))
    finally:
        term.stop()
        sim.stop()
    fill = HISTORY_POINTS * 1.25
    settled = [rss for at, rss in samples if at >= fill] if seconds >= 3 * fill else []
    window = settled or [rss for _, rss in samples]
    third = max(len(window) // 3, 1)
    return {"scenario": scenario, "seconds": seconds,
            "rss_peak_mb": max(rss for _, rss in samples),
            "growth_from_s": fill if settled else 0.0,
            "rss_first_third_mb": statistics.mean(window[:third]),
            "rss_last_third_mb": statistics.mean(window[-third:])}


async def cluster_load(scenario: str, rounds: int) -> dict[str, Any]:
    """Requests ndbtop's refreshes put on the management server and the SQL node, and the
    ``ndbinfo`` rows the data nodes return for them (whatever the SQL node makes of them)."""
    from ndbtop.cli.scenario import make_simulator
    from ndbtop.demo.hub import demo_hub

    args = argparse.Namespace(scenario=scenario, seed=1, fast_redo=False, ndb_version=None,
                              speed=1.0, at=0.0)
    sim = make_simulator(args)
    await sim.start()
    hub = demo_hub(sim, 1.0, events=False)
    assert hub.sql is not None
    await hub.mgm.poll_once()
    await hub.sql.poll_once()
    mgm0 = sum(s.requests for s in sim.mgmds.values())
    sql0 = sim.sql_server.stats.statements
    rows0 = sim.sql_server.stats.rows_scanned
    for _ in range(rounds):
        await hub.mgm.poll_once()
        await hub.sql.poll_once()
    mgm = (sum(s.requests for s in sim.mgmds.values()) - mgm0) / rounds
    sql = (sim.sql_server.stats.statements - sql0) / rounds
    rows = (sim.sql_server.stats.rows_scanned - rows0) / rounds
    await hub.stop()
    await sim.close()
    return {"scenario": scenario, "mgm_requests_per_refresh": mgm,
            "ndbinfo_queries_per_refresh": sql, "ndbinfo_rows_per_refresh": rows}


async def status_parse(rounds: int) -> dict[str, Any]:
    """``get status`` of the 255-node ``max`` scenario: client call vs raw socket read."""
    from ndbtop.cli.scenario import make_simulator
    from ndbtop.mgm.client import MgmClient
    from ndbtop.mgm.connectstring import parse_connectstring

    args = argparse.Namespace(scenario="max", seed=1, fast_redo=False, ndb_version=None,
                              speed=1.0, at=0.0)
    sim = make_simulator(args)
    await sim.start(sql_port=None)
    port = next(iter(sim.mgmds.values())).port
    client = MgmClient(parse_connectstring(f"127.0.0.1:{port}"))
    nodes = await client.get_status()
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    raw, parsed = [], []
    size = 0
    for _ in range(rounds):
        t0 = time.perf_counter()
        writer.write(b"get status\n\n")
        data = await reader.readuntil(b"\n\n")
        raw.append(time.perf_counter() - t0)
        size = len(data)
        t0 = time.perf_counter()
        await client.get_status()
        parsed.append(time.perf_counter() - t0)
    writer.close()
    await client.close()
    await sim.close()
    return {"nodes": len(nodes), "reply_bytes": size,
            "raw_read_ms_median": statistics.median(raw) * 1000,
            "client_get_status_ms_median": statistics.median(parsed) * 1000,
            "ratio": statistics.median(parsed) / statistics.median(raw)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="short runs (CPU 20 s, RSS 60 s)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON")
    args = parser.parse_args()
    cpu_seconds = 20 if args.quick else 60
    rss_seconds = 60 if args.quick else 600
    results: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(),
                    "cpu_model": _cpu_model()},
    }
    print("refresh cost ...", flush=True)
    results["refresh_large"] = asyncio.run(refresh_cost("large", 15))
    results["refresh_max"] = asyncio.run(refresh_cost("max", 8))
    print("cluster load ...", flush=True)
    results["load_large"] = asyncio.run(cluster_load("large", 12))
    print("get status 255 nodes ...", flush=True)
    results["status_255"] = asyncio.run(status_parse(50))
    print("recording ...", flush=True)
    results["recording_large"] = asyncio.run(recording_cost("large", 30))
    print("start-up ...", flush=True)
    results["startup"] = startup()
    print(f"steady state {cpu_seconds} s ...", flush=True)
    results["steady_large"] = steady_state("large", cpu_seconds)
    print(f"memory over {rss_seconds} s ...", flush=True)
    results["memory_large"] = memory_growth("large", rss_seconds)
    print_table(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def print_table(r: dict[str, Any]) -> None:
    rows = [
        ("1 collect, large (wall, both sources)", r["refresh_large"]["collect_wall_ms_median"],
         "ms", None),
        ("1 collect, large (ndbtop CPU)", r["refresh_large"]["collect_cpu_ms_median"], "ms",
         TARGETS["collect_ms"]),
        ("1 render Nodes, large", r["refresh_large"]["render_nodes_ms_median"], "ms",
         TARGETS["render_ms"]),
        ("1 render Threads, large", r["refresh_large"]["render_threads_ms_median"], "ms",
         TARGETS["render_ms"]),
        ("1 collect, max (ndbtop CPU)", r["refresh_max"]["collect_cpu_ms_median"], "ms", None),
        ("2 CPU at 1 s refresh, large", r["steady_large"]["cpu_pct"], "% core",
         TARGETS["cpu_pct"]),
        ("3 start-up of ndbtop demo", r["startup"]["startup_s_median"], "s",
         TARGETS["startup_s"]),
        ("4 peak RSS, large", r["memory_large"]["rss_peak_mb"], "MB", TARGETS["rss_mb"]),
        ("4 RSS growth once history is full", r["memory_large"]["rss_last_third_mb"]
         - r["memory_large"]["rss_first_third_mb"], "MB", None),
        ("5 mgm requests per refresh", r["load_large"]["mgm_requests_per_refresh"], "",
         TARGETS["mgm_requests"]),
        ("5 ndbinfo queries per refresh", r["load_large"]["ndbinfo_queries_per_refresh"], "",
         TARGETS["ndbinfo_queries"]),
        ("5 ndbinfo rows scanned per refresh", r["load_large"]["ndbinfo_rows_per_refresh"], "",
         None),
        ("6 terminal output, large", r["steady_large"]["output_kb_s"], "KB/s",
         TARGETS["output_kb_s"]),
        ("7 get status 255 nodes, client/raw", r["status_255"]["ratio"], "x", None),
        ("8 record a delta, large (CPU)", r["recording_large"]["delta_write_cpu_ms_median"],
         "ms", None),
        ("8 record a key frame, large (CPU)", r["recording_large"]["key_frame_write_cpu_ms"],
         "ms", None),
        ("8 recording on disk per snapshot", r["recording_large"]["bytes_per_snapshot"] / 1024,
         "KB", None),
        ("8 replay one step, large (CPU)", r["recording_large"]["step_ms"], "ms", None),
    ]
    print(f"{'measure':40} {'value':>10} {'unit':7} {'target':>8}  ok")
    for name, value, unit, target in rows:
        ok = "" if target is None else ("yes" if value <= target else "NO")
        shown = "-" if target is None else f"{target:g}"
        print(f"{name:40} {value:10.2f} {unit:7} {shown:>8}  {ok}")


if __name__ == "__main__":
    sys.exit(main())
