"""What the fleet overview costs: ``ndbtop fleet`` watching 20 clusters at a 2 s refresh.

The clusters are ``demo --fleet``'s three (prod in a rolling restart, dr, staging), in
turn, 20 simulators served by one helper process (management servers only: the overview
reads nothing else). ``ndbtop fleet`` runs in a 120x40 pseudo-terminal with a
clusters.toml naming the 20; after a warm-up its CPU time is measured over the run,
with the bytes it drew. The target: at most 3% of a core.

    .venv/bin/python bench/fleet_cost.py [--clusters 20] [--seconds 60] [--json FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import PYTHON, ROOT, Terminal

TARGET = 3.0
"""Percent of a core the overview of 20 clusters may use."""


async def serve(count: int) -> None:
    """Run ``count`` simulated clusters (management servers only) and print their connect
    strings, one a line, then ``ready``; stop on end of input."""
    from ndbtop.sim.clock import SimClock
    from ndbtop.sim.runtime import Simulator
    from ndbtop.sim.scenarios import ScenarioOptions
    from ndbtop.sim.scenarios.fleet import BUILDERS

    kinds = list(BUILDERS)
    sims = []
    for i in range(count):
        cluster = BUILDERS[kinds[i % len(kinds)]](ScenarioOptions(seed=i + 1))
        sim = Simulator(cluster, SimClock(speed=1.0))
        await sim.start(sql_port=None)
        sims.append(sim)
        print(sim.connectstring, flush=True)
    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)
    for sim in sims:
        await sim.close()


def measure(count: int, seconds: float, warmup: float = 10.0) -> dict[str, Any]:
    """``ndbtop fleet`` over ``count`` clusters: CPU per cent of a core and bytes drawn."""
    helper = subprocess.Popen([PYTHON, __file__, "--serve", str(count)], cwd=ROOT,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert helper.stdout is not None and helper.stdin is not None
    connect = []
    for line in helper.stdout:
        if line.strip() == "ready":
            break
        connect.append(line.strip())
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "ndbtop"
        config.mkdir(mode=0o700)
        path = config / "clusters.toml"
        path.write_text("".join(f'[c{i:02d}]\nconnectstring = "{cs}"\n'
                                for i, cs in enumerate(connect, 1)))
        path.chmod(0o600)
        os.environ["XDG_CONFIG_HOME"] = tmp
        term = Terminal(["fleet", "--interval", "2"])
        try:
            shown = term.wait_for(f"{count} clusters".encode(), 30)
            if shown is None:
                raise RuntimeError("the overview did not show every cluster")
            term.pump(warmup)
            cpu0, bytes0, t0 = term.cpu_seconds(), term.total_bytes, time.monotonic()
            term.pump(seconds)
            cpu, drawn = term.cpu_seconds() - cpu0, term.total_bytes - bytes0
            elapsed = time.monotonic() - t0
            rss = term.rss_mb()
        finally:
            term.stop()
            helper.stdin.close()
            helper.wait(30)
    return {
        "clusters": count, "interval_s": 2.0, "seconds": round(elapsed, 1),
        "first_screen_s": round(shown, 2),
        "cpu_percent": round(100 * cpu / elapsed, 2),
        "bytes_per_s": round(drawn / elapsed),
        "rss_mb": round(rss, 1),
        "load_1min": os.getloadavg()[0],
        "target_percent": TARGET,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clusters", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.serve))
        return 0
    result = measure(args.clusters, args.seconds)
    print(json.dumps(result, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2))
    return 0 if result["cpu_percent"] <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
