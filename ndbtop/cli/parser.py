"""The command line: every command and option, with their help texts."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from ndbtop import __version__
from ndbtop.sim.scenarios import DEFAULT_FAIL_PHASE, DEFAULT_SCENARIO
from ndbtop.sim.startplan import START_PHASES

PROMPT = object()
"""Value of ``--mysql-password`` given without a password: ask for it."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``ndbtop: error: <message>`` and exit 2."""
        sys.stderr.write(f"{self.prog}: error: {message} (see '{self.prog} --help')\n")
        sys.exit(2)


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def _port(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"invalid port {text!r} (0-65535)")
    return int(text)


def _node_list(text: str) -> tuple[int, ...]:
    ids = []
    for part in text.replace(" ", ",").split(","):
        if not part:
            continue
        if not (part.isascii() and part.isdigit()) or not 1 <= int(part) <= 255:
            raise argparse.ArgumentTypeError(f"invalid node id {part!r} (1-255)")
        ids.append(int(part))
    if not ids:
        raise argparse.ArgumentTypeError("no node id given")
    return tuple(ids)


def _node_id(text: str) -> int:
    ids = _node_list(text)
    if len(ids) != 1:
        raise argparse.ArgumentTypeError(f"one node id expected, not {text!r}")
    return ids[0]


def _start_phase(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) not in START_PHASES:
        phases = ", ".join(map(str, START_PHASES))
        raise argparse.ArgumentTypeError(f"invalid start phase {text!r} ({phases})")
    return int(text)


def _interval(text: str) -> float:
    value = _positive(text)
    if value < 0.1:
        raise argparse.ArgumentTypeError("the refresh interval must be at least 0.1 s")
    return value


def add_cluster_options(p: argparse.ArgumentParser) -> None:
    """Where the management server and the SQL node are."""
    g = p.add_argument_group("management server")
    g.add_argument(
        "-c",
        "--ndb-connectstring",
        "--connect-string",
        dest="connectstring",
        metavar="CONNECTSTRING",
        help="management servers, as NDB tools take them (host[:port],... ; "
        "nodeid=, host=, [ipv6]:port); default: $NDB_CONNECTSTRING, Ndb.cfg, "
        "localhost:1186",
    )
    s = p.add_argument_group("SQL node (ndbinfo)")
    s.add_argument(
        "--no-sql",
        action="store_true",
        help="do not use a SQL node; everything from the management server only",
    )
    s.add_argument("--mysql-host", metavar="HOST", help="SQL node host (default localhost)")
    s.add_argument("--mysql-port", metavar="PORT", type=_port, help="SQL node port (3306)")
    s.add_argument("--mysql-user", metavar="USER", help="SQL user (default: your login name)")
    s.add_argument(
        "-p",
        "--mysql-password",
        metavar="PASSWORD",
        nargs="?",
        const=PROMPT,
        help="password; without a value, ask for it (also: $MYSQL_PWD, option files)",
    )
    s.add_argument("--mysql-socket", metavar="PATH", help="Unix socket of the SQL node")
    s.add_argument(
        "--defaults-file",
        metavar="FILE",
        help="read options from FILE instead of ~/.my.cnf ([client] and [ndbtop])",
    )
    s.add_argument("--ssl-ca", metavar="FILE", help="CA certificate for TLS to the SQL node")
    s.add_argument("--ssl-cert", metavar="FILE", help="client certificate for TLS")
    s.add_argument("--ssl-key", metavar="FILE", help="client key for TLS")
    h = p.add_argument_group("host")
    h.add_argument(
        "--no-host", action="store_true", help="do not read this host's disks and data node threads"
    )


def add_view_options(p: argparse.ArgumentParser) -> None:
    """How ndbtop shows and refreshes."""
    g = p.add_argument_group("display")
    g.add_argument(
        "--once",
        action="store_true",
        help="print one report and exit (two samples --interval apart for rates)",
    )
    g.add_argument("--json", action="store_true", help="with --once: print JSON")
    g.add_argument(
        "--interval",
        type=_interval,
        default=1.0,
        metavar="SECONDS",
        help="refresh interval (default 1)",
    )
    g.add_argument(
        "--read-only",
        action="store_true",
        help="no action that changes the cluster (restart, stop, start, log levels)",
    )
    g.add_argument("--no-color", action="store_true", help="no colours (also: $NO_COLOR)")
    g.add_argument(
        "--theme",
        choices=("dark", "light", "ansi", "ansi-light"),
        default="dark",
        help="colours for dark or light terminals; ansi uses the terminal's own",
    )
    g.add_argument(
        "--audit-log",
        metavar="FILE",
        help="where actions are logged (default ~/.local/state/ndbtop/audit.log)",
    )
    g.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")


