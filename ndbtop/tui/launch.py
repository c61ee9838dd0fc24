"""Starting the live view for a real cluster or for the demo."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ndbtop.actions.audit import AuditLog, default_audit_path
from ndbtop.collect.history_store import default_history_dir
from ndbtop.collect.hub import Hub
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
    audit = AuditLog(Path(args.audit_log) if args.audit_log else default_audit_path())
    return audit, THEMES.get(getattr(args, "theme", "dark") or "dark", "textual-dark")


def run_tui(hub: Hub, args: argparse.Namespace) -> int:
    """The live view of a real cluster; returns the exit status."""
    audit, theme = _prepare(args)

    async def start() -> Hub:
        return hub

    app = NdbtopApp(start, read_only=args.read_only, audit=audit, theme=theme)
    return app.run() or 0


def run_demo_tui(args: argparse.Namespace) -> int:
    """The live view of a simulated cluster started in the same process."""
    from ndbtop.cli.demo import demo_hub
    from ndbtop.cli.scenario import make_simulator

    audit, theme = _prepare(args)
    sim = make_simulator(args)
    speed = sim.clock.speed
    sim.clock.set_speed(1.0)

    async def start() -> Hub:
        await sim.start(sql_port=None if args.no_sql else 0)
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
    return app.run() or 0
