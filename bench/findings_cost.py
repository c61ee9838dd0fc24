"""CPU time of evaluating every findings rule on one snapshot of a large simulated cluster.

    python bench/findings_cost.py [--scenario max] [--repeat 200] [--events 2000]

The snapshot is captured from the simulator (as the demo's screenshots are); the figure is
the median and the 95th percentile of ``evaluate(snapshot)`` over ``--repeat`` runs, in ms
of process CPU time: "steady" as at a refresh that re-read no table the rules scan (their
rows are the very objects of the last refresh), "cold" as at one that re-read them all.
``--events N`` fills the event history with N events (the hub keeps 2,000) in the mix of a
cluster log with CLUSTERLOG STATISTICS=15: mostly the statistics every node reports every
few seconds, with checkpoints and texts among them, none of them a finding.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from dataclasses import replace

from ndbtop.demo.capture import CaptureSpec, capture
from ndbtop.findings import evaluate
from ndbtop.findings.engine import forget
from ndbtop.mgm.event_stream import EventStreamParser
from ndbtop.mgm.events.decode import Event, decode_event
from ndbtop.mgm.events.encode import encode_parsable
from ndbtop.mgm.events.text import pack_string
from ndbtop.mgm.wire import ENCODING, RawEvent


def history(count: int, wall: float) -> tuple[Event, ...]:
    """``count`` events over the last ``count`` seconds: in every 20, TransReportCounters (35)
    and OperationReportCounters (36) four times each, JobStatistic (39) three times,
    SendBytesStatistic and ReceiveBytesStatistic (40, 41) four times each, then one of
    LocalCheckpointStarted or Completed (6, 7) and an InfoEvent (49)."""
    stats = [(35, tuple(range(1, 11))), (36, (4000,)), (39, (30,)), (40, (3, 800)),
             (41, (3, 760))]
    kinds = [k for k in stats for _ in range(4)][:19]
    out = []
    for i in range(count):
        if i % 20 < 19:
            event_type, words = kinds[i % 20]
        elif i % 80 == 19:
            event_type, words = 6, (i, 880, 890)
        elif i % 80 == 39:
            event_type, words = 7, (i - 20,)
        else:
            event_type, words = 49, pack_string("LDM(1): Completed LCP, #frags = 12")
        parser = EventStreamParser()
        raw = None
        block = encode_parsable(event_type, 2 + i % 48, words).decode(ENCODING)
        for line in block.split("\n"):
            item = parser.feed(line)
            if isinstance(item, RawEvent):
                raw = item
        assert raw is not None
        out.append(decode_event(raw, wall - count + i))
    return tuple(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default="max")
    parser.add_argument("--at", type=float, default=30.0)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--events", type=int, default=0)
    args = parser.parse_args()
    snap = asyncio.run(capture(CaptureSpec(args.scenario, args.at, samples=5))).snapshot
    if args.events:
        snap = replace(snap, events=history(args.events, snap.wall))
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
