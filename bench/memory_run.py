"""The live view's memory over a long run, with the data node hosts read over SSH or not.

``../.venv/bin/python memory_run.py --scenario max --ssh --seconds 1800`` runs the live
view (Threads view) in a 120x40 pseudo-terminal against the simulator and prints one
JSON object: RSS every 10 s and by minute, peak, growth once the sparklines' history is
full, and the CPU ndbtop took. With ``--ssh`` the simulator reports each data node at
its own loopback address (127.0.2.1 up, one per data node), private sshd instances
serve them, and ndbtop reads every host through a long-lived ``ssh`` process; the run
is measured from the moment every host is connected, and reports the ssh processes
still alive at the end and any host not connected. Every run has its own ports, sshd
directory and state directory, so that several can run at once.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import psutil
from harness import SimProcess, Terminal
from sshd import Sshds, loopback_hosts

SAMPLE_EVERY = 10.0
CONNECT_TIMEOUT = 300.0
_HOSTS_SHOWN = re.compile(rb"ssh hosts (\d+)/(\d+)")


def data_node_count(scenario: str) -> int:
    """How many data nodes ``scenario`` has."""
    from ndbtop.sim.scenarios import build_scenario

    return len(build_scenario(scenario).config.data_nodes)


def _ssh_children(term: Terminal) -> list[psutil.Process]:
    try:
        kids = term.ps.children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    out = []
    for k in kids:
        try:
            if k.name() == "ssh":
                out.append(k)
        except psutil.NoSuchProcess:
            pass
    return out


def _shown(output: bytes) -> tuple[int, int] | None:
    """The last ``ssh hosts N/M`` the header drew."""
    found = _HOSTS_SHOWN.findall(output[-200_000:])
    return (int(found[-1][0]), int(found[-1][1])) if found else None


def _wait_connected(term: Terminal, sshds: Sshds, timeout: float) -> float | None:
    """Seconds until the header shows every host read and sshd has a session from each."""
    want = (len(sshds.hosts), len(sshds.hosts))
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        term.pump(1.0)
        if _shown(term.output) == want and sshds.connected() == set(sshds.hosts):
            return time.monotonic() - start
    return None


def memory_growth(scenario: str, seconds: float, ssh: bool = False) -> dict[str, Any]:
    """RSS of the live view over ``seconds`` on ``scenario`` (peak and growth).

    The history behind the sparklines fills during its first ``HISTORY_POINTS``
    refreshes; growth is measured after that (when the run is long enough), as
    the mean RSS of the last third of the rest minus that of its first third.
    """
    from ndbtop.collect.hub import HISTORY_POINTS

    with tempfile.TemporaryDirectory(prefix="ndbtop-memory-") as d:
        work = Path(d)
        (work / "state").mkdir(mode=0o700)
        (work / "sshd").mkdir(mode=0o700)
        sshds = None
        extra: tuple[str, ...] = ()
        argv: list[str] = []
        if ssh:
            sshds = Sshds(loopback_hosts(data_node_count(scenario)), work / "sshd")
            config = sshds.start()
            extra = ("--data-node-hosts", ",".join(sshds.hosts))
            argv = ["--ssh", "--ssh-config", str(config)]
        sim = None
        term = None
        try:
            sim = SimProcess(scenario, extra=extra)
            term = Terminal(sim.args + argv, state_home=str(work / "state"))
            return _measure(term, sshds, scenario, seconds, HISTORY_POINTS)
        finally:
            _stop(term)
            if sim is not None:
                sim.stop()
            if sshds is not None:
                sshds.stop()


def _measure(term: Terminal, sshds: Sshds | None, scenario: str, seconds: float,
             history_points: int) -> dict[str, Any]:
    result: dict[str, Any] = {"scenario": scenario, "ssh": sshds is not None,
                              "seconds": seconds, "load_1min_start": os.getloadavg()[0]}
    started = term.wait_for(b"data nodes started", 60)
    if started is None:
        raise RuntimeError("the live view did not show the cluster within 60 s")
    term.press("2")
    if sshds is not None:
        waited = _wait_connected(term, sshds, CONNECT_TIMEOUT)
        result["hosts"] = len(sshds.hosts)
        result["connect_s"] = None if waited is None else round(waited, 1)
    samples: list[tuple[float, float]] = []
    ssh_pids: set[int] = set()
    cpu0 = term.cpu_seconds()
    start = time.monotonic()
    end = start + seconds
    while time.monotonic() < end:
        term.pump(min(SAMPLE_EVERY, end - time.monotonic()))
        if term.proc.poll() is not None:
            raise RuntimeError(f"ndbtop exited with {term.proc.returncode}")
        samples.append((time.monotonic() - start, term.rss_mb()))
        ssh_pids.update(k.pid for k in _ssh_children(term))
    elapsed = time.monotonic() - start
    cpu = term.cpu_seconds() - cpu0
    fill = history_points * 1.25
    settled = [rss for at, rss in samples if at >= fill] if seconds >= 3 * fill else []
    window = settled or [rss for _, rss in samples]
    third = max(len(window) // 3, 1)
    first, last = statistics.mean(window[:third]), statistics.mean(window[-third:])
    result.update({
        "rss_peak_mb": round(max(rss for _, rss in samples), 1),
        "growth_from_s": fill if settled else 0.0,
        "rss_first_third_mb": round(first, 2), "rss_last_third_mb": round(last, 2),
        "rss_growth_mb": round(last - first, 2),
        "rss_by_minute_mb": _by_minute(samples),
        "rss_every_10s_mb": [round(rss, 1) for _, rss in samples],
        "cpu_s": round(cpu, 1), "cpu_pct": round(100 * cpu / elapsed, 2),
        "load_1min_end": os.getloadavg()[0],
    })
    if sshds is not None:
        alive = _ssh_children(term)
        connected = sshds.connected()
        shown = _shown(term.output)
        result.update({
            "ssh_children_end": len(alive),
            "ssh_processes_seen": len(ssh_pids | {k.pid for k in alive}),
            "hosts_connected_end": len(connected),
            "hosts_not_connected": sorted(set(sshds.hosts) - connected,
                                          key=lambda h: tuple(map(int, h.split(".")))),
            "header_ssh_hosts": None if shown is None else f"{shown[0]}/{shown[1]}",
        })
    return result


def _by_minute(samples: list[tuple[float, float]]) -> list[float]:
    """The first sample, then the first one at or past each whole minute."""
    out = [round(samples[0][1], 1)]
    minute = 1
    for at, rss in samples:
        if at >= 60 * minute - 1:
            out.append(round(rss, 1))
            minute += 1
    return out


def _stop(term: Terminal | None) -> None:
    """Quit ndbtop, and end any ssh process it leaves behind."""
    if term is None:
        return
    kids = _ssh_children(term)
    term.stop()
    for k in kids:
        with contextlib.suppress(psutil.NoSuchProcess):
            k.terminate()
    psutil.wait_procs(kids, timeout=5)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", default="large", help="simulator scenario (default large)")
    ap.add_argument("--seconds", type=float, default=1800.0,
                    help="how long to measure once started (default 1800)")
    ap.add_argument("--ssh", action="store_true",
                    help="read every data node host over SSH (private sshds on 127.0.2.x)")
    args = ap.parse_args()
    print(json.dumps(memory_growth(args.scenario, args.seconds, args.ssh)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
