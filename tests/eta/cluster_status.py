"""The nodes a (simulated) management server reports, read once as ndb_mgm would."""

from __future__ import annotations

import asyncio

from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.status import NodeStatus


def cluster_status(connectstring: str) -> tuple[NodeStatus, ...]:
    """``get status`` of the management server at ``connectstring``."""

    async def status() -> tuple[NodeStatus, ...]:
        client = MgmClient(parse_connectstring(connectstring))
        try:
            return tuple(await client.get_status())
        finally:
            await client.close()

    return asyncio.run(status())
