"""``ndbtop demo --fleet``: three simulated clusters in the fleet overview.

prod (production, a node restart under way), dr (healthy) and staging (a finding), each
a simulator of its own on loopback ports, watched through the real code paths: the
overview's management-server-only hubs, and the live view's whole hub for the one opened.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ndbtop.actions.audit import audit_log
from ndbtop.cli.fleet import fleet_interval
from ndbtop.collect.hub import Hub
from ndbtop.contexts import Context
from ndbtop.demo.hub import demo_hub, simulated_label
from ndbtop.demo.state import DemoState, demo_state
from ndbtop.fleet.watch import Fleet, Member
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.ndbinfo.options import MysqlOptions
from ndbtop.replication.setup import EndpointSpec, ReplicationSetup
from ndbtop.sim.clock import SimClock
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions
from ndbtop.sim.scenarios.fleet import BUILDERS, FLEET, REPLICATES_TO

WHERE = Path("demo --fleet")
"""Stands for the contexts file the demo's contexts come from."""


def demo_contexts() -> tuple[Context, ...]:
    """The demo's contexts, as clusters.toml would describe them (their connect strings
    are the simulators' ports, known once they listen)."""
    return tuple(Context(name, WHERE, i + 1, color=color, production=production,
                         replicates_to=REPLICATES_TO.get(name, ()))
                 for i, (name, color, production, _) in enumerate(FLEET))


def fleet_replication(name: str, sims: dict[str, Simulator], contexts: dict[str, Context],
                      lag_threshold_s: float) -> ReplicationSetup | None:
    """The SQL nodes of ``name`` and of the clusters it replicates to or from, as a context's
    ``replicates_to`` names them."""
    peers = [*contexts[name].replicates_to,
             *(c.name for c in contexts.values() if name in c.replicates_to)]
    if not peers:
        return None
    specs = []
    for member in (name, *peers):
        port = sims[member].sql_port
        if port is not None:
            specs.append(EndpointSpec(MysqlOptions(host=sims[member].host, port=port,
                                                   user="root", password=""), member))
    return ReplicationSetup(tuple(specs), lag_threshold_s)


def run_demo_fleet(args: argparse.Namespace) -> int:
    """Play the three clusters and open the overview, with a state directory of the run's
    own (:mod:`ndbtop.demo.state`)."""
    with demo_state() as state:
        if not args.audit_log:
            args.audit_log = str(state.audit_path)
        return _run_demo_fleet(args, state)


def _run_demo_fleet(args: argparse.Namespace, state: DemoState) -> int:
    from ndbtop.tui.context_label import ContextLabel
    from ndbtop.tui.launch import ClusterView, run_session

    seed = int(args.seed)
    sims = {name: Simulator(BUILDERS[name](ScenarioOptions(seed=seed)),
                            SimClock(speed=args.speed or speed))
            for name, _, _, speed in FLEET}
    contexts = {c.name: c for c in demo_contexts()}
    interval = fleet_interval(args)
    view_interval = float(args.interval) if "interval" in args.given else 1.0

    for source, replicas in REPLICATES_TO.items():
        for replica in replicas:
            sims[source].replicate_to(sims[replica])

    async def setup() -> None:
        for sim in sims.values():
            await sim.start(sql_port=0, sql_in_background=True)

    async def teardown() -> None:
        for sim in sims.values():
            await sim.close()

    def make_fleet() -> Fleet:
        members = []
        for name, sim in sims.items():
            hub = Hub(parse_connectstring(sim.connectstring), sim.clock, interval, events=True,
                      sql_disabled_reason="fleet overview: management server only",
                      history_dir=state.history_dir, history_writes=False,
                      cluster_name=f"simulated {name}")
            c = contexts[name]
            members.append(Member(name, hub, c.color, c.production, c.read_only))
        return Fleet(members)

    async def open_cluster(name: str) -> ClusterView:
        sim = sims[name]
        hub = demo_hub(sim, view_interval, history_dir=state.history_dir,
                       backup_status_every=args.backup_status_interval,
                       replication=fleet_replication(name, sims, contexts,
                                                     args.replication_lag_threshold))
        c = contexts[name]

        async def start() -> Hub:
            return hub

        return ClusterView(start, audit_log(args.audit_log, c),
                           ContextLabel(name, c.color, c.production, c.read_only),
                           read_only=args.read_only,
                           simulated=simulated_label(name, sim.clock.speed))

    return run_session(args, open_cluster, make_fleet, setup=setup, teardown=teardown,
                       simulated="fleet of 3")
