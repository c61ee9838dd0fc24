"""Render the README's screenshots: each view at the moment of a field scenario that tells
its story, the restart confirmation and the help overlay, as 120x40 SVG files (and one at
80x24, the smallest terminal every view is made for).

Every picture comes from a seeded scenario captured at a fixed simulated time
(:mod:`ndbtop.demo.capture`) and shown through a frozen source, so running this
twice writes the same bytes::

    .venv/bin/python screenshots/generate.py            # into screenshots/
    .venv/bin/python screenshots/generate.py OUT_DIR
    .venv/bin/python screenshots/generate.py OUT_DIR NAME...   # only these pictures
"""

from __future__ import annotations

import os
import time

# Before Textual is imported: times in UTC, and the console as wide as the screenshot
# (the event log wraps its lines at the console's width).
os.environ["TZ"] = "UTC"
os.environ["COLUMNS"] = "120"
os.environ["LINES"] = "40"
os.environ.pop("NO_COLOR", None)
time.tzset()

import asyncio  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from textual.pilot import Pilot  # noqa: E402

from ndbtop.actions.audit import AuditLog  # noqa: E402
from ndbtop.demo.capture import CaptureSpec, capture  # noqa: E402
from ndbtop.fleet.rows import fleet_row  # noqa: E402
from ndbtop.fleet.watch import FrozenFleet  # noqa: E402
from ndbtop.model.sources import SourceState, SourceStatus  # noqa: E402
from ndbtop.tui.app import NdbtopApp  # noqa: E402
from ndbtop.tui.fleet import FleetApp  # noqa: E402
from ndbtop.tui.screen_text import screen_text  # noqa: E402
from ndbtop.tui.source import FrozenSource  # noqa: E402

SIZE = (120, 40)


@dataclass(frozen=True)
class Shot:
    """One screenshot: the captured moment, the keys pressed, and the window title."""

    name: str
    spec: CaptureSpec
    keys: tuple[str, ...]
    title: str
    shows: str
    """Text the picture must contain (a check that the moment is the intended one)."""
    size: tuple[int, int] = SIZE


SHOTS = (
    Shot(
        "nodes-s1-initial-start",
        CaptureSpec("initial-start", 1800.0),
        ("1",),
        "ndbtop · S1: --initial start, 30 minutes into redo log initialisation",
        "4 redo log init",
    ),
    Shot(
        "nodes-s1-80x24",
        CaptureSpec("initial-start", 1200.0, report_frequency=10),
        ("1",),
        "ndbtop · S1 at 80x24: the redo log's progress first, whole columns, every tab",
        "redo log init",
        size=(80, 24),
    ),
    Shot(
        "nodes-large-memory-links",
        CaptureSpec("large", 120.0),
        ("1",),
        "ndbtop · 48 data nodes: DataMemory in use, and the selected node's memory and links",
        "links     data nodes 47/47",
    ),
    Shot(
        "disk-s1-synced-redo-writes",
        CaptureSpec("initial-start", 1800.0),
        ("3",),
        "ndbtop · S1: the disk during redo log initialisation (synced 20 kB writes)",
        "100.0",
    ),
    Shot(
        "threads-s5-hot-thread",
        CaptureSpec("threads", 120.0),
        ("2",),
        "ndbtop · S5: one hot LDM thread on data node 2",
        "ldm 3",
    ),
    Shot(
        "disk-s4-hit-ratio",
        CaptureSpec("disk-buffer", 1500.0, step=45.0),
        ("3",),
        "ndbtop · S4: disk page buffer hit ratio after DiskPageBufferMemory 64M → 512M",
        "hit since start",
    ),
    Shot(
        "events-statistics",
        CaptureSpec("threads", 60.0, statistics=True),
        ("4",),
        "ndbtop · S5: the cluster log with CLUSTERLOG STATISTICS=15",
        "Statistics reported by the data nodes",
    ),
    Shot(
        "restarts-s2-node-restart",
        CaptureSpec("node-restart", 520.0),
        ("5",),
        "ndbtop · S2: node restart of node 3 on 7.6, step by step",
        "Restart completed",
    ),
    Shot(
        "backup-in-progress",
        CaptureSpec("backup", 170.0, step=5.0),
        ("6",),
        "ndbtop · a backup of 4 data nodes with 45 GB each, 2 1/2 minutes in",
        "Backup 1 running",
    ),
    Shot(
        "config-pending-restarts",
        CaptureSpec("config-change", 300.0, step=5.0),
        ("7",),
        "ndbtop · a configuration change: node 2 restarted onto generation 5, three to go",
        "nodes 3, 4, 5 still run an older configuration",
    ),
    Shot(
        "confirm-restart",
        CaptureSpec("node-restart", 200.0),
        ("1", "r"),
        "ndbtop · restarting node 2 while node 3 restarts: refused, as the server would (5063)",
        "Restart (refused)",
    ),
    Shot(
        "findings-gcp-stall",
        CaptureSpec("gcp-stall", 200.0, step=5.0),
        ("8",),
        "ndbtop · findings: the GCP Monitor's lag warnings before a GCP stop, with the "
        "server's limit",
        "gcp_save_lag",
    ),
    Shot(
        "rolling-gate-gcp-stall",
        CaptureSpec("gcp-stall", 200.0, step=5.0),
        ("W",),
        "ndbtop · a rolling restart planned during a GCP stall: step 1 would wait at the gate",
        "step 1 would wait now at the gate",
    ),
    Shot(
        "nodes-node-down-triage",
        CaptureSpec("node-down", 60.0, step=1.0),
        ("1", "down"),
        "ndbtop · a data node that was down before ndbtop started: its error log and its host",
        "Trace file path",
    ),
    Shot(
        "tables-skewed",
        CaptureSpec("node-down", 60.0, step=1.0, panels=("tables",)),
        ("9",),
        "ndbtop · memory per table: the largest tables, a skewed one, and the node that fills "
        "first",
        "order_events",
    ),
    Shot(
        "locks-lock-chain",
        CaptureSpec("lock-chain", 60.0, step=1.0, panels=("transactions", "locks")),
        ("0",),
        "ndbtop · a transaction idle ten minutes and the three lock waits chained behind it",
        "orders",
    ),
    Shot(
        "nodes-arbitrator-change",
        CaptureSpec("arbitrator-change", 50.0, step=1.0, panels=("membership",)),
        ("1",),
        "ndbtop · the president failed and the arbitrator moved: the membership line",
        "arbitrator 49",
    ),
    Shot(
        "replication-lag",
        CaptureSpec("replication-lag", 150.0, step=5.0),
        ("e",),
        "ndbtop · replication-lag: the DR replica applies 4 epochs a second of the 10 written",
        "derived: ",
    ),
    Shot(
        "help",
        CaptureSpec("threads", 120.0),
        ("question_mark",),
        "ndbtop · keys",
        "ndbtop keys",
    ),
)


