"""``ndbtop`` against a real cluster: the live view, or one report with ``--once``."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from ndbtop.actions.audit import AuditLog, default_audit_path
from ndbtop.actions.left_not_started import LeftNotStarted
from ndbtop.cli.exits import DONE, UNREACHABLE
from ndbtop.cli.monitor_hub import monitor_hub
from ndbtop.collect.hub import Hub
from ndbtop.errors import UsageError
from ndbtop.model.sources import SourceState
from ndbtop.report.once_sections import sections_json, sections_panels, sections_text
from ndbtop.report.render import report_json, report_text
from ndbtop.report.sections import default_panels
from ndbtop.sanitise import json_text, write_line


def run_monitor(args: argparse.Namespace) -> int:
    """Open the live view, or print one report."""
    if args.json and not args.once:
        raise UsageError("--json needs --once")
    if args.section is not None and not args.once:
        raise UsageError("--section needs --once")
    hub = monitor_hub(args)
    if args.once:
        context = getattr(args, "context_info", None)
        return asyncio.run(print_once(hub, args.json, args.section,
                                      context.name if context is not None else None))
    from ndbtop.cli.fleet import run_live

    return run_live(hub, args)


async def print_once(hub: Hub, as_json: bool, sections: Sequence[str] | None = None,
                     context: str | None = None, audit_path: Path | None = None) -> int:
    """Collect once and print the report (of the context named ``context``); the restarts
    left unfinished are read from the audit log at ``audit_path`` (the user's by default).

    The management server must answer (its error is raised); the report is printed
    whatever the other sources did, and the status is 0 only if every source asked
    for answered (a SQL node that says it is not connected to the data nodes has
    answered: the report names it waiting): otherwise one line per source that could
    not be reached or refused, and status 3. The configuration and the events are
    secondary: without them the report still stands.
    """
    hub.want_panels("once", default_panels() if sections is None
                    else sections_panels(sections))
    try:
        snapshot = await hub.collect_once()
    finally:
        await hub.stop()
    # The restarts this user's ndbtop sent are in its audit log (--once takes no
    # --audit-log: it acts on nothing).
    audit = AuditLog(default_audit_path() if audit_path is None else audit_path)
    notes = LeftNotStarted(audit).notes(snapshot.nodes)
    if as_json:
        report = (report_json(snapshot, hub.interval, context) if sections is None
                  else sections_json(snapshot, sections, context))
        for node in report.get("nodes", ()):
            if node["node_id"] in notes:
                node["note"] = notes[node["node_id"]]
        sys.stdout.write(json_text(report, indent=2) + "\n")
    elif sections is None:
        sys.stdout.write(report_text(snapshot, notes, hub.interval, context))
    else:
        sys.stdout.write(sections_text(snapshot, sections, notes, context))
    sys.stdout.flush()
    failed = [s for s in snapshot.sources if s.state not in ANSWERED and s.name not in SECONDARY]
    for source in failed:
        target = f" ({source.target})" if source.target else ""
        write_line(sys.stderr, f"ndbtop: error: {source.name}{target}: "
                   f"{source.error or source.state.value}")
    return UNREACHABLE if failed else DONE


ANSWERED = frozenset({SourceState.CONNECTED, SourceState.DISABLED, SourceState.UNAVAILABLE})
"""Source states of a --once report that exits 0: a source that answered, if only to say
it waits (a SQL node not yet connected to the data nodes, as in an initial start)."""
SECONDARY = frozenset({"config", "events", "cluster-log"})
"""Sources whose failure loses their own part of the report only (named in its Sources
line), as a reply of the management server other than ``get status`` does."""
