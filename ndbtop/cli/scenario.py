"""Building a simulated cluster from the scenario options of ``demo`` and ``sim``."""

from __future__ import annotations

import argparse
import os

from ndbtop.errors import UsageError
from ndbtop.sim.clock import SimClock
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import (
    DEFAULT_FAIL_PHASE,
    SCENARIOS,
    ScenarioOptions,
    build_scenario,
)


def scenario_list() -> str:
    """The scenarios, one per line, with their default speed."""
    width = max(len(name) for name in SCENARIOS)
    return (
        "\n".join(
            f"{s.name.ljust(width)}  x{s.demo_speed:g}  {s.summary}" for s in SCENARIOS.values()
        )
        + "\n"
    )


def make_simulator(args: argparse.Namespace, host: str = "127.0.0.1",
                   serve_real_time: bool = False) -> Simulator:
    """The simulator the options describe (not started yet); ``serve_real_time``: it tells
    its clients real time (:class:`ndbtop.sim.clock.SimClock`), for clients on their own
    clock."""
    name = args.scenario
    if name not in SCENARIOS:
        raise UsageError(f"unknown scenario {name!r} (choose from {', '.join(SCENARIOS)})")
    data_dir = getattr(args, "mgm_data_dir", None)
    if data_dir is not None and not os.path.isdir(data_dir):
        raise UsageError(f"--mgm-data-dir {data_dir}: no such directory")
    options = ScenarioOptions(
        seed=args.seed,
        fast_redo=args.fast_redo,
        ndb_version=args.ndb_version,
        fail_node=getattr(args, "fail_node", None),
        fail_phase=getattr(args, "fail_phase", None) or DEFAULT_FAIL_PHASE,
        data_node_hosts=getattr(args, "data_node_hosts", ()) or (),
        report_frequency=getattr(args, "report_frequency", None),
        mgm_host=getattr(args, "mgm_host", None),
        mgm_data_dir=getattr(args, "mgm_data_dir", None),
    )
    try:
        cluster = build_scenario(name, options)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    speed = args.speed or SCENARIOS[name].demo_speed
    start_at = getattr(args, "at", 0.0) or 0.0
    cluster.advance_to(start_at)
    clock = SimClock(speed=speed, start_at=start_at, serve_real_time=serve_real_time)
    return Simulator(cluster, clock, host=host)
