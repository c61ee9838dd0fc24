"""Event-to-screen latency of the live view: a node's change, told by the cluster's events,
on the Nodes view without waiting for the next ``get status``.

ndbtop runs in a 120x40 tmux pane at a 1 s refresh. At random moments (so they fall
anywhere between two refreshes) a data node shown STARTED is restarted through the
management server with ``-n`` (``restart node v2``, as ``ndb_mgm`` sends ``N RESTART -n``),
and the pane is read every couple of milliseconds until that node's row leaves STARTED.
The node then stays NOT_STARTED: one node per node group, each once the one before has
stopped, so no restart is refused (5063 while a node stops, or a group's last node).
"""

from __future__ import annotations

import asyncio
import random
import re
import statistics
import threading
import time
from typing import Any

from harness import SimProcess
from key_latency import _percentile
from peer import ndbtop_pane

from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring

POLL_S = 0.002
TIMEOUT_S = 5.0
_STARTED_ROW = re.compile(r"^ (\d+)\s+NDB\s+\S+\s+STARTED\s+(\d+)\s", re.MULTILINE)
_NODES_VIEW = "data nodes started"


def _status(screen: str, node_id: int) -> str | None:
    found = re.search(rf"^ {node_id}\s+NDB\s+\S+\s+(\S+)", screen, re.MULTILINE)
    return found.group(1) if found else None


def _stopped(pane: Any, node_id: int, seconds: float = 60.0) -> bool:
    """Wait until ``node_id`` is NOT_STARTED on screen (its stop is over)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if _status(pane.screen(), node_id) == "NOT_STARTED":
            return True
        time.sleep(0.05)
    return False


def event_latency(scenario: str = "max", samples: int = 20, seed: int = 1) -> dict[str, Any]:
    """p50/p95/max milliseconds from a node restart asked to its row leaving STARTED."""
    rng = random.Random(seed)
    sim = SimProcess(scenario)
    pane = ndbtop_pane(sim, f"events-{scenario}")
    loop = asyncio.new_event_loop()
    client = MgmClient(parse_connectstring(f"127.0.0.1:{sim.mgm_port}"))
    took: list[float] = []
    missed = 0
    try:
        pane.control()
        if not pane.wait_for(_NODES_VIEW, 60):
            raise RuntimeError("the live view did not show the cluster")
        time.sleep(3)
        groups: dict[str, int] = {}
        for node, group in _STARTED_ROW.findall(pane.screen()):
            groups.setdefault(group, int(node))
        for node_id in list(groups.values())[:samples]:
            time.sleep(rng.uniform(0.15, 0.85))
            # The reply comes once the node has stopped: it is awaited beside the screen.
            sent = threading.Thread(target=loop.run_until_complete,
                                    args=(client.restart_nodes([node_id], nostart=True),))
            t0 = time.perf_counter()
            sent.start()
            while (elapsed := time.perf_counter() - t0) < TIMEOUT_S:
                if _status(pane.screen(), node_id) not in (None, "STARTED"):
                    took.append(elapsed * 1000)
                    break
                time.sleep(POLL_S)
            else:
                missed += 1
            sent.join(60)
            if not _stopped(pane, node_id):
                break
    finally:
        loop.run_until_complete(client.close())
        loop.close()
        pane.stop()
        sim.stop()
    every = sorted(took)
    return {
        "scenario": scenario, "events": len(every), "missed": missed,
        "p50_ms": statistics.median(every) if every else float("nan"),
        "p95_ms": _percentile(every, 95), "max_ms": every[-1] if every else float("nan"),
    }


if __name__ == "__main__":
    import json
    import sys

    for name in sys.argv[1:] or ("large", "max"):
        print(json.dumps(event_latency(name)), flush=True)
