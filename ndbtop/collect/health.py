"""The bookkeeping every source shares: its visible state, backoff and wake-up."""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import replace

from ndbtop.compat import AsyncEvent
from ndbtop.model.sources import Backoff, SourceState, SourceStatus


class Health:
    """A source's :class:`SourceStatus`, updated as attempts succeed or fail.

    Times are real monotonic seconds. ``wake`` cuts a wait short (for an
    immediate refresh or a reconnect request).
    """

    def __init__(
        self, name: str, target: str = "", state: SourceState = SourceState.CONNECTING
    ) -> None:
        self.status = SourceStatus(name, state, target)
        self.backoff = Backoff()
        self.wake = AsyncEvent()

    def ok(
        self, target: str | None = None, unavailable: tuple[tuple[str, str], ...] = ()
    ) -> None:
        """A good result just arrived (without the parts ``unavailable``: (part, reason))."""
        self.backoff.reset()
        self.status = replace(
            self.status,
            state=SourceState.CONNECTED,
            error=None,
            last_ok=time.monotonic(),
            retry_at=None,
            target=self.status.target if target is None else target,
            unavailable=unavailable,
        )

    def failed(self, error: str, state: SourceState = SourceState.RETRYING) -> float:
        """An attempt failed; returns the delay before the next one.

        ``UNAVAILABLE`` says the source answers but cannot give data yet (an expected
        state, such as a SQL node before the data nodes started), ``RETRYING`` that it
        failed.
        """
        delay = self.backoff.next_delay()
        self.status = replace(self.status, state=state, error=error,
                              retry_at=time.monotonic() + delay)
        return delay

    def set_state(self, state: SourceState, error: str | None = None) -> None:
        """Record a state that is neither success nor a retry (disabled, unavailable)."""
        self.status = replace(self.status, state=state, error=error, retry_at=None)

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``, or less if :attr:`wake` is set meanwhile."""
        self.wake.clear()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.wake.wait(), max(seconds, 0.0))
