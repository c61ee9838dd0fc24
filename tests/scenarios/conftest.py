"""Fixtures of the scenario tests: a scenario watched from the outside (see
:mod:`scenario_watch`)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any

import pytest
from scenario_watch import CLUSTER_LOG_LEVELS, READ_TIMEOUT, ScenarioWatch, Watch

from ndbtop.mgm.client import MgmClient
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.session import MgmSession
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.sim.sqlnode import start_sql_node


@pytest.fixture
async def watch(
    start_sim: Callable[..., Awaitable[Simulator]],
    make_client: Callable[..., MgmClient],
    manual_time: Any,
) -> AsyncIterator[Watch]:
    """Start scenarios under hand-driven time, each with a listener, a client and a SQL node.

    ``await watch(name, seed=1, levels=None, **options)``: ``levels`` (category ->
    level) default to the cluster log's own; the other keywords are
    :class:`ScenarioOptions` fields.
    """
    manual = type(manual_time)
    watches: list[ScenarioWatch] = []

    async def start(
        name: str, *, seed: int = 1, levels: Mapping[int, int] | None = None, **options: Any
    ) -> ScenarioWatch:
        cluster = build_scenario(name, ScenarioOptions(seed=seed, **options))
        time = manual()
        time.now = cluster.now
        sim = await start_sim(cluster, time=time)
        address = parse_connectstring(sim.connectstring).addresses[0]
        session = await MgmSession.open(address, READ_TIMEOUT)
        sql = await start_sql_node(sim.ndbinfo, port=0)
        w = ScenarioWatch(sim, time, make_client(sim.connectstring), session, sql)
        watches.append(w)
        await w.listen(levels or CLUSTER_LOG_LEVELS)
        return w

    yield start
    for w in watches:
        await w.close()
