"""Key-to-screen latency of the live view while the data changes every second.

ndbtop runs in a 120x40 tmux pane at a 1 s refresh. Keys are typed with tmux's
``send-keys`` at random moments (so they fall anywhere between two refreshes), and the
pane is read with ``capture-pane`` every couple of milliseconds until it shows what the
key asked for: the next node selected (the Nodes view's detail panel, or the Threads
view's node line), or the other view. Both commands go through one control-mode client,
so no process is started between the key and the screen.
"""

from __future__ import annotations

import random
import re
import statistics
import time
from collections.abc import Callable
from typing import Any

from harness import SimProcess
from peer import ndbtop_pane
from tmux import TmuxPane

POLL_S = 0.002
TIMEOUT_S = 2.0
_NODES_DETAIL = re.compile(r"\bNode (\d+)\b")
_THREADS_NODE = re.compile(r"^ node (\d+): \d+ threads", re.MULTILINE)
_NODES_VIEW = "data nodes started"
_THREADS_VIEW = "threads (one cell each"


def _selected(pattern: re.Pattern[str]) -> Callable[[str], str | None]:
    def read(screen: str) -> str | None:
        found = pattern.search(screen)
        return found.group(1) if found else None
    return read


def _timed(pane: TmuxPane, key: str, done: Callable[[str], bool]) -> float | None:
    """Milliseconds from typing ``key`` until ``done`` holds for the screen (None: never)."""
    t0 = time.perf_counter()
    pane.send_keys(key)
    while (elapsed := time.perf_counter() - t0) < TIMEOUT_S:
        if done(pane.screen()):
            return elapsed * 1000
        time.sleep(POLL_S)
    return None


def key_latency(scenario: str = "max", seconds: float = 30.0, seed: int = 1) -> dict[str, Any]:
    """p50/p95/max key-to-screen milliseconds over ``seconds`` of typing on ``scenario``:
    cursor moves in the Nodes and the Threads view, and switches between the two."""
    rng = random.Random(seed)
    sim = SimProcess(scenario)
    pane = ndbtop_pane(sim, f"keys-{scenario}")
    moves: list[float] = []
    switches: list[float] = []
    missed = 0
    try:
        pane.control()
        if not pane.wait_for(_NODES_VIEW, 30):
            raise RuntimeError("the live view did not show the cluster")
        time.sleep(3)
        cycle = [("Down", _NODES_DETAIL)] * 3 + [("2", None)] \
            + [("Down", _THREADS_NODE)] * 3 + [("1", None)]
        end = time.monotonic() + seconds
        step = 0
        while time.monotonic() < end:
            key, pattern = cycle[step % len(cycle)]
            step += 1
            time.sleep(rng.uniform(0.15, 0.85))
            if pattern is not None:
                read = _selected(pattern)
                before = read(pane.screen())
                took = _timed(pane, key, lambda s, read=read, before=before:
                              (now := read(s)) is not None and now != before)
                (moves if took is not None else []).append(took or 0.0)
            else:
                marker = _THREADS_VIEW if key == "2" else _NODES_VIEW
                took = _timed(pane, key, lambda s, marker=marker: marker in s)
                (switches if took is not None else []).append(took or 0.0)
            missed += took is None
        rss = pane.rss_mb()
    finally:
        pane.stop()
        sim.stop()
    every = sorted(moves + switches)
    return {
        "scenario": scenario, "keys": len(every), "missed": missed,
        "p50_ms": statistics.median(every), "p95_ms": _percentile(every, 95),
        "max_ms": every[-1],
        "move_p95_ms": _percentile(sorted(moves), 95),
        "switch_p95_ms": _percentile(sorted(switches), 95),
        "rss_mb": rss,
    }


def _percentile(values: list[float], pct: float) -> float:
    """The nearest-rank percentile of sorted ``values``."""
    if not values:
        return float("nan")
    rank = max(1, round(pct / 100 * len(values) + 0.4999))
    return values[min(rank, len(values)) - 1]
