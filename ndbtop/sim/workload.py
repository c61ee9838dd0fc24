"""The client workload a simulated cluster carries, and the CPU it costs each thread."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable
from dataclasses import dataclass, field

from ndbtop.sim.threads import ThreadSpec

# Microseconds of thread time per operation (or per transaction for main).
_COST_US = {
    "ldm": 20.0,
    "query": 8.0,
    "tc": 10.0,
    "recv": 4.0,
    "send": 3.0,
    "main": 1.0,
    "rep": 0.5,
}
_BASE_PCT = {"main": 3.0, "rep": 1.0, "ldm": 4.0, "query": 2.0, "tc": 3.0, "recv": 3.0, "send": 2.0}

# Thread load while a starting node is busy with one activity, per thread type.
_ACTIVITY_PCT: dict[str, dict[str, float]] = {
    "memory": {"main": 97.0},
    "restore": {"ldm": 88.0, "main": 12.0},
    "redo": {"ldm": 72.0, "main": 10.0},
    "index_rebuild": {"ldm": 95.0, "query": 60.0, "main": 8.0},
    "copy": {"ldm": 45.0, "recv": 30.0, "tc": 10.0},
    "redo_init": {"ldm": 3.0, "main": 2.0},
}


@dataclass
class Workload:
    """What clients are doing: transactions per second and how they spread.

    ``hot`` adds load to single threads ((node id, thr_no) -> extra percent),
    ``reorg`` puts every LDM thread of every started node under data
    reorganisation, ``hit_ratio`` gives a node's disk page buffer hit ratio
    (percent) from the seconds since that node started.
    """

    tps: float = 0.0
    ops_per_txn: float = 5.0
    read_share: float = 0.7
    page_requests_per_txn: float = 0.0
    hot: dict[tuple[int, int], float] = field(default_factory=dict)
    reorg: bool = False
    reorg_pct: float = 70.0
    hit_ratio: Callable[[int, float], float] | None = None


def noise(seed: int, *key: int) -> float:
    """A deterministic value in [-1, 1) for a seed and an integer key."""
    digest = hashlib.blake2b(struct.pack(f"<{len(key) + 1}q", seed, *key), digest_size=8).digest()
    return struct.unpack("<Q", digest)[0] / 2**63 - 1.0


def thread_load(
    spec: ThreadSpec,
    counts: dict[str, int],
    node_tps: float,
    workload: Workload,
    activity: str,
    started: bool,
) -> float:
    """Percent of one CPU this thread uses, before noise."""
    name = spec.name
    pct = _BASE_PCT.get(name, 2.0)
    if started and node_tps > 0:
        ops = node_tps * workload.ops_per_txn
        per = ops if name in ("main", "rep") else ops / max(counts.get(name, 1), 1)
        if name == "main" and counts.get("tc", 0) == 0:
            per += node_tps * workload.ops_per_txn * _COST_US["tc"] / _COST_US["main"]
        if name == "ldm" and counts.get("query", 0):
            per *= 1.0 - 0.4 * workload.read_share
        pct += per * _COST_US.get(name, 1.0) / 10_000.0
    if activity:
        pct = max(pct, _ACTIVITY_PCT.get(activity, {}).get(name, pct))
    if started and workload.reorg and name in ("ldm", "query"):
        pct += workload.reorg_pct
    return pct
