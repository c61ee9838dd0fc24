"""The command line: every command and option, with their help texts.

Each option is declared once in :data:`OPTIONS` with the commands that take it;
:mod:`ndbtop.cli.optionspec` gives the rules (before or after the command, refusals).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from ndbtop.cli.about import VersionAction
from ndbtop.cli.clashes import REPLICATING, refuse_clashes
from ndbtop.cli.command_help import DESCRIPTIONS
from ndbtop.cli.option_types import (
    DAY,
    backup_id,
    existing_dir,
    host_list,
    interval,
    listen_port,
    node_id,
    node_list,
    number,
    one_host,
    port,
    positive,
    report_frequency,
    report_interval,
    section_list,
    start_phase,
)
from ndbtop.cli.optionspec import LIVE, Option, add_options, finish, option
from ndbtop.model.locks import DEFAULT_TXN_AGE_S
from ndbtop.replication.setup import DEFAULT_LAG_THRESHOLD_S
from ndbtop.report.section_names import section_names
from ndbtop.sanitise import write_line
from ndbtop.sim.scenarios import DEFAULT_FAIL_PHASE, DEFAULT_SCENARIO

DEFAULT_LISTEN_HOST = "127.0.0.1"
DEFAULT_LISTEN_PORT = 11186
"""Default port of ``ndbtop export``: not in Prometheus's list of default port allocations
(whose exporter range, 9100-9999, is taken); 1186 is the management server's port."""
DEFAULT_LISTEN = f"{DEFAULT_LISTEN_HOST}:{DEFAULT_LISTEN_PORT}"
"""Where ``ndbtop export`` serves unless told: this host only."""

