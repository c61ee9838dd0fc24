"""The live view's garbage collection: left to the thresholds the live view sets at its
start (``settle_memory`` in ``tui/launch.py``), against collections paced after each
refresh, as the live view did until this comparison (the youngest objects every refresh,
the older every tenth, all every 600th, no collection set off by allocations).

Each way runs the live view alone in a 120x40 tmux pane at a 1 s refresh, as the
comparison with Dolphie does (Nodes view), the ways taking turns so that the machine's
other work falls on each alike. Measured over the same window: the process's CPU as a
share of a core, the CPU its collections took (``gc.callbacks``, thread CPU time of the
collecting thread) and the longest collection, the pause a key waits behind. Run alone:
``.venv/bin/python bench/gc_cost.py max``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import PYTHON, ROOT, SimProcess
from peer import SETTLE_S
from tmux import TmuxPane

WAYS = ("paced", "thresholds")
"""``thresholds``: as the live view runs; ``paced``: collections after each refresh."""

_RUNNER = """
import gc, json, os, sys, threading, time
way, out = sys.argv[1], sys.argv[2]
if way == "paced":
    from ndbtop.tui.app import NdbtopApp
    refresh, mount, refreshes = NdbtopApp._refresh, NdbtopApp.on_mount, [0]
    def paced_refresh(self):
        refresh(self)
        refreshes[0] += 1
        gc.collect(2 if refreshes[0] % 600 == 0 else 1 if refreshes[0] % 10 == 0 else 0)
    async def paced_mount(self):
        await mount(self)
        gc.freeze()
        gc.set_threshold(0)
    NdbtopApp._refresh, NdbtopApp.on_mount = paced_refresh, paced_mount
stats = {"gc_cpu_s": 0.0, "collections": 0, "long": []}
started = {}
def measure(phase, info):
    me = threading.get_ident()
    if phase == "start":
        started[me] = time.thread_time()
        return
    took = time.thread_time() - started.pop(me, time.thread_time())
    stats["gc_cpu_s"] += took
    stats["collections"] += 1
    if took >= 0.001:
        stats["long"].append((time.monotonic(), took * 1000))
gc.callbacks.append(measure)
def report():
    while True:
        time.sleep(0.5)
        with open(out + ".new", "w") as f:
            json.dump(stats, f)
        os.replace(out + ".new", out)
threading.Thread(target=report, daemon=True).start()
sys.argv = ["ndbtop", *sys.argv[3:]]
from ndbtop.cli import main
sys.exit(main())
"""


def _stats(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.read_text()))


def window(scenario: str, way: str, seconds: float) -> dict[str, float]:
    """One turn of ``way`` on ``scenario``."""
    sim = SimProcess(scenario)
    with tempfile.TemporaryDirectory(prefix="ndbtop-bench-gc-") as tmp:
        out = Path(tmp) / "gc.json"
        env = {"TERM": "xterm-256color", "XDG_STATE_HOME": "/tmp/ndbtop-bench-state"}
        pane = TmuxPane([PYTHON, "-c", _RUNNER, way, str(out), *sim.args, "--interval", "1"],
                        env=env, cwd=ROOT, name=f"gc-{way}")
        try:
            time.sleep(SETTLE_S)
            before, cpu0, t0 = _stats(out), pane.cpu_seconds(), time.monotonic()
            time.sleep(seconds)
            after, cpu1, elapsed = _stats(out), pane.cpu_seconds(), time.monotonic() - t0
        finally:
            pane.stop()
            sim.stop()
    # Collections of 1 ms or more, those of the window (not the start-up's).
    pauses = [ms for at, ms in after["long"] if at >= t0] or [0.0]
    return {"cpu_pct": 100 * (cpu1 - cpu0) / elapsed,
            "gc_cpu_pct": 100 * (after["gc_cpu_s"] - before["gc_cpu_s"]) / elapsed,
            "collections_per_s": (after["collections"] - before["collections"]) / elapsed,
            "longest_ms": max(pauses), "over_5ms": sum(ms > 5 for ms in pauses)}


def compare(scenario: str, seconds: float, repeats: int) -> dict[str, Any]:
    """Every way, ``repeats`` turns each; medians and every turn, with the load average."""
    turns: dict[str, list[dict[str, float]]] = {way: [] for way in WAYS}
    loads = [os.getloadavg()[0]]
    for _ in range(repeats):
        for way in WAYS:
            turns[way].append(window(scenario, way, seconds))
            loads.append(os.getloadavg()[0])
    out: dict[str, Any] = {"scenario": scenario, "seconds": seconds, "load_1min": loads}
    for way, runs in turns.items():
        out[way] = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        out[way]["all"] = runs
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("scenario", nargs="?", default="max")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    result = compare(args.scenario, args.seconds, args.repeats)
    print(f"load average (1 min): {', '.join(f'{x:.1f}' for x in result['load_1min'])}")
    print(f"{'way':8} {'CPU %':>7} {'GC CPU %':>9} {'GC/s':>6} {'longest ms':>11} {'>5 ms':>6}")
    for way in WAYS:
        m = result[way]
        print(f"{way:8} {m['cpu_pct']:7.2f} {m['gc_cpu_pct']:9.3f} {m['collections_per_s']:6.1f} "
              f"{m['longest_ms']:11.1f} {m['over_5ms']:6.0f}")
        for r in m["all"]:
            print(f"  turn: CPU {r['cpu_pct']:.2f}%, GC {r['gc_cpu_pct']:.3f}%, "
                  f"longest {r['longest_ms']:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
