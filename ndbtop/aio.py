"""Small asyncio helpers shared by the sources and the simulator."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterable


async def cancel_and_wait(tasks: Iterable[asyncio.Task[object]], poll: float = 0.2) -> None:
    """Cancel tasks and wait until each has really ended.

    On Python 3.11, ``asyncio.wait_for`` can swallow a cancellation that arrives
    just as the operation it waits on completes; the task then goes on. Cancelling
    again until it is done makes stopping reliable.
    """
    for task in list(tasks):
        while not task.done():
            task.cancel()
            await asyncio.wait({task}, timeout=poll)
        with contextlib.suppress(asyncio.CancelledError, Exception):
            task.result()
