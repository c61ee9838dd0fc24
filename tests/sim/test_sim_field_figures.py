"""The simulator plays the field reports' durations, phase by phase: the start estimate is
checked against these replays (bench/eta_field.py), so they must be the field's figures,
not figures tuned to the estimator.

The figures are parsed from the field report's own words (shared field-scenarios.md, S1
and S2), quoted below as written there.
"""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from ndbtop.mgm.version import make_version
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario
from ndbtop.sim.startplan import (
    NDB_7_5_PROFILE,
    NDB_7_6_PROFILE,
    RestartProfile,
    initial_start_plan,
    node_restart_plan,
    plan_seconds,
)

S1_REPORT = """\
- Redo log to create per data node: 42 files x 4 log parts x 256 MB = 43,008 MB.
  phases 1, 2, 3 completed within the same second; phase 4 completed at 13:03:03 (38 min 47 s);
  phases 5..9, 100, 101 completed within the next 5 seconds.
  With the fix (no sync per block) the same initial start took 5 min 12 s.
"""
"""field-scenarios.md, S1 (quoted)."""

S2_REPORT = """\
- Total: 7.5.10 took 19 min 11 s; 7.6.6 took 6 min 49 s.
- Phase figures (7.5 / 7.6): allocate and touch memory (about 2.7 GB/s) 26 s / 26 s;
  metadata preparation 1-2 s; restore from local checkpoint 1 min 51 s / 2 min 15 s;
  REDO log execution 51 s / 35 s; UNDO log execution 0 (no disk data); rebuild ordered
  indexes 2 min 4 s / 1 min 17 s (8 vs 16 CPUs); copy fragment (sync with live node) near 0
  (no updates during the restart); wait for local checkpoint 13 min 48 s / 2 min 8 s
  (2 min 4 s local LCP + 4 s global); hand-over of event subscriptions to SQL nodes 5-6 s
"""
"""field-scenarios.md, S2 (quoted)."""

DURATION = r"(?:(\d+) min )?(\d+) s"


def seconds(text: str) -> float:
    """``2 min 15 s`` -> 135."""
    found = re.fullmatch(DURATION, text.strip())
    assert found is not None, text
    return int(found.group(1) or 0) * 60 + int(found.group(2))


def pair(report: str, label: str) -> tuple[float, float]:
    """The ``7.5 / 7.6`` figures that follow ``label`` in the report."""
    found = re.search(re.escape(label) + r"[^;]*?(" + DURATION + r") / (" + DURATION + r")",
                      report.replace("\n  ", " "))
    assert found is not None, label
    return seconds(found.group(1)), seconds(found.group(4))


def test_the_quoted_figures_parse_as_the_report_gives_them() -> None:
    assert pair(S2_REPORT, "restore from local checkpoint") == (111, 135)
    assert pair(S2_REPORT, "wait for local checkpoint") == (828, 128)


def test_s1_creates_its_redo_log_in_the_reported_time_with_and_without_the_fix() -> None:
    phase_4 = seconds(re.search(r"phase 4 completed at [\d:]+ \((.*?)\)", S1_REPORT)[1])
    fixed_total = seconds(re.search(r"took (\d+ min \d+ s)", S1_REPORT)[1])
    assert (phase_4, fixed_total) == (2327, 312)
    slow = build_scenario("initial-start", ScenarioOptions()).config
    assert slow.redo_log_mb == 42 * 4 * 256
    assert slow.redo_log_mb / slow.redo_init_mb_per_sec == pytest.approx(phase_4)
    fast = build_scenario("initial-start", ScenarioOptions(fast_redo=True)).config
    plan = initial_start_plan(fast.redo_log_mb / fast.redo_init_mb_per_sec, redo_phase=4)
    # The nodes are launched 2 s into the scenario; the rest of the start is the plan.
    assert 2.0 + plan_seconds(plan) == pytest.approx(fixed_total, abs=2.0)
    # Phases 5..101 "within the next 5 seconds": cluster log times are whole seconds, so
    # the last one is stamped at most 5 s later, under 6 s after.
    assert sum(s.seconds for s in plan if s.phase >= 5) < 6.0


@pytest.mark.parametrize(("version", "profile", "column"), [
    ((7, 5, 10), NDB_7_5_PROFILE, 0),
    ((7, 6, 6), NDB_7_6_PROFILE, 1),
])
def test_s2_restarts_phase_by_phase_as_reported(
    version: tuple[int, int, int], profile: RestartProfile, column: int
) -> None:
    totals = re.findall(r"took (\d+ min \d+ s)", S2_REPORT)
    assert profile.alloc_memory == 26
    assert profile.restore_fragments == pair(S2_REPORT, "restore from local checkpoint")[column]
    assert profile.exec_redo_log == pair(S2_REPORT, "REDO log execution")[column]
    assert profile.index_rebuild == pair(S2_REPORT, "rebuild ordered")[column]
    assert profile.wait_lcp == pair(S2_REPORT, "wait for local checkpoint")[column]
    assert profile.undo_disk_data == 0 and profile.synchronize <= 1.0
    assert 1 <= profile.meta_data <= 2 and 5 <= profile.subscription_handover <= 6
    # The scenario's restart (node failure handling, then the plan) takes the reported total.
    cluster = build_scenario("node-restart", ScenarioOptions(ndb_version=".".join(
        map(str, version))))
    assert cluster.config.ndb_version == make_version(*version)
    played = replace(cluster.config.restart_profile)
    total = played.node_failure + plan_seconds(node_restart_plan(played, initial=False))
    assert total == pytest.approx(seconds(totals[column]), abs=2.0)
