"""The demo's hub remembers the starts it saw in its history directory, and the next hub on
that directory compares with them, whatever ports the simulator listens on (each demo run
has a directory of its own: tests/ops/test_ops_demo_state.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from ndbtop.demo.hub import demo_hub
from ndbtop.sim.runtime import Simulator

StartSim = Callable[..., Awaitable[Simulator]]

RESTART_LIMIT = 30.0
"""Real seconds a simulated node restart may take before the test fails (a hang, not a target)."""


async def test_a_start_seen_by_one_demo_run_is_known_to_the_next(
    start_sim: StartSim, tmp_path: Path, until: Any
) -> None:
    first = await start_sim("threads", speed=100.0)
    hub = demo_hub(first, 0.05, events=False, history_dir=tmp_path)
    await hub.start()
    try:
        await until(lambda: hub.snapshot().nodes, what="the first status reading")
        first.cluster.restart_nodes((3,))
        # A node restart takes a few simulated minutes: seconds at x100, more on a busy machine.
        await until(lambda: hub.snapshot().past_starts, timeout=RESTART_LIMIT,
                    what="node 3's restart remembered")
    finally:
        await hub.stop()
    assert [p.node_id for p in hub.snapshot().past_starts] == [3]

    second = await start_sim("threads", speed=100.0)
    assert second.connectstring != first.connectstring
    again = demo_hub(second, 0.05, events=False, history_dir=tmp_path)
    await again.start()
    try:
        await until(lambda: again.snapshot().past_starts, what="the history of the first run")
    finally:
        await again.stop()
    assert again.snapshot().past_starts == hub.snapshot().past_starts
