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

from ndbtop.cli.context_args import context_name
from ndbtop.cli.sources import (
    cluster_connectstring,
    host_reader,
    ndbinfo_reader,
    replication_setup,
    ssh_options,
)
from ndbtop.collect.hub import Hub
from ndbtop.errors import NdbtopError
from ndbtop.findings import RULE_IDS
from ndbtop.findings.coverage import replication_silent, unjudged_text, unread
from ndbtop.model.clock import RealClock
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.sources import SourceState
from ndbtop.report.findings import PLUGIN_UNKNOWN, check_line, plugin_head
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


REQUIRABLE = ("sql", "ssh", "cluster-log", "replication")


def required(values: list[str]) -> tuple[str, ...]:
    """The sources of every ``--require``; an unknown one raises ValueError naming it."""
    names = tuple(dict.fromkeys(i.strip() for v in values for i in v.split(",") if i.strip()))
    unknown = [n for n in names if n not in REQUIRABLE]
    if unknown:
        raise ValueError(f"--require: no source {', '.join(map(repr, unknown))} "
                         f"(sources: {', '.join(REQUIRABLE)})")
    return names


def missing(snap: ClusterSnapshot, names: tuple[str, ...], ssh: bool) -> list[str]:
    """``name (why)`` for each required source the snapshot did not read."""
    out = []
    for name in names:
        if name == "sql":
            src = snap.source("ndbinfo")
            if snap.live_ndbinfo() is None:
                out.append(f"sql ({src.error if src is not None and src.error else 'not read'})")
        elif name == "ssh":
            hosts = [h for h in snap.hosts if h.via == "ssh"]
            bad = [h.host for h in hosts if h.state != "ok"]
            if not ssh:
                out.append("ssh (no --ssh)")
            elif not hosts or bad:
                out.append(f"ssh ({'no data node host read' if not hosts else 'not read: '}"
                           f"{', '.join(bad)})")
        elif name == "replication":
            src = snap.source("replication")
            silent = replication_silent(snap)
            if src is None or snap.replication is None:
                out.append("replication (no replica named)")
            elif src.state is not SourceState.CONNECTED:
                out.append(f"replication ({src.error or src.state.value})")
            elif silent:
                out.append(f"replication (no answer from {', '.join(silent)})")
        else:
            src = snap.source("cluster-log")
            if src is None or src.state is not SourceState.CONNECTED:
                out.append(f"cluster-log ({src.error if src is not None else 'not read'})")
    return out


def unknown(text: str, cluster: str | None) -> int:
    """Print the UNKNOWN line saying ``text`` about ``cluster`` (a context's name, or
    None); the plugin's exit code."""
    write_line(sys.stdout, plugin_text(plugin_head("UNKNOWN", cluster) + text))
    return PLUGIN_UNKNOWN


def run_check(args: argparse.Namespace) -> int:
    """Collect once, judge, print one line naming the context judged; the plugin's exit
    code."""
    cluster = context_name(args)
    try:
        skip = ignored(args.ignore)
        needed = required(args.require)
        hub = Hub(cluster_connectstring(args), RealClock(), args.interval,
                  ndbinfo=ndbinfo_reader(args), host=host_reader(args), ssh=ssh_options(args),
                  events=False, replication=replication_setup(args))
    except (ValueError, NdbtopError) as exc:
        return unknown(str(exc), cluster)
    try:
        snap = asyncio.run(_collect(hub))
    except NdbtopError as exc:
        return unknown(str(exc), cluster)
    lacking = missing(snap, needed, bool(getattr(args, "ssh", False)))
    if lacking:
        return unknown(f"required source not read: {'; '.join(lacking)}", cluster)
    found = tuple(f for f in snap.findings if f.id not in skip)
    code, line = check_line(snap, found, args.warning_only, coverage_text(snap, 0.0), cluster)
    write_line(sys.stdout, line)
    return code


def coverage_text(snap: ClusterSnapshot, heard_s: float | None) -> str:
    """The sources not read and the rules left unjudged, for the plugin line."""
    parts = [f"{name} not read ({why})" for name, why in unread(snap)]
    bad = [h for h in snap.hosts if h.via == "ssh" and h.state != "ok"]
    if bad:
        # The data node hosts --ssh was asked to read: their disks and error logs.
        parts.append(f"ssh not read ({', '.join(h.host for h in bad)}: "
                     f"{bad[0].error or bad[0].state})")
    judged = unjudged_text(snap, heard_s)
    return "; ".join([*parts, *([judged] if judged else [])])


async def _collect(hub: Hub):  # type: ignore[no-untyped-def]
    try:
        return await hub.collect_once()
    finally:
        await hub.stop()
