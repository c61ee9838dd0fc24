"""``W``'s rolling restart on the manual clock: the simulated cluster moves only when the test
lets it, a step at a time, and each step is read by the hub, and by the run while it waits for
its nodes, before the next.

The run measures its node timeout and the time in a phase on the hub's clock (the simulated
cluster's), so a step past the timeout ends the wait whatever the machine's load; its status
polls stay real-time (``rolling_poll``), and the test waits for one at each step instead of
letting the cluster run past what the run should see.
"""

from __future__ import annotations

from typing import Any

import pytest

from ndbtop.mgm.client import MgmClient
from ndbtop.ops import rolling
from ndbtop.tui.screens.rolling import RollingRestartScreen

STEP = 10.0
"""Simulated seconds let pass at a time: a restart of ``threads`` takes 36.5 s (it stops in
2.5 s, is NOT_STARTED for 1 s, then spends 33 s in its start phases), so the run sees each
restarted node starting at three steps before it is back."""

LIMIT = 900.0
"""Simulated seconds a test lets pass for one thing it waits for, at most."""


class RollingClock:
    """Moves a :class:`~tests.tui.conftest.Tui` on manual time (``tui(..., manual=True)``) and
    records when the rolling restart's own connection read ``get status``."""

    def __init__(self, t: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        self.t = t
        self.polls: list[float] = []
        """The simulated moments the run sent its ``get status`` at."""
        clock, polls = t.sim.clock, self.polls

        class Watched(MgmClient):
            async def get_status(self, *args: Any, **kwargs: Any) -> Any:
                # Taken before the request: its answer tells the cluster at that moment or later.
                at = clock.now()
                nodes = await super().get_status(*args, **kwargs)
                polls.append(at)
                return nodes

        monkeypatch.setattr(rolling, "MgmClient", Watched)

    def _waiting_for_nodes(self) -> bool:
        """True while the run polls the nodes it restarted: a restart answered, its nodes seen
        since, not yet all back, no problem to decide."""
        screen = self.t.app.screen
        if not isinstance(screen, RollingRestartScreen) or not screen.running:
            return False
        if screen.problem is not None:
            return False
        events = [r["event"] for r in self.t.audit.records()]
        if events.count("sent") != events.count("reply"):
            return False
        return any(r.state == "restarting" and r.status is not None for r in screen.rows.values())

    async def step(self, seconds: float = STEP) -> None:
        """Let ``seconds`` of simulated time pass; return once the hub has read the cluster at
        the new moment and, if the run waits for its nodes, once it has polled them too."""
        t = self.t
        await t.advance(seconds)
        now, wall = t.sim.clock.now(), t.sim.clock.wall()

        def read() -> bool:
            reading = t.hub.mgm.reading
            if reading is None or reading.wall < wall:
                return False
            return not self._waiting_for_nodes() or (bool(self.polls) and self.polls[-1] >= now)

        await t.until(read, f"the reading of the cluster at {now:g} s")

    async def play(self, done: Any, what: str, limit: float = LIMIT) -> None:
        """Step until ``done()`` holds (checked before each step)."""
        for _ in range(int(limit / STEP)):
            if done():
                return
            await self.step()
        assert done(), f"{what}: not within {limit:g} simulated seconds; screen:\n{self.t.text()}"

    async def play_for(self, seconds: float) -> None:
        """Let ``seconds`` of simulated time pass, a step at a time."""
        for _ in range(int(seconds / STEP)):
            await self.step()
