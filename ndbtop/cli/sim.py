"""``ndbtop sim``: serve a simulated cluster for other programs until interrupted."""

from __future__ import annotations

import argparse
import asyncio
import sys

from ndbtop.cli.scenario import make_simulator, scenario_list
from ndbtop.errors import UsageError


def run_sim(args: argparse.Namespace) -> int:
    """Run the simulator in the foreground; prints how to connect to it."""
    if args.list:
        sys.stdout.write(scenario_list())
        return 0
    return asyncio.run(_serve(args))


async def _serve(args: argparse.Namespace) -> int:
    sim = make_simulator(args, host=args.bind)
    mgm_ids = [m.node_id for m in sim.cluster.config.mgm_nodes]
    ports = dict(zip(mgm_ids, args.mgm_port or [], strict=False))
    try:
        await sim.start(
            mgm_ports=ports,
            sql_port=None if args.no_sql else args.sql_port,
            require_tls=args.require_tls,
        )
    except OSError as exc:
        await sim.close()
        raise UsageError(f"cannot listen: {exc.strerror or exc}") from None
    out = sys.stdout
    out.write(
        f"ndbtop sim: scenario {args.scenario}, speed x{sim.clock.speed:g}, seed {args.seed}\n"
    )
    for node_id, port in sim.mgm_ports.items():
        out.write(f"  management server (node {node_id}): {args.bind}:{port}\n")
    if sim.sql_port is not None:
        out.write(f"  SQL node: {args.bind}:{sim.sql_port} (user root, no password)\n")
    out.write("connect with:\n")
    sql = (
        f" --mysql-host {args.bind} --mysql-port {sim.sql_port} --mysql-user root"
        if sim.sql_port is not None
        else " --no-sql"
    )
    out.write(f"  ndbtop -c {sim.connectstring}{sql}\n")
    if sim.sql_port is not None:
        out.write(f"  mysql -h {args.bind} -P {sim.sql_port} -u root ndbinfo\n")
    out.write("Ctrl-C stops the simulator.\n")
    out.flush()
    try:
        await asyncio.Event().wait()
    finally:
        await sim.close()
    return 0
