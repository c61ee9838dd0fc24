"""``--once`` listens on for two progress reports of a redo log being created, up to a bound.

The reports are LogFileInitStatus events (redo-init.md §6: one per LDM instance, every
StartupStatusReportFrequency seconds, SPARSE only); a rate needs two of each instance.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from ndbtop.collect import once_redo
from ndbtop.collect.once_redo import MARGIN_S, MAX_WAIT_S, await_redo_reports, bound_s, reporting
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig
from ndbtop.model.phases import NODE_RESTART, StartTimeline, apply_event, apply_status
from ndbtop.model.snapshot import ClusterSnapshot
from tests.model.test_eta_node import TOTAL_MB, config, redo_report
from tests.model.test_model_phases import event

EVERY = 10


def reporting_config(every: int = EVERY, full: bool = False) -> ClusterConfig:
    base = config()
    return replace(base, data_nodes=tuple(
        replace(d, startup_status_report_frequency=every,
                init_fragment_log_files="full" if full else "sparse")
        for d in base.data_nodes))


def first_seen_in_phase_4(node: int = 10, at: float = 0.0) -> StartTimeline:
    return apply_status({}, [NodeStatus(node, "NDB", "STARTING", 0, 0, 3, 0, 0, 1, "h")],
                        at)[node]


def snap(*timelines: StartTimeline, cfg: ClusterConfig | None = None) -> ClusterSnapshot:
    return ClusterSnapshot(0.0, 0.0, 1.0, (), timelines=timelines,
                           config=cfg if cfg is not None else reporting_config())


def test_which_starts_are_waited_for() -> None:
    first = first_seen_in_phase_4()
    one = apply_event({10: first}, redo_report(10, 100, 1.0, TOTAL_MB))[10]
    two = apply_event({10: one}, redo_report(10, 300, 11.0, TOTAL_MB))[10]
    # Nothing heard yet, a start that may create its redo log: waited for (one period).
    assert reporting(snap(first)) == {10: (EVERY, False)}
    # One report: the second gives the rate.
    assert reporting(snap(one)) == {10: (EVERY, True)}
    assert two.redo is not None and two.redo.mb_per_s == 20.0
    assert reporting(snap(two)) == {}
    # A node restart creates no redo log; no periodic reports with 0 or with FULL.
    told = apply_event({10: first}, event(13, 10, (4, NODE_RESTART), 2.0))[10]
    assert reporting(snap(told)) == {}
    assert reporting(snap(one, cfg=reporting_config(every=0))) == {}
    assert reporting(snap(one, cfg=reporting_config(full=True))) == {}
    # Past phase 4 no release creates it (redo-init.md §2).
    later = apply_status({}, [NodeStatus(10, "NDB", "STARTING", 0, 0, 5, 0, 0, 1, "h")],
                         0.0)[10]
    assert reporting(snap(later)) == {}


def test_the_bound_is_two_periods_and_a_margin_never_past_the_most() -> None:
    assert bound_s([10.0, 2.0]) == 2 * 10.0 + MARGIN_S
    assert bound_s([3600.0]) == MAX_WAIT_S


class Hub:
    """What the wait reads of a hub: its clock and its snapshot, on a clock the test moves
    one second a look, with the reports given at their times."""

    def __init__(self, t: StartTimeline, reports: dict[float, int]) -> None:
        self.now = 0.0
        self.t = t
        self.reports = reports
        self.clock = self

    def monotonic(self) -> float:
        return self.now

    def snapshot(self) -> ClusterSnapshot:
        self.now += 1.0
        mb = self.reports.pop(self.now, None)
        if mb is not None:
            self.t = apply_event({10: self.t}, redo_report(10, mb, self.now, TOTAL_MB))[10]
        return snap(self.t)


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(once_redo, "LOOK_EVERY_S", 0.0)


def test_once_waits_until_the_second_report_gives_a_rate() -> None:
    hub = Hub(first_seen_in_phase_4(), {3.0: 100, 13.0: 300})
    spent = asyncio.run(await_redo_reports(hub))  # type: ignore[arg-type]
    assert spent == 13.0
    assert hub.t.redo is not None and hub.t.redo.mb_per_s == 20.0


def test_once_gives_up_at_the_bound_and_on_a_node_that_never_reports() -> None:
    # One report, then silence: two periods and the margin.
    hub = Hub(first_seen_in_phase_4(), {3.0: 100})
    assert asyncio.run(await_redo_reports(hub)) == 2 * EVERY + MARGIN_S  # type: ignore[arg-type]
    # No report within one period and the margin: not creating its redo log.
    hub = Hub(first_seen_in_phase_4(), {})
    assert asyncio.run(await_redo_reports(hub)) == EVERY + MARGIN_S  # type: ignore[arg-type]
