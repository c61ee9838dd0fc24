"""``ndbtop demo``: a simulated cluster on loopback ports, watched through the real code paths."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from ndbtop.cli.monitor import print_once
from ndbtop.cli.scenario import make_simulator, scenario_list
from ndbtop.collect.hub import Hub
from ndbtop.errors import UsageError
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.sim.host import SimHost
from ndbtop.sim.runtime import Simulator


def run_demo(args: argparse.Namespace) -> int:
    """Play a scenario and show it: the live view, or one report with ``--once``."""
    if args.list:
        sys.stdout.write(scenario_list())
        return 0
    if args.json and not args.once:
        raise UsageError("--json needs --once")
    if args.once:
        return asyncio.run(_demo_once(args))
    from ndbtop.tui.launch import run_demo_tui

    return run_demo_tui(args)


async def _demo_once(args: argparse.Namespace) -> int:
    sim = make_simulator(args)
    await sim.start(sql_port=None if args.no_sql else 0)
    try:
        return await print_once(demo_hub(sim, args.interval, events=False), args.json)
    finally:
        await sim.close()


def demo_hub(sim: Simulator, interval: float, *, events: bool = True,
             history_dir: Path | None = None) -> Hub:
    """A hub watching a running simulator through its management server and SQL node.

    The simulated host is the host of the first data node; rates and timers
    are in simulated time, as they would be on the real cluster. Starts are
    remembered in ``history_dir`` under the scenario's cluster name, not its
    loopback ports (a free port each run), so the next run compares with them.
    """
    ndbinfo = None
    if sim.sql_port is not None:
        from ndbtop.ndbinfo.collector import NdbinfoCollector
        from ndbtop.ndbinfo.options import MysqlOptions, options_summary

        options = MysqlOptions(host=sim.host, port=sim.sql_port, user="root", password="")
        ndbinfo = (NdbinfoCollector(options, clock=sim.clock.monotonic), options_summary(options))
    return Hub(
        parse_connectstring(sim.connectstring),
        sim.clock,
        interval,
        ndbinfo=ndbinfo,
        host=SimHost(sim.cluster),
        host_blocking=False,
        events=events,
        history_dir=history_dir,
        cluster_name=f"simulated {sim.cluster.config.name}",
    )
