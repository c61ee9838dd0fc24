"""Samples of the on-demand panels from a simulated SQL node, as a reader takes them."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable

from ndbtop.model.ndbinfo import NdbinfoSample
from ndbtop.ndbinfo.collector import NdbinfoCollector
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.sim.sqlnode import NdbinfoProvider, start_sql_node


async def samples_wanting(provider: NdbinfoProvider, panels: Iterable[str],
                          *changes: Callable[[NdbinfoCollector], None]) -> list[NdbinfoSample]:
    """A sample asking for no on-demand panel, one asking for ``panels``, then one more after
    each of ``changes`` is made to the reader."""
    server = await start_sql_node(provider, port=0)
    try:
        collector = NdbinfoCollector(MysqlOptions(host="127.0.0.1", port=server.port,
                                                  user="root", password=""))
        await asyncio.to_thread(collector.connect)
        samples = [await asyncio.to_thread(collector.sample)]
        collector.wanted = frozenset(panels)
        samples.append(await asyncio.to_thread(collector.sample))
        for change in changes:
            change(collector)
            samples.append(await asyncio.to_thread(collector.sample))
        collector.close()
    finally:
        await server.close()
    return samples
