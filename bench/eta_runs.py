"""The rolling restart's and the backup's estimates against what the runs really took.

Runs against the simulator at high speed, in simulated seconds:

- a rolling restart of a four-node cluster (two node groups) without any history, while a
  hub watches the starts and keeps them in a start history; then a second rolling restart
  of the same cluster with that history;
- backup 1 of the ``backup`` scenario (four nodes, 45 GB of DataMemory in use each),
  followed by ``wait --backup-completed``'s code with ``REPORT BACKUPSTATUS`` every 10
  simulated seconds.

For each, the estimate of the whole run (time gone plus the estimate, and its range) at
10%, 25%, 50% and 75% of the real total, as a Markdown table::

    .venv/bin/python bench/eta_runs.py [--speed 10]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ndbtop.actions.audit import AuditLog  # noqa: E402
from ndbtop.collect.history_store import HistoryStore  # noqa: E402
from ndbtop.collect.hub import Hub  # noqa: E402
from ndbtop.eta.rolling import RunTimes  # noqa: E402
from ndbtop.mgm.client import MgmClient  # noqa: E402
from ndbtop.mgm.connectstring import parse_connectstring  # noqa: E402
from ndbtop.model.backups import Backup  # noqa: E402
from ndbtop.model.eta import Eta, EtaResult  # noqa: E402
from ndbtop.model.history import PastStart, cluster_key  # noqa: E402
from ndbtop.ops.rolling import Decision, Problem, Progress, RollingRestart, plan_rolling  # noqa: E402
from ndbtop.ops.wait_backup import BackupScale, wait_for_backup  # noqa: E402
from ndbtop.sim.clock import SimClock  # noqa: E402
from ndbtop.sim.cluster import SimCluster  # noqa: E402
from ndbtop.sim.config import simple_config  # noqa: E402
from ndbtop.sim.runtime import Simulator  # noqa: E402
from ndbtop.sim.scenarios import build_scenario  # noqa: E402
from ndbtop.sim.scenarios.options import ScenarioOptions  # noqa: E402

POINTS = (0.10, 0.25, 0.50, 0.75)
SAMPLE_EVERY = 0.02
"""Real seconds between two estimates while a rolling restart runs."""


@dataclass(frozen=True)
class Sample:
    """The estimate ``elapsed`` simulated seconds into a run."""

    elapsed: float
    eta: EtaResult


def four() -> SimCluster:
    """Four started data nodes in two node groups, 8 GB of DataMemory each, half in use."""
    data = ((2, "10.0.0.2", 0), (3, "10.0.0.3", 0), (4, "10.0.0.4", 1), (5, "10.0.0.5", 1))
    c = SimCluster(simple_config("four", data, api=((7, None),), max_exec_threads=4,
                                 data_memory_mb=8192))
    c.boot_started(data_fraction=0.5)
    return c


async def rolling(sim: Simulator, history: Sequence[PastStart]) -> tuple[float, list[Sample]]:
    """One rolling restart of every data node: its total and the estimates on the way."""
    clock = sim.clock
    cs = parse_connectstring(sim.connectstring)
    client = MgmClient(cs)
    try:
        nodes = await client.get_status(["NDB"])
    finally:
        await client.close()
    plan = plan_rolling(nodes)
    times = RunTimes(plan.batches, history=tuple(history))

    def report(p: Progress) -> None:
        if p.step == "restart":
            times.sent(p.batch, clock.now())
        elif p.step == "started":
            times.started(p.batch, clock.now())

    async def decide(problem: Problem) -> Decision:
        raise SystemExit(f"bench: rolling restart stopped: {problem.message}")

    audit = AuditLog(Path(tempfile.mkdtemp()) / "audit.log")
    engine = RollingRestart(plan, cs, audit, decide=decide, report=report, poll=0.02)
    began = clock.now()
    samples: list[Sample] = []
    task = asyncio.create_task(engine.run())
    while not task.done():
        samples.append(Sample(clock.now() - began, times.estimate(clock.now(), clock.wall()).run))
        await asyncio.sleep(SAMPLE_EVERY)
    await task
    return clock.now() - began, samples


async def rolling_runs(speed: float) -> list[tuple[str, float, list[Sample]]]:
    """The rolling restart without history (a hub keeping the starts meanwhile), then with."""
    cluster = four()
    sim = Simulator(cluster, SimClock(speed=speed, start_at=cluster.now))
    await sim.start(sql_port=None)
    out = []
    try:
        with tempfile.TemporaryDirectory() as directory:
            name = "bench four"
            hub = Hub(parse_connectstring(sim.connectstring), sim.clock, 0.2,
                      history_dir=Path(directory), cluster_name=name)
            await hub.start()
            try:
                await asyncio.sleep(1.0)
                total, samples = await rolling(sim, ())
                out.append(("rolling restart, no history", total, samples))
                await asyncio.sleep(1.0)
                nodes = hub.snapshot().nodes
            finally:
                await hub.stop()
            history = HistoryStore(Path(directory), cluster_key(nodes, name)).load()
            if not history:
                raise SystemExit("bench: the hub kept no start")
            total, samples = await rolling(sim, history)
            out.append((f"rolling restart, with history ({len(history)} starts)", total,
                        samples))
    finally:
        await sim.close()
    return out


async def backup_run(speed: float) -> tuple[str, float, list[Sample]]:
    """Backup 1 of the ``backup`` scenario, as ``wait --backup-completed`` follows it."""
    cluster = build_scenario("backup", ScenarioOptions(seed=1))
    clock = SimClock(speed=speed, start_at=cluster.now)
    sim = Simulator(cluster, clock)
    await sim.start(sql_port=None)
    seen: list[tuple[float, EtaResult]] = []
    scale = BackupScale()

    def changed(b: Backup) -> None:
        now = clock.wall()
        seen.append((now, scale.eta(b, now)))

    try:
        result = await wait_for_backup(parse_connectstring(sim.connectstring), 1, 3600 / speed,
                                       clock=clock, report_every=10.0 / speed,
                                       on_change=changed, scale=scale)
    finally:
        await sim.close()
    b = result.backup
    if not result.completed or b is None or b.started_at is None or b.ended_at is None:
        raise SystemExit(f"bench: backup not followed from start to end: {result.reason}")
    total = b.ended_at - b.started_at
    samples = [Sample(at - b.started_at, eta) for at, eta in seen if at >= b.started_at]
    return "backup 1 of `backup` (4 x 45 GB)", total, samples


def at_point(total: float, samples: Sequence[Sample], point: float) -> str:
    """The estimate of the total at the first sample past ``point`` of the way."""
    sample = next((s for s in samples if s.elapsed >= point * total), None)
    if sample is None:
        return "-"
    eta = sample.eta
    if not isinstance(eta, Eta):
        return f"none ({eta.reason})"
    value = sample.elapsed + eta.seconds
    low, high = sample.elapsed + eta.low, sample.elapsed + eta.high
    inside = "in range" if low <= total <= high else "OUT of range"
    error = 100.0 * (value - total) / total
    return f"{value:.0f} s ({low:.0f}–{high:.0f}), {error:+.0f}%, {inside}"


def table(runs: Sequence[tuple[str, float, list[Sample]]]) -> str:
    """The Markdown table of the runs."""
    head = "| run | real total | " + " | ".join(f"at {p:.0%}" for p in POINTS) + " |"
    lines = [head, "|" + "---|" * (len(POINTS) + 2)]
    for name, total, samples in runs:
        cells = [at_point(total, samples, p) for p in POINTS]
        lines.append(f"| {name} | {total:.0f} s | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the three runs and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--speed", type=float, default=10.0,
                        help="simulated seconds per real second of the rolling restarts "
                        "(default 10: faster, the hub sees the starts' events only in part); "
                        "the backup runs twice as fast")
    args = parser.parse_args(argv)

    async def both() -> list[tuple[str, float, list[Sample]]]:
        return [*await rolling_runs(args.speed), await backup_run(args.speed * 2)]

    print(table(asyncio.run(both())))


if __name__ == "__main__":
    main()
