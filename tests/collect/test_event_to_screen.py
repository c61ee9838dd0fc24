"""A change seen on the event stream reaches the Nodes view without waiting for the next
``get status``: the event asks for the status again at once and the view is told to draw."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ndbtop.demo.hub import demo_hub
from ndbtop.sim.runtime import Simulator

INTERVAL = 60.0
"""A refresh far longer than the test may take: a status seen sooner came from an event."""


async def test_a_node_stopping_reaches_the_view_before_the_next_refresh(
    start_sim: Callable[..., Awaitable[Simulator]], until: Any,
) -> None:
    sim = await start_sim("threads", speed=1.0)
    hub = demo_hub(sim, INTERVAL)
    drawn: list[str | None] = []

    def draw() -> None:
        node = hub.snapshot().node(3)
        drawn.append(node.status if node else None)

    hub.add_listener(draw)
    await hub.start()
    try:
        await until(lambda: hub.events is not None and hub.events.listening_levels is not None
                    and hub.snapshot().node(3) is not None, what="events and a first status")
        assert hub.snapshot().node(3).status == "STARTED"
        sim.cluster.stop_nodes((3,))
        await until(lambda: any(s not in (None, "STARTED") for s in drawn), timeout=10.0,
                    what="node 3's stop drawn")
    finally:
        await hub.stop()