def add_scenario_options(p: argparse.ArgumentParser) -> None:
    """Which simulated scenario to play, and how."""
    g = p.add_argument_group("scenario")
    g.add_argument(
        "--scenario",
        default=DEFAULT_SCENARIO,
        metavar="NAME",
        help=f"scenario to play (default {DEFAULT_SCENARIO}; --list shows all)",
    )
    g.add_argument("--list", action="store_true", help="list the scenarios and exit")
    g.add_argument(
        "--speed",
        type=_positive,
        metavar="X",
        help="simulated seconds per real second (default: the scenario's own)",
    )
    g.add_argument("--seed", type=int, default=1, help="random seed (same seed, same run)")
    g.add_argument(
        "--fast-redo",
        action="store_true",
        help="initial-start: redo log files created without a sync per page",
    )
    g.add_argument("--ndb-version", metavar="X.Y.Z", help="simulated NDB version (8.4.3)")
    g.add_argument(
        "--at",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="start the scenario this many simulated seconds in",
    )
    g.add_argument(
        "--fail-node",
        type=_node_id,
        metavar="ID",
        help="inject a failure: every node restart of this data node hangs in a start "
        "phase (--fail-phase) and never finishes",
    )
    g.add_argument(
        "--fail-phase",
        type=_start_phase,
        default=DEFAULT_FAIL_PHASE,
        metavar="PHASE",
        help=f"the start phase --fail-node hangs in (default {DEFAULT_FAIL_PHASE})",
    )


