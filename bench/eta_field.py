"""The start estimate against the field: S1 and S2 replayed by the simulator, fast.

Each run plays one field scenario through the real collectors (the demo's hub, with its
simulated hosts) at a high simulation speed, keeps every snapshot's estimate of one
node's time to STARTED, and once the node is STARTED compares the estimated total
(time so far + estimate) with the real total at 10 %, 25 %, 50 % and 75 % of the way.

``--attached`` plays each of :data:`ATTACHED` with ndbtop arriving late: the cluster is
played alone (no ndbtop) to 25 %, 50 % or 75 % of the node's start, then the hub attaches
and the first estimate it gives (or, if none within :data:`ATTACH_LOOK_S`, why) is
compared with the real remaining time. With ``--cluster-log`` the simulated management
server writes its cluster log file (in a temporary DataDir) and the hub reads it, as it does
on the management server's host: the start is dated from the file's lines.

    PYTHONPATH=. .venv/bin/python bench/eta_field.py [--attached [--cluster-log]] [--only TEXT]
        [--json]

Prints a Markdown table (the ones in bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if sys.path[1:2] != [str(ROOT)]:
    sys.path.insert(1, str(ROOT))

from ndbtop.demo.hub import demo_hub  # noqa: E402
from ndbtop.model.eta import Eta, EtaMissing  # noqa: E402
from ndbtop.sim.clock import SimClock  # noqa: E402
from ndbtop.sim.cluster import SimCluster  # noqa: E402
from ndbtop.sim.cluster.datanode import STARTED  # noqa: E402
from ndbtop.sim.runtime import Simulator  # noqa: E402
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario  # noqa: E402

POINTS = (0.10, 0.25, 0.50, 0.75)
"""Shares of the way at which the estimate is compared with the real total."""


@dataclass(frozen=True)
class Case:
    """One replay: a scenario, its options, the node watched and which of its starts."""

    label: str
    scenario: str
    node: int
    options: ScenarioOptions = field(default_factory=ScenarioOptions)
    before: tuple[int, ...] = ()
    """Nodes whose starts come first, one after the other: the first is the scenario's own,
    each next one a restart once the one before is STARTED (their ``restart_info`` and the
    start history are then there for the node measured, restarted last)."""
    speed: float = 100.0
    attach_at: float = 0.0
    """Simulated second the replay starts at (S2's restart comes at 60 s)."""


CASES = (
    Case("S1 per-page sync, no progress reports", "initial-start", 10),
    Case("S1 per-page sync, reports every 10 s", "initial-start", 10,
         ScenarioOptions(report_frequency=10)),
    Case("S1 with the fix, reports every 10 s", "initial-start", 10,
         ScenarioOptions(fast_redo=True, report_frequency=10), speed=25.0),
    Case("S2 node restart 7.5, first seen", "node-restart", 3,
         ScenarioOptions(ndb_version="7.5.10"), speed=50.0, attach_at=55.0),
    Case("S2 node restart 7.5, again", "node-restart", 3,
         ScenarioOptions(ndb_version="7.5.10"), (3,), speed=50.0, attach_at=55.0),
    Case("S2 7.5, node 2 after its partner", "node-restart", 2,
         ScenarioOptions(ndb_version="7.5.10"), (3,), speed=50.0, attach_at=55.0),
    Case("S2 node restart 7.6, first seen", "node-restart", 3,
         ScenarioOptions(ndb_version="7.6.6"), speed=25.0, attach_at=55.0),
    Case("S2 node restart 7.6, again", "node-restart", 3,
         ScenarioOptions(ndb_version="7.6.6"), (3,), speed=25.0, attach_at=55.0),
    Case("S2 7.6, node 2 after its partner", "node-restart", 2,
         ScenarioOptions(ndb_version="7.6.6"), (3,), speed=25.0, attach_at=55.0),
)


ATTACHED = tuple(c for c in CASES if c.label in (
    "S1 per-page sync, no progress reports", "S1 per-page sync, reports every 10 s",
    "S1 with the fix, reports every 10 s", "S2 node restart 7.6, first seen",
    "S2 7.5, node 2 after its partner", "S2 7.6, node 2 after its partner"))
"""The cases replayed with ndbtop attaching late (``--attached``)."""
SHARES = (0.25, 0.50, 0.75)
"""Shares of the node's start at which ndbtop attaches."""
ATTACH_LOOK_S = 60.0
"""Simulated seconds after attaching within which the first estimate is taken (S1 reports
every 10 s: the rate needs two reports of each LDM instance)."""
RESTART_AFTER_S = 30.0
"""Simulated seconds between a node STARTED and the next node's restart (``before``)."""


def play(cluster: SimCluster, case: Case, until: float | None = None) -> tuple[float, float]:
    """Play ``cluster`` without ndbtop, restarting the nodes of ``case.before`` and then
    ``case.node`` one after the other, until ``until`` (simulated seconds) or the end of the
    node's start; (its beginning, its end) in simulated seconds, the end 0 when not yet."""
    order = (*case.before, case.node)
    done = 0
    restart_at: float | None = None
    triggered = 0.0
    """When the start of ``order[done]`` was asked for (0: the scenario's own)."""
    while until is None or cluster.now < until:
        node = cluster.data_nodes[order[done]]
        if restart_at is not None and cluster.now >= restart_at:
            cluster.restart_nodes((order[done],))
            restart_at, triggered = None, cluster.now
        elif restart_at is None and node.state == STARTED and node.start_began > triggered:
            if done + 1 == len(order):
                return node.start_began, node.started_at or cluster.now
            done += 1
            restart_at = cluster.now + RESTART_AFTER_S
        step = 1.0 if until is None else min(1.0, max(until - cluster.now, 0.01))
        cluster.advance(step)
        if cluster.now > 20000:
            raise RuntimeError(f"{case.label}: node {case.node} never finished its start")
    return cluster.data_nodes[case.node].start_began, 0.0


async def replay_attached(case: Case, share: float, poll: float = 0.05,
                          cluster_log: bool = False) -> tuple[float, float, Seen | None]:
    """(real total, seconds of it gone when ndbtop attached, the first estimate) of one
    case with ndbtop attaching at ``share`` of the node's start (``cluster_log``: the
    management server's cluster log file written and read)."""
    began, ended = play(build_scenario(case.scenario, case.options), case)
    total = ended - began
    with tempfile.TemporaryDirectory() as data_dir:
        options = replace(case.options, mgm_data_dir=data_dir if cluster_log else None)
        cluster = build_scenario(case.scenario, options)
        play(cluster, case, began + share * total)
        return total, share * total, await _first_estimate(cluster, case, began, poll)


async def _first_estimate(cluster: SimCluster, case: Case, began: float, poll: float
                          ) -> Seen | None:
    """The first estimate the demo's hub gives of ``case.node`` once it attached to
    ``cluster`` (or why none, within :data:`ATTACH_LOOK_S`)."""
    async with watching(cluster, poll) as (sim, hub):
        attached = sim.clock.now()
        real_began = sim.clock.wall(began)
        first: Seen | None = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            await asyncio.sleep(poll)
            if hub.events is not None and hub.events.answered.is_set() \
                    and sim.clock.speed == 1.0:
                sim.clock.set_speed(case.speed)
            if hub.cluster_log is not None and not hub.log.first_read.is_set():
                continue  # its file is read at once: the estimate it dates is the first
            snap = hub.snapshot()
            eta = snap.start_eta(case.node)
            if eta is not None:
                first = Seen(snap.wall, real_began, eta)
            if isinstance(eta, Eta) or sim.clock.now() - attached > ATTACH_LOOK_S:
                break
        return first


def attached_cell(total: float, point: Seen | None) -> str:
    """The first estimate after attaching: ``est. total (low-high) error in; basis``."""
    if point is None or point.eta is None:
        return "-"
    if isinstance(point.eta, EtaMissing):
        return f"none: {point.eta.reason}"
    so_far = point.wall - point.began_at
    est, low, high = (so_far + point.eta.seconds, so_far + point.eta.low,
                      so_far + point.eta.high)
    inside = "in" if low <= total <= high else "OUT"
    basis = [b for b in point.eta.basis if not b.startswith(("attached", "taken"))][:2]
    dated = [b for b in point.eta.basis if b.startswith("attached") and "cluster log" in b]
    if dated:
        basis.append("phase dated by the cluster log")
    return (f"{_mmss(est)} ({_mmss(low)}–{_mmss(high)}) {100 * (est - total) / total:+.0f}% "
            f"{inside}; {', '.join(basis)}")


@dataclass(frozen=True)
class Seen:
    """One snapshot's estimate: simulated wall time, and the estimate or its absence."""

    wall: float
    began_at: float
    eta: Eta | EtaMissing | None


async def replay(case: Case, poll: float = 0.05) -> tuple[float, list[Seen]]:
    """(real total, estimates seen during the start) of one case."""
    cluster = build_scenario(case.scenario, case.options)
    # Real time until a start's first seconds are seen (a status asked before it and
    # answered after its first event would be taken for its end), then fast.
    cluster.advance_to(case.attach_at)
    async with watching(cluster, poll) as (sim, hub):
        return await _watch(hub, sim, case, poll)


@contextlib.asynccontextmanager
async def watching(cluster: SimCluster, poll: float) -> AsyncIterator[tuple[Simulator, Any]]:
    """The simulator serving ``cluster`` from where it is, at real speed, and the demo's hub
    watching it (with a start history of its own); both stopped afterwards."""
    sim = Simulator(cluster, SimClock(speed=1.0, start_at=cluster.now))
    await sim.start(sql_port=0)
    with tempfile.TemporaryDirectory() as history:
        hub = demo_hub(sim, poll, history_dir=Path(history))
        await hub.start()
        try:
            yield sim, hub
        finally:
            await hub.stop()
            await sim.close()


async def _watch(hub: Any, sim: Simulator, case: Case, poll: float) -> tuple[float, list[Seen]]:
    order = (*case.before, case.node)
    starts_done = 0
    seen: list[Seen] = []
    followed: float | None = None
    """When the start followed began: its timeline may be replaced between two looks (a
    late event of its last phase opens another), so its end is read from the history."""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        await asyncio.sleep(poll)
        snap = hub.snapshot()
        node = order[starts_done]
        t = snap.timeline(node)
        if followed is None:
            if t is not None and t.active:
                followed = t.began_at
                await asyncio.sleep(3.0)
                sim.clock.set_speed(case.speed)
            else:
                continue
        if t is not None and t.active and t.began_at == followed:
            if starts_done + 1 == len(order):
                seen.append(Seen(snap.wall, t.began_at, snap.start_eta(node)))
            continue
        ended = [p for p in snap.past_starts
                 if p.node_id == node and p.finished_at >= followed]
        if not ended:
            continue
        total = min(ended, key=lambda p: p.finished_at).total_s
        followed = None
        starts_done += 1
        if starts_done == len(order):
            return total, seen
        # The next restart once this one's restart_info is read (it is one of the panels
        # read in rotation) and its node's memory after it; at real speed for its first
        # seconds, so that no status asked before it is taken for its end.
        for _ in range(400):
            ni = hub.snapshot().ndbinfo
            if ni is not None and any(r.node_id == node and r.status_int == 12
                                      for r in ni.restart_info):
                break
            await asyncio.sleep(poll)
        await asyncio.sleep(40 * poll)
        sim.clock.set_speed(1.0)
        sim.cluster.restart_nodes((order[starts_done],))
    raise RuntimeError(f"{case.label}: node {case.node} never finished its start")


def at_points(total: float, seen: list[Seen]) -> list[str]:
    """The estimate at each share of the way: ``est. total (low-high) error``."""
    cells = []
    for share in POINTS:
        point = next((s for s in seen if s.wall - s.began_at >= share * total), None)
        if point is None or point.eta is None:
            cells.append("-")
        elif isinstance(point.eta, EtaMissing):
            cells.append(f"none: {point.eta.reason}")
        else:
            so_far = point.wall - point.began_at
            est = so_far + point.eta.seconds
            low, high = so_far + point.eta.low, so_far + point.eta.high
            inside = "in" if low <= total <= high else "OUT"
            error = 100 * (est - total) / total
            cells.append(f"{_mmss(est)} ({_mmss(low)}–{_mmss(high)}) {error:+.0f}% {inside};"
                         f" {', '.join(point.eta.basis[:2])}")
    return cells


def _mmss(seconds: float) -> str:
    return f"{int(seconds // 60)}:{int(seconds % 60):02d}"


async def attached_row(case: Case, cluster_log: bool = False) -> tuple[float, list[str]]:
    """(real total, a cell per share of :data:`SHARES`) of one ``--attached`` case."""
    cells, total = [], 0.0
    for share in SHARES:
        total, _, first = await replay_attached(case, share, cluster_log=cluster_log)
        cells.append(attached_cell(total, first))
    return total, cells


async def field_row(case: Case) -> tuple[float, list[str]]:
    """(real total, a cell per share of :data:`POINTS`) of one case watched from its start."""
    total, seen = await replay(case)
    return total, at_points(total, seen)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--only", help="run only the cases whose label contains this")
    parser.add_argument("--attached", action="store_true",
                        help="ndbtop attaches at 25, 50 and 75 %% of the start")
    parser.add_argument("--cluster-log", action="store_true",
                        help="with --attached: the management server's cluster log file is "
                        "written and read")
    args = parser.parse_args()
    if args.cluster_log and not args.attached:
        parser.error("--cluster-log goes with --attached")
    cases, row = (ATTACHED, attached_row) if args.attached else (CASES, field_row)
    if args.cluster_log:
        row = functools.partial(attached_row, cluster_log=True)
    heads = ([f"attached at {int(p * 100)}%" for p in SHARES] if args.attached
             else [f"{int(p * 100)}% of the way" for p in POINTS])
    rows = []
    for case in cases:
        if args.only and args.only not in case.label:
            continue
        total, cells = await row(case)
        label = case.label + (", with the cluster log" if args.cluster_log else "")
        rows.append({"case": label, "real_total_s": round(total, 1), "points": cells})
        print(f"{case.label}: {_mmss(total)}", file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=2, allow_nan=False))
        return
    print(f"| case | real total | {' | '.join(heads)} |")
    print("|---|---|" + "---|" * len(heads))
    for r in rows:
        print(f"| {r['case']} | {_mmss(r['real_total_s'])} | " + " | ".join(r["points"]) + " |")


if __name__ == "__main__":
    asyncio.run(main())
