"""Reaching a management server that does not answer yet, as ``ndb_waiter`` does.

``ndb_waiter`` (storage/ndb/tools/waiter.cpp, ``waitClusterStatus``) connects with
``ndb_mgm_connect(handle, opt_connect_retries - 1, opt_connect_retry_delay, 1)``: by default
12 tries 5 s apart, so a script around a management server's restart waits for it rather
than failing at once. ``ndbtop wait`` tries until its own ``--timeout``, backing off from
:data:`FIRST_DELAY_S` to :data:`MAX_DELAY_S` between tries.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from ndbtop.errors import MgmConnectError, MgmDisconnected, MgmTimeout

T = TypeVar("T")

RETRIED = (MgmConnectError, MgmTimeout, MgmDisconnected)
"""The failures a server that is not up yet (or restarting) gives: tried again. Any other
(TLS refused, a protocol error) would be the same at the next try."""
FIRST_DELAY_S = 0.25
"""The pause after the first failed try; each next pause is twice the last..."""
MAX_DELAY_S = 5.0
"""...up to ``ndb_waiter``'s ``--connect-retry-delay`` default."""


async def until_answered(
    call: Callable[[], Awaitable[T]],
    deadline: float,
    timeout: float,
    *,
    on_retry: Callable[[str, float], None] | None = None,
    reset: Callable[[], Awaitable[None]] | None = None,
) -> T:
    """What ``call()`` returns once the server answers, trying again on :data:`RETRIED`
    failures until ``deadline`` (on the running loop's clock; ``timeout``: the seconds it
    stands for, named in the error).

    ``on_retry(error, pause)`` is told of each failed try before its pause; ``reset()``
    runs after each failed try (to close a connection left half open).

    Raises :class:`MgmConnectError` naming the last failure once the time is up.
    """
    loop = asyncio.get_running_loop()
    delay = FIRST_DELAY_S
    while True:
        try:
            return await asyncio.wait_for(call(), max(deadline - loop.time(), 0.001))
        except asyncio.TimeoutError:
            error = f"no answer from the management server within {timeout:g} s"
            tried = ""
        except RETRIED as exc:
            error = str(exc)
            tried = f" (tried for {timeout:g} s)"
        if reset is not None:
            await reset()
        left = deadline - loop.time()
        if left <= 0:
            raise MgmConnectError(error + tried)
        pause = min(delay, left)
        if on_retry is not None:
            on_retry(error, pause)
        await asyncio.sleep(pause)
        delay = min(delay * 2, MAX_DELAY_S)
