"""CPU time of evaluating every findings rule on one snapshot of a large simulated cluster.

    python bench/findings_cost.py [--scenario max] [--repeat 200]

The snapshot is captured from the simulator (as the demo's screenshots are); the figure is
the median and the 95th percentile of ``evaluate(snapshot)`` over ``--repeat`` runs, in ms
of process CPU time: "steady" as at a refresh that re-read no table the rules scan (their
rows are the very objects of the last refresh), "cold" as at one that re-read them all.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from ndbtop.demo.capture import CaptureSpec, capture
from ndbtop.findings import evaluate
from ndbtop.findings.engine import forget


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default="max")
    parser.add_argument("--at", type=float, default=30.0)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    snap = asyncio.run(capture(CaptureSpec(args.scenario, args.at, samples=5))).snapshot
    threads = len(snap.ndbinfo.threads) if snap.ndbinfo else 0
    found = evaluate(snap)
    line = (f"{args.scenario}: {len(snap.data_nodes())} data nodes, {threads} threads, "
            f"{len(snap.events)} events, {len(found)} findings; evaluate:")
    for name, cold in (("steady", False), ("cold", True)):
        costs = []
        for _ in range(args.repeat):
            if cold:
                forget()
            began = time.process_time()
            evaluate(snap)
            costs.append((time.process_time() - began) * 1000)
        costs.sort()
        p95 = costs[int(len(costs) * 0.95) - 1]
        line += f" {name} median {statistics.median(costs):.2f} ms, p95 {p95:.2f} ms;"
    print(line.rstrip(";") + " (CPU)")


if __name__ == "__main__":
    main()
