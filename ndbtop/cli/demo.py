"""``ndbtop demo``: a simulated cluster on loopback ports, watched through the real code paths."""

from __future__ import annotations

import argparse
import asyncio
import sys

from ndbtop.cli.monitor import print_once
from ndbtop.cli.scenario import make_simulator, scenario_list
from ndbtop.collect.hub import Hub
from ndbtop.demo.hub import demo_hub, simulated_label
from ndbtop.demo.state import DemoState, demo_state
from ndbtop.errors import UsageError

REPLICATING = ("replication-lag", "lost-events")
"""The scenarios that replicate to a simulated replica cluster."""


def run_demo(args: argparse.Namespace) -> int:
    """Play a scenario and show it: the live view, or one report with ``--once``."""
    if args.list:
        sys.stdout.write(scenario_list())
        return 0
    if args.demo_fleet:
        from ndbtop.cli.demo_fleet import run_demo_fleet

        return run_demo_fleet(args)
    if args.json and not args.once:
        raise UsageError("--json needs --once")
    if args.section is not None and not args.once:
        raise UsageError("--section needs --once")
    if ("replication_lag_threshold" in args.given and not args.demo_fleet
            and args.scenario not in REPLICATING):
        raise UsageError(f"--replication-lag-threshold: scenario {args.scenario} does not "
                         f"replicate (those that do: {', '.join(REPLICATING)})")
    if args.once:
        return asyncio.run(_demo_once(args))
    return _demo_tui(args)


def _demo_tui(args: argparse.Namespace) -> int:
    """The live view of a simulated cluster started in the same process, with a state
    directory of its own (:mod:`ndbtop.demo.state`)."""
    with demo_state() as state:
        if not args.audit_log:
            args.audit_log = str(state.audit_path)
        return _demo_tui_in(args, state)


def _demo_tui_in(args: argparse.Namespace, state: DemoState) -> int:
    from ndbtop.tui.launch import run_simulated_tui

    sim = make_simulator(args)
    speed = sim.clock.speed
    sim.clock.set_speed(1.0)

    async def start() -> Hub:
        await sim.start(sql_port=None if args.no_sql else 0, sql_in_background=True)
        hub = demo_hub(sim, args.interval, history_dir=state.history_dir,
                       backup_status_every=args.backup_status_interval,
                       lag_threshold_s=args.replication_lag_threshold)
        hub.want_txn_age(args.txn_age)
        events = hub.events
        if events is not None:
            sim.speed_up_when(lambda: events.listening_levels is not None, speed)
        return hub

    return run_simulated_tui(start, sim.close, args, simulated_label(args.scenario, speed))


async def _demo_once(args: argparse.Namespace) -> int:
    sim = make_simulator(args)
    speed = sim.clock.speed
    sim.clock.set_speed(1.0)
    await sim.start(sql_port=None if args.no_sql else 0)
    try:
        hub = demo_hub(sim, args.interval, backup_status_every=args.backup_status_interval,
                       lag_threshold_s=args.replication_lag_threshold)
        hub.want_txn_age(args.txn_age)
        # As in the live view: nothing happens faster than real time until the events are
        # listened to, so the report sees the same events the live view does.
        events = hub.events
        if events is not None:
            sim.speed_up_when(lambda: events.listening_levels is not None, speed)
        with demo_state() as state:
            return await print_once(hub, args.json, args.section,
                                    audit_path=state.audit_path)
    finally:
        await sim.close()
