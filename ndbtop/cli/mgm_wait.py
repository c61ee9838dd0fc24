"""``ndbtop mgm -e COMMAND --wait``: the request and the wait for its nodes in one command.

Every guard and confirmation of ``mgm`` applies first; nothing waits for a request that was
not sent. The wait then behaves as ``ndbtop wait`` for the nodes acted on: a line per
change, an estimate on every line of a starting node, the same exit statuses. Its hub
starts before the request is sent, so it sees the start's events from the node's first
one: the start is timed from its beginning, estimated phase by phase, and kept whole in
the start history.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

from ndbtop.actions.commands import Action, RestartNode, StartNode
from ndbtop.cli.wait import Follower, wait_status
from ndbtop.errors import UsageError
from ndbtop.mgm.connectstring import ConnectString
from ndbtop.ops.wait import Target

READY_S = 5.0
"""How long the request waits for the hub to hear the events, at most."""
WAIT_INTERVAL = 1.0
"""Seconds between the wait's polls of ``get status`` (``ndbtop wait``'s default)."""


def wait_target(action: Action) -> Target:
    """What ``--wait`` waits for after ``action``: STARTED after a restart or a start,
    NOT_STARTED after ``RESTART -n``; a :class:`UsageError` for a command that starts no
    node."""
    if isinstance(action, RestartNode):
        return Target.NOT_STARTED if action.nostart else Target.STARTED
    if isinstance(action, StartNode):
        return Target.STARTED
    raise UsageError(f"--wait waits for nodes to start: it applies to RESTART and START, "
                     f"not to {action.ndb_mgm()}")


async def send_and_wait(action: Action, args: argparse.Namespace,
                        connectstring: ConnectString,
                        send: Callable[[], Awaitable[int]]) -> int:
    """Follow the cluster, ``send`` the confirmed request (its exit status), then wait as
    ``ndbtop wait --nodes <those acted on>`` does; the wait's exit status."""
    target = wait_target(action)
    follower = Follower(connectstring, WAIT_INTERVAL)
    await follower.start()
    try:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(follower.ready(), READY_S)
        sent = time.time()
        status = await send()
        if status != 0:
            return status
        # A node restarted is STARTED until it stops: that STARTED is not the one waited
        # for. (The server answers a restart -n once the node has stopped.)
        result = await follower.wait(target, action.node_ids, args.timeout,
                                     since=sent if target is Target.STARTED else None)
    finally:
        await follower.stop()
    return wait_status(result, args.timeout, target.value)