def build_parser() -> Parser:
    """The ``ndbtop`` parser with its commands."""
    p = Parser(
        prog="ndbtop",
        description="Live view of a MySQL NDB Cluster: nodes and start phases, threads, "
        "disks, events; with guarded restart/start/stop actions.",
        epilog="Without a command, ndbtop opens the live view of the cluster at "
        "CONNECTSTRING. Try 'ndbtop demo' for a simulated cluster.",
    )
    p.add_argument("--version", action="version", version=f"ndbtop {__version__}")
    add_cluster_options(p)
    add_view_options(p)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)

    demo = sub.add_parser(
        "demo",
        help="watch a simulated cluster (no server needed)",
        description="Start a simulated cluster on loopback ports and watch it with ndbtop.",
    )
    add_scenario_options(demo)
    add_view_options(demo)
    demo.add_argument(
        "--no-sql",
        action="store_true",
        help="simulate no SQL node: everything from the management server only",
    )

    sim = sub.add_parser(
        "sim",
        help="run a simulated cluster for other clients",
        description="Serve a simulated ndb_mgmd and SQL node on loopback ports until interrupted.",
    )
    add_scenario_options(sim)
    sim.add_argument(
        "--mgm-port",
        type=_port,
        action="append",
        metavar="PORT",
        help="port of a management server (repeat for several; 0 or absent: free)",
    )
    sim.add_argument(
        "--sql-port",
        type=_port,
        default=0,
        metavar="PORT",
        help="port of the SQL node (0: a free one)",
    )
    sim.add_argument("--no-sql", action="store_true", help="no SQL node")
    sim.add_argument(
        "--bind",
        default="127.0.0.1",
        metavar="ADDRESS",
        help="address to listen on (default 127.0.0.1)",
    )
    sim.add_argument(
        "--require-tls",
        action="store_true",
        help="answer like a management server with RequireTls=true",
    )
    wait = sub.add_parser("wait", help="wait until data nodes reach a state (like ndb_waiter)",
                          description="Wait until the data nodes reach a state, printing one "
                                      "line per node change. Exit 0 when reached, 1 on timeout, "
                                      "2 when the management server cannot be reached.")
    wait.add_argument("-c", "--ndb-connectstring", "--connect-string", dest="connectstring",
                      metavar="CONNECTSTRING", help="management servers (see ndbtop --help)")
    wait.add_argument("--status", choices=("started", "not-started", "no-contact"),
                      default="started", help="the state to wait for (default started)")
    wait.add_argument("--nodes", type=_node_list, metavar="ID,ID",
                      help="data nodes to wait for (default: all)")
    wait.add_argument("--timeout", type=_positive, default=600.0, metavar="SECONDS",
                      help="give up after this long (default 600)")
    wait.add_argument("--interval", type=_interval, default=1.0, metavar="SECONDS",
                      help="poll interval (default 1)")
    wait.add_argument("--json", action="store_true", help="print the changes as JSON lines")

    roll = sub.add_parser("rolling-restart", help="restart the data nodes one at a time, guarded",
                          description="Restart the data nodes one at a time (or one per node "
                                      "group), each after its partners are STARTED, waiting for "
                                      "it to be STARTED again. Asks on any refusal, timeout or "
                                      "failure; Ctrl-C pauses. Everything sent is audited.")
    roll.add_argument("-c", "--ndb-connectstring", "--connect-string", dest="connectstring",
                      metavar="CONNECTSTRING", help="management servers (see ndbtop --help)")
    roll.add_argument("--nodes", type=_node_list, metavar="ID,ID",
                      help="restart only these data nodes (default: all)")
    roll.add_argument("--per-group", action="store_true",
                      help="restart one node of every node group at a time")
    roll.add_argument("--initial", action="store_true",
                      help="initial node restarts (RESTART -i: the nodes rebuild their data)")
    roll.add_argument("--dry-run", action="store_true", help="show the plan and exit")
    roll.add_argument("--yes", action="store_true",
                      help="do not ask: start without confirmation, abort on any problem")
    roll.add_argument("--node-timeout", type=_positive, default=1800.0, metavar="SECONDS",
                      help="how long a node may take to be STARTED again (default 1800)")
    roll.add_argument("--audit-log", metavar="FILE",
                      help="where actions are logged (default ~/.local/state/ndbtop/audit.log)")
    rec = sub.add_parser("record", help="record the cluster to a file, without the live view",
                         description="Write every snapshot and every event to FILE "
                                     "(compressed JSON lines) until interrupted or --duration.")
    rec.add_argument("file", metavar="FILE", help="the recording (FILE.1 ... after rotation)")
    add_cluster_options(rec)
    rec.add_argument("--interval", type=_interval, default=1.0, metavar="SECONDS",
                     help="seconds between snapshots (default 1)")
    rec.add_argument("--duration", type=_positive, metavar="SECONDS",
                     help="stop after this long (default: until Ctrl-C)")
    rec.add_argument("--max-mb", type=_positive, default=200.0, metavar="MB",
                     help="start a new file beyond this size (default 200)")
    rec.add_argument("--keep", type=int, default=5, metavar="N",
                     help="older files kept after rotation (default 5)")
    rec.add_argument("--demo", action="store_true",
                     help="record a simulated cluster (scenario options below) instead")
    add_scenario_options(rec)

    rep = sub.add_parser("replay", help="watch a recording in the live view (read-only)",
                         description="Open the live view on a recording: space plays or "
                                     "pauses, . and , step, ] and [ jump a minute, > and < "
                                     "change the speed.")
    rep.add_argument("file", metavar="FILE", help="a recording written by 'ndbtop record'")
    rep.add_argument("--speed", type=_positive, default=1.0, metavar="X",
                     help="start at this speed (default 1)")
    rep.add_argument("--no-color", action="store_true", help="no colours (also: $NO_COLOR)")
    rep.add_argument("--theme", choices=("dark", "light", "ansi", "ansi-light"), default="dark")
    rpt = sub.add_parser("report", help="collect a triage bundle to attach to a ticket",
                         description="Collect the --once report, recent events, log levels, "
                                     "memory reports, a recording's tail and the audit log "
                                     "into one .tar.gz. No password goes in.")
    rpt.add_argument("--bundle", metavar="FILE", required=True, help="the archive to write")
    add_cluster_options(rpt)
    rpt.add_argument("--interval", type=_interval, default=1.0, metavar="SECONDS",
                     help="seconds between the two samples of rates (default 1)")
    rpt.add_argument("--events-seconds", type=float, default=5.0, metavar="SECONDS",
                     help="listen to events this long (default 5; 0: not at all)")
    rpt.add_argument("--recording", metavar="FILE",
                     help="include the end of this recording (ndbtop record)")
    rpt.add_argument("--minutes", type=_positive, default=15.0, metavar="N",
                     help="how much of the recording (default 15)")
    rpt.add_argument("--audit-log", metavar="FILE",
                     help="audit log to include (default ~/.local/state/ndbtop/audit.log)")
    return p