PROMPT = object()
"""Value of ``--mysql-password`` given without a password: ask for it."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        """Print ``ndbtop: error: <message>`` and exit 2."""
        write_line(sys.stderr, f"{self.prog}: error: {message} (see '{self.prog} --help')")
        sys.exit(2)


# Which commands take which options (LIVE: the live view, ndbtop without a command).
CONNECTING = frozenset({LIVE, "wait", "rolling-restart", "mgm", "record", "report", "export",
                        "check", "config"})
SQL = frozenset({LIVE, "record", "report", "export", "check", "config", "rolling-restart"})
HOSTS = SQL - {"config", "rolling-restart"}
ACTING = frozenset({LIVE, "demo", "rolling-restart", "mgm"})
SHOWING = frozenset({LIVE, "demo", "replay"})
SIMULATING = frozenset({"demo", "sim", "record"})
COMMANDS = ("demo", "sim", "wait", "rolling-restart", "mgm", "record", "replay", "report",
            "export", "check", "config", "contexts", "fleet", "completion", "man")
EVERY = frozenset({LIVE, *COMMANDS})

MGM = "management server"
SQLG = "SQL node (ndbinfo)"
REPLG = "replication"
DISPLAY = "display"
SAFETY = "actions"
SCENARIO = "scenario"
CONTEXT = "contexts (clusters.toml)"

OPTIONS: tuple[Option, ...] = (
    # Which cluster, by name.
    option("--context", commands=CONNECTING, group=CONTEXT, metavar="NAME",
           help="the cluster named NAME in $XDG_CONFIG_HOME/ndbtop/clusters.toml "
           "(~/.config/ndbtop/clusters.toml): its connect string, SQL nodes, password source, "
           "TLS and ssh settings; options given here override its own (default: "
           "$NDBTOP_CONTEXT)"),
    option("--contexts", commands={"export"}, group=CONTEXT, dest="all_contexts",
           action="store_true", default=False,
           help="serve every context of clusters.toml from this one process: "
           "/probe?context=NAME one cluster, /metrics all; every series has a cluster label"),
    option("--names", commands={"contexts"}, group=CONTEXT, action="store_true",
           default=False, help="print the contexts' names only, one a line, asking no server "
           "(what shell completion offers after --context)"),
    option("--read-write", commands=ACTING - {"demo"}, group=CONTEXT, action="store_true",
           default=False, help="allow actions on a context marked read_only, for this run, "
           "once its phrase ('allow actions on NAME') is typed at the terminal"),
    # Where the cluster is.
    option("-c", "--ndb-connectstring", "--connect-string", dest="connectstring",
           commands=CONNECTING, group=MGM, metavar="CONNECTSTRING",
           help="management servers, as NDB tools take them (host[:port],... ; "
           "nodeid=, host=, [ipv6]:port); default: $NDB_CONNECTSTRING, Ndb.cfg, localhost:1186"),
    option("--ndb-tls-search-path", commands=CONNECTING, group=MGM, metavar="PATH",
           help="directories (separated by ':') holding ndb-api-cert and ndb-api-private-key "
           "for TLS to the management server (default $HOME/ndb-tls)"),
    option("--ndb-mgm-tls", commands=CONNECTING, group=MGM, default="relaxed",
           choices=("relaxed", "strict"),
           help="TLS to the management server: relaxed goes on in cleartext when TLS cannot "
           "be set up, strict refuses (default relaxed)"),
    option("--no-sql", commands=SQL | {"demo", "sim"}, group=SQLG, action="store_true",
           default=False, help="do not use a SQL node; everything from the management server "
           "only (demo, sim: simulate none)"),
    option("--mysql-host", commands=SQL, group=SQLG, metavar="HOST[,HOST:PORT...]",
           help="SQL node host (default localhost); several, in order of preference: one is "
           "read at a time, the next when it fails, the first again when it returns; auto: "
           "the API nodes the management server reports connected"),
    option("--mysql-port", commands=SQL, group=SQLG, metavar="PORT", type=port,
           help="SQL node port (3306)"),
    option("--mysql-user", commands=SQL, group=SQLG, metavar="USER",
           help="SQL user (default: your login name)"),
    option("-p", "--mysql-password", commands=SQL, group=SQLG, metavar="PASSWORD", nargs="?",
           const=PROMPT, help="password; better without a value: ndbtop asks for it "
           "(or use $MYSQL_PWD or an option file); a value given here is hidden from ps "
           "once ndbtop starts, but shell history and a quick ps may still see it"),
    option("--mysql-socket", commands=SQL, group=SQLG, metavar="PATH",
           help="Unix socket of the SQL node"),
    option("--login-path", commands=SQL, group=SQLG, metavar="NAME",
           help="also read the group NAME of ~/.mylogin.cnf (mysql_config_editor's login "
           "path file, $MYSQL_TEST_LOGIN_FILE), as the mysql client does"),
    option("--defaults-group-suffix", commands=SQL, group=SQLG, metavar="SUFFIX",
           help="also read the option-file groups [client SUFFIX] and [ndbtop SUFFIX] "
           "(e.g. _prod: [client_prod])"),
    option("--defaults-file", commands=SQL | ACTING, group=SQLG, metavar="FILE",
           help="read options from FILE instead of ~/.my.cnf ([client] and [ndbtop]; "
           "read_only in [ndbtop] is --read-only)"),
    option("--ssl-ca", commands=SQL, group=SQLG, metavar="FILE",
           help="CA certificate for TLS to the SQL node"),
    option("--ssl-cert", commands=SQL, group=SQLG, metavar="FILE",
           help="client certificate for TLS"),
    option("--ssl-key", commands=SQL, group=SQLG, metavar="FILE", help="client key for TLS"),
    option("--replica-mysql-host", commands=REPLICATING, group=REPLG,
           metavar="HOST[,HOST:PORT...]",
           help="the SQL nodes of the cluster this one replicates to: their channels are "
           "read with this cluster's SQL nodes (--mysql-host) as sources, with the same user, "
           "password and TLS; each channel's lag in epochs and seconds, its threads and "
           "errors (the Replication view, --once --section replication, export)"),
    option("--replica-mysql-port", commands=REPLICATING, group=REPLG, metavar="PORT",
           type=port, help="port of the replica SQL nodes given without one (3306)"),
    option("--replication-lag-threshold", commands=REPLICATING | {"demo"}, group=REPLG,
           type=number(0, 86400 * 7, above=True), default=DEFAULT_LAG_THRESHOLD_S,
           metavar="SECONDS",
           help="replication_lag warns past this many seconds behind (default "
           f"{DEFAULT_LAG_THRESHOLD_S:g}; ndbtop's own threshold)"),
    option("--no-host", commands=HOSTS, group="host", action="store_true", default=False,
           help="do not read this host's disks and data node threads"),
    option("--ssh", commands=HOSTS, group="host", action="store_true", default=False,
           help="also read every data node's host (disks, CPU, threads, redo files, error "
           "log) and the management servers' cluster log files through the system ssh "
           "client; nothing is installed or written there"),
    option("--ssh-config", commands=HOSTS, group="host", metavar="FILE",
           help="with --ssh: ssh configuration file (-F)"),
    option("--ssh-user", commands=HOSTS, group="host", metavar="USER",
           help="with --ssh: remote user (-l)"),
    option("--ssh-option", commands=HOSTS, group="host", action="append", default=[],
           metavar="OPTION", help="with --ssh: an ssh -o option such as ProxyJump=bastion "
           "(repeatable); BatchMode=yes is always set"),
    # What to show, how often.
    option("--once", commands={LIVE, "demo"}, group=DISPLAY, action="store_true", default=False,
           help="print one report and exit (two samples --interval apart for rates; while a "
           "data node creates its redo log, until two of its progress reports, heard or in the "
           "cluster log file: at most two report periods and 5 s, 300 s in all)"),
    option("--section", commands={LIVE, "demo"}, group=DISPLAY, type=section_list,
           metavar="NAME,...", default=None,
           help="with --once: only these sections, the heading and the sources ("
           + ", ".join(section_names()) + "); a triage section's ndbinfo tables are read "
           "only when it is asked for or a view shows it"),
    option("--txn-age", commands={LIVE, "demo"}, group=DISPLAY,
           type=number(0, 86400, integer=True), default=DEFAULT_TXN_AGE_S, metavar="SECONDS",
           help="the Locks view and the locks section list the transactions idle this long or "
           f"longer (default {DEFAULT_TXN_AGE_S}); the SQL node leaves out the others"),
    option("--json", commands={LIVE, "demo", "wait", "rolling-restart"}, group=DISPLAY,
           action="store_true", default=False,
           help="print JSON (with --once; wait: one line per change; rolling-restart: "
                "one line per event)"),
    option("--interval", commands=CONNECTING - {"rolling-restart", "mgm", "config"}
           | {"demo", "fleet"}, group=DISPLAY,
           type=interval, default=1.0, metavar="SECONDS",
           help="seconds between samples, refreshes or polls (default 1; fleet and "
           "demo --fleet: 2)"),
    option("--no-color", commands=SHOWING | {"fleet"}, group=DISPLAY, action="store_true",
           default=False, help="no colours (also: $NO_COLOR)"),
    option("--theme", commands=SHOWING | {"fleet"}, group=DISPLAY, default="dark",
           choices=("dark", "light", "ansi", "ansi-light"),
           help="colours for dark or light terminals; ansi uses the terminal's own"),
    option("--debug", commands=EVERY, group=DISPLAY, action="store_true", default=False,
           help="show tracebacks of internal errors"),
    # Actions.
    option("--read-only", commands=ACTING | {"replay", "fleet"}, group=SAFETY,
           action="store_true",
           default=False, help="no action that changes the cluster (restart, stop, start, "
           "log levels, rolling restart, backups); also read_only in the [ndbtop] "
           "option-file group"),
    option("--audit-log", commands=ACTING | {"report", "fleet"}, group=SAFETY, metavar="FILE",
           help="where actions are logged (default ~/.local/state/ndbtop/audit.log); "
           "report: the audit log to include"),
    # wait and rolling-restart.
    option("--status", commands={"wait"}, group="wait", default="started",
           choices=("started", "not-started", "no-contact"),
           help="the state to wait for (default started)"),
    option("--nodes", commands={"wait", "rolling-restart"}, group="nodes", type=node_list,
           metavar="ID,ID", help="only these data nodes (default: all)"),
    option("--timeout", commands={"wait", "mgm"}, group="wait", type=positive, default=600.0,
           metavar="SECONDS", help="give up after this long (default 600; at most a week); "
           "mgm: with --wait"),
    option("--backup-completed", commands={"wait"}, group="wait", type=backup_id,
           metavar="ID", help="wait until backup ID completes (exit 1 if it aborts or the "
           "time runs out), printing its progress; instead of --status"),
    option("--backup-status-interval", commands={LIVE, "demo", "record", "wait", "export"},
           group="backups", type=report_interval, default=10.0, metavar="SECONDS",
           help="while a backup runs, ask the data nodes for its progress (REPORT "
           "BACKUPSTATUS) this often (default 10; 0: only at connect)"),
    option("--per-group", commands={"rolling-restart"}, group="rolling restart",
           action="store_true", default=False,
           help="restart one node of every node group at a time, together, with -a: their "
           "transactions are aborted, not drained (the server refuses several nodes in one "
           "graceful request); asks for a typed phrase"),
    option("--initial", commands={"rolling-restart"}, group="rolling restart",
           action="store_true", default=False,
           help="initial node restarts (RESTART -i: the nodes rebuild their data)"),
    option("--dry-run", commands={"rolling-restart", "mgm"}, group="rolling restart",
           action="store_true", default=False, help="send nothing: rolling-restart shows the "
           "plan; mgm shows the guard's verdict, the exact request and the management server, "
           "and exits 1 if it would be refused or needs a phrase --confirm did not give"),
    option("--yes", commands={"rolling-restart", "mgm"}, group="rolling restart",
           action="store_true", default=False, help="do not ask: rolling-restart starts "
           "without confirmation and aborts on any problem; mgm answers yes to a yes/no "
           "question; never stands for a typed phrase (--confirm)"),
    option("--force-degraded", commands={"rolling-restart"}, group="rolling restart",
           action="store_true", default=False,
           help="go on through a degraded cluster (a node group missing a node, a data node "
           "stopping or NO_CONTACT), leaving out the nodes that cannot be restarted; never "
           "past single-user mode or a starting node"),
    option("--node-timeout", commands={"rolling-restart"}, group="rolling restart",
           type=positive, default=1800.0, metavar="SECONDS",
           help="how long a node may take to be STARTED again (default 1800; at most a week)"),
    option("--gate-wait", commands={"rolling-restart"}, group="rolling restart",
           type=number(0, 7 * DAY), default=600.0, metavar="SECONDS",
           help="when findings hold the next step and no one can be asked (no terminal, "
           "--json or --yes): wait this long for them to clear, then abort (default 600; "
           "0: abort at once; at most a week)"),
    # mgm.
    option("-e", "--execute", commands={"mgm"}, group="mgm", metavar="COMMAND",
           help="run one ndb_mgm command (\"2 RESTART -i\", \"SHOW\") and exit; without it, "
           "a prompt"),
    option("--wait", commands={"mgm"}, group="mgm", action="store_true", default=False,
           help="with -e RESTART or START: once the request is sent, wait for the nodes it "
           "acted on as 'ndbtop wait --nodes' does (STARTED; NOT_STARTED after RESTART -n), "
           "a line per change with the start's estimate; exit as wait does"),
    option("--confirm", commands={"mgm", "rolling-restart"}, group="rolling restart",
           metavar="PHRASE", help="for scripts: the phrase a dangerous command or plan asks to "
           "be typed (a node id, the phrase naming what happens to the cluster, or "
           "rolling-restart --per-group's 'abort transactions'): must match exactly, else "
           "refused"),
    # record, replay, report.
    option("file", commands={"record", "replay"}, group="recording", metavar="FILE",
           help="the recording (FILE.1 ... after rotation by record --max-mb)"),
    option("--check", commands={"replay"}, group="recording", action="store_true",
           default=False, help="read the whole recording and exit: 0 if it is whole, "
           "1 if it is damaged (saying where)"),
    option("--duration", commands={"record"}, group="recording", type=number(0, 366 * DAY,
           above=True), metavar="SECONDS",
           help="stop after this long (default: until Ctrl-C; at most a year)"),
    option("--max-mb", commands={"record"}, group="recording",
           type=number(0, 1024, above=True), default=200.0,
           metavar="MB", help="start a new file beyond this size (default 200, at most 1024: "
           "replay reads files up to 1 GB)"),
    option("--keep", commands={"record"}, group="recording",
           type=number(0, 1000, integer=True), default=5, metavar="N",
           help="older files kept after rotation (default 5, 0 to 1000)"),
    option("--demo", commands={"record"}, group="recording", action="store_true", default=False,
           help="record a simulated cluster (scenario options) instead"),
    option("--bundle", commands={"report"}, group="report", metavar="FILE", required=True,
           help="the archive to write"),
    option("--events-seconds", commands={"report"}, group="report", type=number(0, 3600),
           default=5.0, metavar="SECONDS",
           help="listen to events this long (default 5; 0: not at all; at most 3600)"),
    option("--recording", commands={"report"}, group="report", metavar="FILE",
           help="include the end of this recording (ndbtop record)"),
    option("--minutes", commands={"report"}, group="report",
           type=number(0, 366 * 24 * 60, above=True), default=15.0,
           metavar="N", help="how much of the recording (default 15)"),
    # export.
    option("--listen", commands={"export"}, group="export", default=DEFAULT_LISTEN,
           metavar="HOST:PORT", help=f"address to serve the metrics on (default "
           f"{DEFAULT_LISTEN}; :PORT for every interface, [ADDR]:PORT for IPv6)"),
    # The simulated cluster.
    option("--scenario", commands=SIMULATING, group=SCENARIO, default=DEFAULT_SCENARIO,
           metavar="NAME", help=f"scenario to play (default {DEFAULT_SCENARIO}; --list shows all)"),
    option("--list", commands={"demo", "sim"}, group=SCENARIO, action="store_true",
           default=False, help="list the scenarios and exit"),
    option("--fleet", commands={"demo"}, group=SCENARIO, dest="demo_fleet",
           action="store_true", default=False,
           help="three simulated clusters in the fleet overview: prod (a node restart under "
           "way, production), dr (healthy) and staging (a finding)"),
    option("--speed", commands=SIMULATING | {"replay"}, group=SCENARIO,
           type=number(0, 100_000, above=True),
           metavar="X", help="simulated seconds per real second (default: the scenario's own; "
           "replay: 1)"),
    option("--seed", commands=SIMULATING, group=SCENARIO,
           type=number(0, 2**32 - 1, integer=True), default=1,
           help="random seed (same seed, same run)"),
    option("--fast-redo", commands=SIMULATING, group=SCENARIO, action="store_true",
           default=False, help="initial-start: redo log files created without a sync per page"),
    option("--report-frequency", commands=SIMULATING, group=SCENARIO, type=report_frequency,
           metavar="SECONDS", help="StartupStatusReportFrequency of the data nodes: redo-log "
           "progress every SECONDS during an initial start (default 0, as NDB: only the first "
           "and the last report)"),
    option("--ndb-version", commands=SIMULATING, group=SCENARIO, metavar="X.Y.Z",
           help="simulated NDB version (8.4.3)"),
    option("--data-node-hosts", commands=SIMULATING, group=SCENARIO, type=host_list,
           default=(), metavar="HOST,HOST", help="hosts the data nodes report, in turn (e.g. "
           "127.0.0.2,127.0.0.3 to read them with --ssh on this machine)"),
    option("--mgm-host", commands=SIMULATING, group=SCENARIO, type=one_host, metavar="HOST",
           help="the host the first management server is configured on (e.g. 127.0.0.2 to "
           "read its cluster log with --ssh on this machine)"),
    option("--mgm-data-dir", commands=SIMULATING, group=SCENARIO, type=existing_dir,
           metavar="DIR", help="the management servers' DataDir: each writes its cluster log "
           "file there, in the real layout"),
    option("--at", commands=SIMULATING, group=SCENARIO, type=number(0, 366 * DAY), default=0.0,
           metavar="SECONDS", help="start the scenario this many simulated seconds in"),
    option("--fail-node", commands=SIMULATING, group=SCENARIO, type=node_id, metavar="ID",
           help="inject a failure: every node restart of this data node hangs in a start "
           "phase (--fail-phase) and never finishes"),
    option("--fail-phase", commands=SIMULATING, group=SCENARIO, type=start_phase,
           default=DEFAULT_FAIL_PHASE, metavar="PHASE",
           help=f"the start phase --fail-node hangs in (default {DEFAULT_FAIL_PHASE})"),
    option("--mgm-port", commands={"sim"}, group="simulator", type=listen_port, action="append",
           metavar="PORT", help="port of a management server (repeat for several; 0 or "
           "absent: free)"),
    option("--sql-port", commands={"sim"}, group="simulator", type=listen_port, default=0,
           metavar="PORT", help="port of the SQL node (0: a free one)"),
    option("--ignore", commands={"check"}, group="check", action="append", default=[],
           metavar="ID", help="leave out finding ID (repeat, or ID,ID)"),
    option("--require", commands={"check"}, group="check", action="append", default=[],
           metavar="SOURCE", help="UNKNOWN unless SOURCE was read: sql, ssh, cluster-log, "
           "replication (every SQL node named for it) (repeat, or SOURCE,SOURCE)"),
    option("--warning-only", commands={"check"}, group="check", action="store_true",
           default=False, help="report critical findings as WARNING (exit at most 1)"),
    option("--all", commands={"config"}, group="config", dest="all_params",
           action="store_true", default=False,
           help="print every parameter, those at ConfigInfo's default too"),
    option("--diff", commands={"config"}, group="config", metavar="FILE",
           help="print the differences from the config.ini FILE to the configuration read "
           "(exit 1 when there are some)"),
    option("--diff-running", commands={"config"}, group="config", action="store_true",
           default=False, help="print the data nodes' parameters that differ from what they "
           "run with (ndbinfo.config_values; needs a SQL node; exit 1 when some do)"),
    option("--bind", commands={"sim"}, group="simulator", default="127.0.0.1",
           metavar="ADDRESS", help="address to listen on (default 127.0.0.1)"),
    option("--require-tls", commands={"sim"}, group="simulator", action="store_true",
           default=False, help="answer like a management server with RequireTls=true"),
    option("--tls-dir", commands={"sim"}, group="simulator", metavar="DIR",
           help="give the management servers a certificate: a CA, their certificate and a "
           "client's (ndb-api-cert) are made in DIR with openssl if not there"),
    option("shell", commands={"completion"}, group="completion", metavar="SHELL",
           choices=("bash", "zsh", "fish"), help="the shell to complete for: bash, zsh or fish"),
)
"""Every option of every command: see :mod:`ndbtop.cli.optionspec` for the rules."""

_ASK = "\x00ask"
"""Stands for a bare ``-p`` directly before the command: ask for the password."""


class CommandLine(Parser):
    """The top parser: options before or after the command, checked once parsed."""

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """Parse, refuse options the command cannot use, and fill in its defaults."""
        argv = list(sys.argv[1:] if args is None else args)
        # A bare -p takes the next word as its value: not when that word is the command.
        for i, word in enumerate(argv[:-1]):
            if word in ("-p", "--mysql-password") and argv[i + 1] in COMMANDS:
                argv[i] = f"--mysql-password={_ASK}"
        parsed = super().parse_args(argv, namespace)
        command = getattr(parsed, "command", None) or LIVE
        refuse = self._commands[command].error if command else self.error
        finish(parsed, OPTIONS, command, refuse)
        refuse_clashes(parsed, OPTIONS, command, refuse)
        if getattr(parsed, "mysql_password", None) == _ASK:
            parsed.mysql_password = PROMPT
        parsed.command = command or None
        return parsed

    _commands: dict[str, argparse.ArgumentParser]


def build_parser() -> CommandLine:
    """The ``ndbtop`` parser with its commands, every option from :data:`OPTIONS`."""
    p = CommandLine(
        prog="ndbtop",
        description="Live view of a MySQL NDB Cluster: nodes and start phases, threads, "
        "disks, events; with guarded restart/start/stop actions.",
        epilog="Without a command, ndbtop opens the live view of the cluster at "
        "CONNECTSTRING. Options may come before or after the command; a command refuses "
        "those it cannot use ('ndbtop COMMAND --help' lists its own). "
        "Try 'ndbtop demo' for a simulated cluster.",
    )
    p.add_argument("--version", action=VersionAction,
                   help="show the version, the Python it runs on and the NDB versions and "
                   "protocol features ndbtop uses with each, and exit")
    add_options(p, OPTIONS, LIVE)
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    p._commands = {}
    for name in COMMANDS:
        summary, description = DESCRIPTIONS[name]
        command = sub.add_parser(name, help=summary, description=description)
        add_options(command, OPTIONS, name)
        p._commands[name] = command
    return p
