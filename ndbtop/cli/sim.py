"""``ndbtop sim``: serve a simulated cluster for other programs until interrupted."""

from __future__ import annotations

import argparse
import asyncio
import shlex
import ssl
import sys
from pathlib import Path

from ndbtop.cli.scenario import make_simulator, scenario_list
from ndbtop.errors import UsageError
from ndbtop.mgm.tls import SERVER_CERT, SERVER_KEY, server_context
from ndbtop.mgm.version import split_version
from ndbtop.sim.mgmd.parser import SINCE
from ndbtop.sim.tlscerts import make_cluster_certs


def run_sim(args: argparse.Namespace) -> int:
    """Run the simulator in the foreground; prints how to connect to it."""
    if args.list:
        sys.stdout.write(scenario_list())
        return 0
    return asyncio.run(_serve(args))


def _tls_context(args: argparse.Namespace) -> ssl.SSLContext | None:
    """The management servers' TLS context from ``--tls-dir`` (certificates made if absent)."""
    if args.tls_dir is None:
        return None
    directory = Path(args.tls_dir)
    make_cluster_certs(directory)
    try:
        return server_context(directory / SERVER_CERT, directory / SERVER_KEY)
    except (OSError, ssl.SSLError) as exc:
        raise UsageError(f"cannot use the certificates in {directory}: {exc}") from None


async def _serve(args: argparse.Namespace) -> int:
    # Its clients time what they see on their own clocks: they are told real time.
    sim = make_simulator(args, host=args.bind, serve_real_time=True)
    version = split_version(sim.cluster.config.ndb_version)
    if version < SINCE["start tls"] and (args.require_tls or args.tls_dir is not None):
        option = "--require-tls" if args.require_tls else "--tls-dir"
        raise UsageError(f"{option} needs NDB 8.3.0 or later (start tls came with it); this "
                         f"simulator runs {'.'.join(map(str, version))}")
    tls = _tls_context(args)
    mgm_ids = [m.node_id for m in sim.cluster.config.mgm_nodes]
    ports = dict(zip(mgm_ids, args.mgm_port or []))
    try:
        await sim.start(
            mgm_ports=ports,
            sql_port=None if args.no_sql else args.sql_port,
            require_tls=args.require_tls,
            tls=tls,
        )
    except OSError as exc:
        await sim.close()
        raise UsageError(f"cannot listen: {exc.strerror or exc}") from None
    out = sys.stdout
    out.write(
        f"ndbtop sim: scenario {args.scenario}, speed x{sim.clock.speed:g}, seed {args.seed}\n"
    )
    if sim.clock.speed != 1:
        out.write(f"  durations and times served are real: the cluster runs "
                  f"x{sim.clock.speed:g} faster\n")
    for node_id, port in sim.mgm_ports.items():
        out.write(f"  management server (node {node_id}): {args.bind}:{port}\n")
    if sim.sql_port is not None:
        out.write(f"  SQL node: {args.bind}:{sim.sql_port} (user root, no password)\n")
    if sim.replica_sql_port is not None:
        out.write(f"  replica cluster's SQL node: {args.bind}:{sim.replica_sql_port} (user "
                  "root, no password)\n")
    out.write("connect with:\n")
    tls_options = ""
    if tls is not None:
        where = shlex.quote(str(Path(args.tls_dir).resolve()))
        tls_options = f" --ndb-tls-search-path {where} --ndb-mgm-tls strict"
    if args.require_tls:
        out.write("  (the management servers require TLS"
                  + ("" if tls is not None else ", and have no certificate: --tls-dir DIR")
                  + ")\n")
    for line in connect_lines(args.bind, sim.connectstring, sim.sql_port,
                              sim.replica_sql_port, tls_options):
        out.write(f"  {line}\n")
    out.write("Ctrl-C stops the simulator.\n")
    out.flush()
    try:
        await asyncio.Event().wait()
    finally:
        await sim.close()
    return 0


def connect_lines(bind: str, connectstring: str, sql_port: int | None,
                  replica_sql_port: int | None, tls_options: str = "") -> list[str]:
    """The commands that reach the simulator: the live view (and ``check``, ``report``,
    ``record``, ``export``, ``rolling-restart``, which take its SQL-node options), ``wait``
    and ``mgm`` (the management server only: they refuse the SQL-node options), and
    ``mysql``."""
    sql = (f" --mysql-host {bind} --mysql-port {sql_port} --mysql-user root"
           if sql_port is not None else " --no-sql")
    replica = ("" if replica_sql_port is None
               else f" --replica-mysql-host {bind}:{replica_sql_port}")
    lines = [f"ndbtop -c {connectstring}{sql}{replica}{tls_options}",
             f"ndbtop wait -c {connectstring}{tls_options}   # and mgm: the management "
             "server only"]
    if sql_port is not None:
        lines.append(f"mysql -h {bind} -P {sql_port} -u root ndbinfo")
    return lines
