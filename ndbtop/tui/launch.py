"""Starting the live view for a real cluster, for the demo, or on a recording."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path

from ndbtop.actions.audit import AuditLog, default_audit_path
from ndbtop.collect.history_store import default_history_dir
from ndbtop.collect.hub import Hub
from ndbtop.errors import NdbtopError
from ndbtop.record.reader import Recording
from ndbtop.record.replay import ReplaySource
from ndbtop.tui.app import NdbtopApp

THEMES = {
    "dark": "textual-dark",
    "light": "textual-light",
    "ansi": "ansi-dark",
    "ansi-light": "ansi-light",
}


def _prepare(args: argparse.Namespace) -> tuple[AuditLog, str]:
    if getattr(args, "no_color", False):
        os.environ["NO_COLOR"] = "1"
    audit_log = getattr(args, "audit_log", None)
    audit = AuditLog(Path(audit_log) if audit_log else default_audit_path())
    return audit, THEMES.get(getattr(args, "theme", "dark") or "dark", "textual-dark")


def settle_memory() -> None:
    """Make the garbage collector cheap for a long-running view.

    Everything imported so far lives as long as the process: frozen, the collector
    never walks it again. Every refresh allocates thousands of short-lived objects;
    a higher first threshold collects them ten times less often. Cycles are still
    collected, a few seconds later rather than at once.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 10)


def _run(app: NdbtopApp) -> int:
    settle_memory()
    status = app.run() or 0
    for path in app.recordings:
        sys.stderr.write(f"ndbtop: recording written to {path}\n")
    return status


def run_tui(hub: Hub, args: argparse.Namespace) -> int:
    """The live view of a real cluster; returns the exit status."""
    audit, theme = _prepare(args)

    async def start() -> Hub:
        return hub

    app = NdbtopApp(start, read_only=args.read_only, audit=audit, theme=theme)
    return _run(app)


def run_demo_tui(args: argparse.Namespace) -> int:
    """The live view of a simulated cluster started in the same process."""
    from ndbtop.cli.demo import demo_hub
    from ndbtop.cli.scenario import make_simulator

    audit, theme = _prepare(args)
    sim = make_simulator(args)
    speed = sim.clock.speed
    sim.clock.set_speed(1.0)

    async def start() -> Hub:
        await sim.start(sql_port=None if args.no_sql else 0, sql_in_background=True)
        hub = demo_hub(sim, args.interval, history_dir=default_history_dir())
        events = hub.events
        if events is not None:
            sim.speed_up_when(lambda: events.listening_levels is not None, speed)
        return hub

    app = NdbtopApp(
        start,
        stop=sim.close,
        read_only=args.read_only,
        audit=audit,
        simulated=f"{args.scenario} x{speed:g}",
        theme=theme,
    )
    return _run(app)


def run_replay_tui(recording: Recording, args: argparse.Namespace) -> int:
    """The live view on a recording, read-only, starting at ``args.speed``."""
    audit, theme = _prepare(args)
    try:
        source = ReplaySource(recording)
    except (KeyError, TypeError, ValueError) as exc:
        raise NdbtopError(f"{recording.path}: damaged recording ({exc})") from None
    source.speed = getattr(args, "speed", 1.0) or 1.0

    async def start() -> ReplaySource:
        return source

    app = NdbtopApp(start, replay=True, audit=audit, theme=theme)
    settle_memory()
    return app.run() or 0
