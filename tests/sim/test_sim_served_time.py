"""``ndbtop sim`` tells its clients real time at any ``--speed``: a client timing what it
sees on its own clock (ndbtop against the simulator) reads uptimes, restart_info totals and
``slowdowns_due_to_io_lag`` seconds that agree with that clock. The demo's hub runs on the
simulated clock, and is told simulated seconds. The real clock here is a number the test
moves: no verdict depends on the machine's speed."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

import ndbtop.cli.sim as sim_cli
from ndbtop.cli.parser import build_parser
from ndbtop.cli.scenario import make_simulator
from ndbtop.demo.hub import simulated_label
from ndbtop.errors import UsageError
from ndbtop.sim.clock import SimClock
from ndbtop.sim.cluster import SimCluster
from ndbtop.sim.cluster.datanode import STARTED
from ndbtop.sim.ndbinfo_rows import SimNdbinfo
from ndbtop.sim.runtime import Simulator
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from tests.conftest import run_cli


class RealTime:
    """The real clock of a test: it moves only when told to."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def served(scenario: str, speed: float) -> tuple[SimCluster, SimClock, SimNdbinfo, RealTime]:
    real = RealTime()
    cluster = build_scenario(scenario, ScenarioOptions(seed=1))
    clock = SimClock(speed=speed, epoch=1_700_000_000.0, real=real, serve_real_time=True)
    return cluster, clock, SimNdbinfo(cluster, time=clock), real


def run_for(cluster: SimCluster, clock: SimClock, real: RealTime, seconds: float) -> None:
    """Let ``seconds`` of real time pass, the model following the clock."""
    real.now += seconds
    cluster.advance_to(clock.now())


def uptimes(ndbinfo: SimNdbinfo) -> dict[int, int]:
    return {int(r[0]): int(r[1]) for r in ndbinfo.rows("nodes")}  # type: ignore[call-overload]


def test_the_served_time_is_the_real_time_whatever_the_speed() -> None:
    real = RealTime()
    clock = SimClock(speed=30.0, epoch=1_700_000_000.0, real=real, start_at=60.0,
                     serve_real_time=True)
    real.now += 10
    assert clock.now() == 60 + 300
    assert clock.served(clock.now()) == 60 + 10
    assert clock.wall() == 1_700_000_000.0 + 60 + 10
    clock.set_speed(1.0)
    real.now += 5
    clock.set_speed(100.0)
    real.now += 2
    assert clock.served(clock.now()) - clock.served(60.0) == 10 + 5 + 2
    # The simulated past before the clock began passes at real pace (an uptime of an hour).
    assert clock.served(60.0) - clock.served(-3600.0) == 3600 + 60
    assert clock.served_per_sim() == 1 / 100


def test_the_demos_clock_serves_simulated_seconds() -> None:
    real = RealTime()
    clock = SimClock(speed=30.0, epoch=0.0, real=real)
    real.now += 10
    assert clock.served(clock.now()) == clock.now() == 300
    assert clock.wall() == 300 and clock.served_per_sim() == 1


def test_uptime_served_is_the_real_time_since_the_start() -> None:
    cluster, clock, ndbinfo, real = served("threads", 60.0)
    before = uptimes(ndbinfo)
    run_for(cluster, clock, real, 30)
    # 30 real seconds are 30 minutes at x60; the node has been up 30 more seconds.
    assert {n: u - before[n] for n, u in uptimes(ndbinfo).items()} == {n: 30 for n in before}

    cluster.restart_nodes((3,))
    began = real.now
    while cluster.data_nodes[3].state != STARTED:
        run_for(cluster, clock, real, 1)
        assert real.now - began < 600, "node 3 never started again"
    run_for(cluster, clock, real, 10)
    since_restart = real.now - began
    assert 10 <= uptimes(ndbinfo)[3] <= since_restart
    assert uptimes(ndbinfo)[2] == before[2] + 30 + since_restart


def test_restart_info_total_is_what_the_clients_clock_measured() -> None:
    cluster, clock, ndbinfo, real = served("node-restart", 5.0)
    cluster.advance_to(0.0)
    while not [n for n in cluster.data_nodes.values() if n.restart_report is not None]:
        run_for(cluster, clock, real, 1)
        assert real.now < 1100, "no restart began"
    (node,) = [n for n in cluster.data_nodes.values() if n.restart_report is not None]
    report = node.restart_report
    assert report is not None
    # The client's own timer starts when it sees the restart begin, ends when it is done.
    began = real.now - (clock.now() - report.began) / 5.0
    while node.state != STARTED:
        run_for(cluster, clock, real, 1)
        assert real.now - began < 3600, "the node never started"
    measured = real.now - began
    (row,) = [r for r in ndbinfo.rows("restart_info") if r[0] == node.node_id]
    total = int(row[-1])  # type: ignore[call-overload]
    assert measured - 1 <= total <= measured
    # Each step's seconds are real too: none is longer than the whole restart.
    steps = [int(v) for v in row[3:-1]]  # type: ignore[call-overload]
    assert max(steps) > 0 and all(0 <= v <= total for v in steps)
    simulated = report.finished - report.began  # type: ignore[operator]
    assert abs(total - simulated / 5.0) <= 1


def test_redo_io_lag_never_exceeds_the_real_interval() -> None:
    cluster, clock, ndbinfo, real = served("gcp-stall", 5.0)

    def lag() -> tuple[int, ...]:
        return tuple(int(r[12]) for r in ndbinfo.rows("disk_write_speed_aggregate")  # type: ignore[call-overload]
                     if r[0] == 3)

    run_for(cluster, clock, real, 40 / 5.0)  # the disk stops at 30 s
    first = lag()
    run_for(cluster, clock, real, 8)
    grown = [b - a for a, b in zip(first, lag())]
    # Each LDM thread counts its own seconds of slowdown: never more than went by; the
    # simulated disk slows the node 80% of the time, shared by its LDM threads.
    assert grown and all(0 <= g <= 8 for g in grown)
    assert 0 < sum(grown) <= 8


def test_ndbtop_sim_serves_real_time(monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    made: list[Simulator] = []

    def make(args: argparse.Namespace, **kwargs: Any) -> Simulator:
        made.append(make_simulator(args, **kwargs))
        raise UsageError("made")

    monkeypatch.setattr(sim_cli, "make_simulator", make)
    status, _, err = run_cli(capsys, ["sim", "--scenario", "threads", "--speed", "20"])
    assert status == 2 and "made" in err
    assert made[0].clock.serve_real_time and made[0].clock.speed == 20
    # The demo's hub runs on the simulated clock: it is told simulated seconds.
    demo_args = build_parser().parse_args(["demo", "--scenario", "threads", "--speed", "20"])
    assert not make_simulator(demo_args).clock.serve_real_time
    # ... and its header says so when sped up.
    assert simulated_label("node-restart", 5) == "node-restart x5, simulated time"
    assert simulated_label("threads", 1) == "threads x1"