FLEET = (
    # context, colour, production, the moment of its cluster
    ("prod", "red", True, CaptureSpec("fleet:prod", 600.0, panels=("restart_info",))),
    ("dr", "blue", False, CaptureSpec("fleet:dr", 120.0)),
    ("staging", "green", False, CaptureSpec("fleet:staging", 120.0)),
)
"""The fleet overview's clusters: demo --fleet's three, and qa, which does not answer."""


async def render_fleet() -> str:
    """The fleet overview: prod in a rolling restart, dr healthy, staging with a finding,
    qa not answering; the cursor on prod."""
    rows = []
    for name, colour, production, spec in FLEET:
        cap = await capture(spec)
        rows.append(fleet_row(name, cap.snapshot, color=colour, production=production))
    lost = rows[-1].age or 0.0
    refused = SourceStatus("mgm", SourceState.RETRYING, "mgm.qa.example:1186",
                           error="cannot connect to a management server: mgm.qa.example:1186:"
                           " connection refused", last_ok=None)
    snap = cap.snapshot
    rows.append(fleet_row("qa", type(snap)(snap.taken_at + lost, snap.wall, 2.0, (refused,)),
                          color="magenta"))
    app = FleetApp(FrozenFleet(tuple(rows)), wall=lambda: snap.wall)  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, lambda: "connection refused" in screen_text(app))
        return app.export_screenshot(
            title="ndbtop fleet · every context of clusters.toml: one row per cluster")


async def settle(pilot: Pilot[int], done: Callable[[], object]) -> None:
    """Let the app handle its messages until ``done()`` holds."""
    for _ in range(400):
        await pilot.pause()
        if done():
            return
    raise RuntimeError("the app did not settle")


async def render(shot: Shot, audit: Path) -> str:
    """The SVG of one screenshot."""
    cap = await capture(shot.spec)

    async def start() -> FrozenSource:
        return FrozenSource(cap.snapshot, cap.connectstring)

    app = NdbtopApp(start, audit=AuditLog(audit), simulated=shot.spec.scenario)
    async with app.run_test(size=shot.size) as pilot:
        await settle(pilot, lambda: app.hub is not None and app.current_view.snapshot)
        for key in shot.keys:
            await pilot.press(key)
        shots = [screen_text(app)]

        def still() -> bool:
            shots.append(screen_text(app))
            return shot.shows in shots[-1] and len(set(shots[-4:])) == 1

        await settle(pilot, still)
        return app.export_screenshot(title=shot.title)


async def main(out: Path, only: tuple[str, ...] = ()) -> list[Path]:
    """Write every screenshot (or those named in ``only``) into ``out``; returns the files."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    if not only or "fleet" in only:
        path = out / "fleet.svg"
        path.write_text(await render_fleet(), encoding="utf-8")
        written.append(path)
    with tempfile.TemporaryDirectory() as tmp:
        for shot in SHOTS:
            if only and shot.name not in only:
                continue
            svg = await render(shot, Path(tmp) / "audit.log")
            path = out / f"{shot.name}.svg"
            path.write_text(svg, encoding="utf-8")
            written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE
    for path in asyncio.run(main(target, tuple(sys.argv[2:]))):
        print(path)
