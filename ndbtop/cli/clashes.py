"""Options a command takes but that cannot apply together with another one it was given.

:mod:`ndbtop.cli.optionspec` refuses an option a command never takes. Some options
a command takes lose their meaning beside another: ``--theme`` with ``--once``
(no screen is drawn), ``--mysql-host`` with ``--no-sql`` (no SQL node is read).
Each such case is one :class:`Clash`, refused once the line is parsed, with one
line and exit status 2, in whichever order and position the options were given.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ndbtop.cli.optionspec import LIVE, Option
from ndbtop.compat import SLOTS

SQL_OPTIONS = ("mysql_host", "mysql_port", "mysql_user", "mysql_password", "mysql_socket",
               "ssl_ca", "ssl_cert", "ssl_key", "login_path", "defaults_group_suffix")
"""Destinations of the options that say how to reach the SQL node."""
PER_CLUSTER = ("connectstring", "ndb_tls_search_path", "ndb_mgm_tls", *SQL_OPTIONS,
               "defaults_file", "replica_mysql_host", "replica_mysql_port", "ssh",
               "ssh_config", "ssh_user", "ssh_option")
"""Destinations of the options that describe how to reach one cluster: each context of
``export --contexts`` has its own."""
REPLICATING = frozenset({LIVE, "record", "report", "export", "check"})
"""The commands that take ``--replica-mysql-host`` (as :mod:`ndbtop.cli.parser` declares)."""


@dataclass(frozen=True, **SLOTS)
class Clash:
    """With ``when`` given to one of ``commands`` (or, with ``absent``, not given), the
    options stored in ``refused`` cannot apply; ``why`` says why."""

    commands: frozenset[str]
    when: str
    refused: tuple[str, ...]
    why: str
    absent: bool = False


CLASHES: tuple[Clash, ...] = (
    Clash(frozenset({LIVE, "demo", "record", "report", "rolling-restart"}), "no_sql",
          SQL_OPTIONS,
          "--no-sql reads no SQL node"),
    Clash(frozenset({LIVE, "demo"}), "once", ("theme", "audit_log"),
          "--once prints one report: it draws no screen and takes no action"),
    Clash(frozenset({"replay"}), "check", ("theme", "no_color", "speed"),
          "--check reads the recording without showing it"),
    Clash(frozenset({"report"}), "recording", ("minutes",),
          "--minutes is how much of --recording goes in", absent=True),
    Clash(frozenset({"demo", "sim"}), "list", ("*",),
          "--list only lists the scenarios"),
    Clash(frozenset({"demo"}), "demo_fleet", ("once", "scenario", "at", "fail_node",
                                             "data_node_hosts", "no_sql"),
          "--fleet plays its own three clusters in the fleet overview"),
    Clash(frozenset({"export"}), "all_contexts", ("context", *PER_CLUSTER),
          "--contexts serves every context with its own settings of clusters.toml"),
    Clash(frozenset({LIVE, "rolling-restart", "mgm"}), "read_write", ("read_only",),
          "--read-write lifts a context's read_only"),
    Clash(frozenset({LIVE, "record", "report", "export"}), "ssh",
          ("ssh_config", "ssh_user", "ssh_option"),
          "only --ssh reads the data node hosts", absent=True),
    Clash(frozenset({"mgm"}), "wait", ("timeout",), "--timeout is how long --wait waits",
          absent=True),
    Clash(frozenset({"mgm"}), "dry_run", ("wait",), "--dry-run sends nothing to wait for"),
    Clash(frozenset({"config"}), "diff_running", (*SQL_OPTIONS, "no_sql", "defaults_file"),
          "only --diff-running reads a SQL node", absent=True),
    Clash(REPLICATING, "no_sql", ("replica_mysql_host", "replica_mysql_port",
                                  "replication_lag_threshold"),
          "--no-sql reads no SQL node"),
    Clash(REPLICATING, "replica_mysql_host", ("replica_mysql_port",),
          "it is the port of the SQL nodes --replica-mysql-host names", absent=True),
)
"""Every pair of options that cannot apply together ("*": any other option)."""

_ALWAYS = frozenset({"list", "debug"})


def refuse_clashes(args: argparse.Namespace, options: Sequence[Option], command: str,
                   refuse: Callable[[str], object]) -> None:
    """Refuse the first option of ``args.given`` that cannot apply beside another one."""
    names = {o.destination: o.name for o in options}
    given = args.given
    for clash in CLASHES:
        if command not in clash.commands or (clash.when in given) == clash.absent:
            continue
        if clash.refused == ("*",):
            refused = sorted(given - _ALWAYS - {clash.when})
        else:
            refused = [d for d in clash.refused if d in given]
        if refused:
            if clash.absent:
                refuse(f"{names[refused[0]]} needs {names[clash.when]} ({clash.why})")
            refuse(f"{names[refused[0]]} does not apply with {names[clash.when]} ({clash.why})")
