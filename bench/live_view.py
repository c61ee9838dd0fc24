"""The live view as a user runs it: CPU and terminal output at a steady refresh, start-up,
memory over time."""

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
            "rss_last_third_mb": statistics.mean(window[-third:]),
            "rss_by_minute_mb": [round(rss, 1) for at, rss in samples if at % 60 < 10]}
