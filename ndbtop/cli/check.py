"""``ndbtop check``: the findings as one monitoring-plugin line, for Nagios, Icinga and
Zabbix agents.

Exit codes are the plugin convention, not ndbtop's: 0 OK, 1 WARNING, 2 CRITICAL,
3 UNKNOWN. A management server that cannot be reached, and a usage error, are UNKNOWN
(a plugin's 2 would page someone for a typo).
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from ndbtop.cli.sources import cluster_connectstring, host_reader, ndbinfo_reader, ssh_options
from ndbtop.collect.hub import Hub
from ndbtop.errors import NdbtopError
from ndbtop.findings import RULE_IDS
from ndbtop.model.clock import RealClock
from ndbtop.report.findings import PLUGIN_UNKNOWN, check_line
from ndbtop.sanitise import plugin_text, write_line


def ignored(values: list[str]) -> tuple[str, ...]:
    """The finding ids of every ``--ignore`` (repeated or comma-separated); an unknown id
    raises ValueError naming it."""
    ids = tuple(i.strip() for v in values for i in v.split(",") if i.strip())
    unknown = [i for i in ids if i not in RULE_IDS]
    if unknown:
        raise ValueError(f"--ignore: no finding {', '.join(map(repr, unknown))} "
                         f"(ids: {', '.join(RULE_IDS)})")
    return ids


def run_check(args: argparse.Namespace) -> int:
    """Collect once, judge, print one line; the plugin's exit code."""
    try:
        skip = ignored(args.ignore)
        hub = Hub(cluster_connectstring(args), RealClock(), args.interval,
                  ndbinfo=ndbinfo_reader(args), host=host_reader(args), ssh=ssh_options(args),
                  events=False)
    except (ValueError, NdbtopError) as exc:
        write_line(sys.stdout, plugin_text(f"NDB UNKNOWN - {exc}"))
        return PLUGIN_UNKNOWN
    try:
        snap = asyncio.run(_collect(hub))
    except NdbtopError as exc:
        write_line(sys.stdout, plugin_text(f"NDB UNKNOWN - {exc}"))
        return PLUGIN_UNKNOWN
    found = tuple(f for f in snap.findings if f.id not in skip)
    code, line = check_line(snap, found, args.warning_only)
    write_line(sys.stdout, line)
    return code


async def _collect(hub: Hub):  # type: ignore[no-untyped-def]
    try:
        return await hub.collect_once()
    finally:
        await hub.stop()
