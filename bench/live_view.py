"""The live view as a user runs it: CPU and terminal output at a steady refresh, start-up
(memory over time: memory_run.py)."""

from __future__ import annotations

import statistics
import subprocess
import time
from typing import Any

from harness import PYTHON, ROOT, SimProcess, Terminal


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
