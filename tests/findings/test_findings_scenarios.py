"""The findings of each simulator scenario are what the scenario plays; healthy ones raise
no warning or critical."""

from __future__ import annotations

import re

import pytest

from ndbtop.demo.capture import CaptureSpec
from ndbtop.findings import evaluate
from ndbtop.sim.scenarios import SCENARIOS
from tests.captures import captured

CASES = [
    ("initial-start", 1800.0, {("start_phase_slow", "warning", (10,)),
                               ("start_phase_slow", "warning", (11,)),
                               ("redo_init_disk_bound", "info", (10,)),
                               ("redo_init_disk_bound", "info", (11,))}),
    # 60 GB used of 64 GB DataMemory on each node (the 90% band), node 3 restarting.
    ("node-restart", 120.0, {("memory_high", "warning", (2,)),
                             ("node_group_one_left", "warning", (2,))}),
    ("add-node", 120.0, {("node_group_one_left", "warning", (4,))}),
    ("threads", 30.0, {("thread_saturated", "warning", (2,))}),
    ("disk-buffer", 60.0, {("disk_page_buffer_low_hit", "warning", (3,)),
                           ("disk_page_buffer_low_hit", "warning", (4,))}),
    ("node-groups", 30.0, {("node_group_one_left", "warning", (3,))}),
    ("node-down", 30.0, {("node_group_one_left", "warning", (2,))}),
    # The president (2) failed and the arbitrator moved to 49 at once: only group 0 is low.
    ("arbitrator-change", 50.0, {("node_group_one_left", "warning", (3,))}),
    # The whole table is read only when asked for (tests/test_once_locks.py); its oldest
    # transaction past 60 s is read in the background: the holder idle ten minutes.
    ("lock-chain", 30.0, {("long_transaction", "warning", (2,))}),
    ("single-user", 40.0, {("single_user_mode", "info", ())}),
    ("config-change", 100.0, {("config_not_applied", "info", (3, 4, 5))}),
    ("backup", 100.0, set()),
    ("large", 30.0, set()),
    ("max", 30.0, set()),
    # The master warns at 60 s of GCP_SAVE lag (limit 204 s) while node 3's redo writes
    # are slowed down for I/O lag; at 180 s of lag the kill is near; then node 3 is killed.
    ("gcp-stall", 120.0, {("gcp_save_lag", "warning", (2,)), ("redo_io_lag", "warning", (3,))}),
    ("gcp-stall", 220.0, {("gcp_save_lag", "critical", (2,)),
                          ("redo_io_lag", "warning", (3,))}),
    # The kill ends the lag: the GCP stop is the finding now, kept while node 3 is down.
    ("gcp-stall", 300.0, {("gcp_stop", "critical", (3,)),
                          ("node_group_one_left", "warning", (2,))}),
    ("gcp-stall", 900.0, {("gcp_stop", "critical", (3,)),
                          ("node_group_one_left", "warning", (2,))}),
    # 73% used but 410 in about 2 min at 2 MB/s; then within 2 min; then 95% used.
    ("redo-filling", 30.0, {("redo_part_filling", "warning", (2,))}),
    ("redo-filling", 100.0, {("redo_part_filling", "critical", (2,))}),
    ("redo-filling", 150.0, {("redo_part_filling", "critical", (2,))}),
    ("lcp-stall", 70.0, {("lcp_stalled", "warning", (4,))}),
    ("lcp-stall", 96.0, {("lcp_stalled", "critical", (4,)), ("node_stopped", "warning", (4,)),
                         ("node_group_one_left", "warning", (5,))}),
    # The watchdog's warnings are over; why node 4 is down stays while it is down.
    ("lcp-stall", 400.0, {("node_stopped", "warning", (4,)),
                          ("node_group_one_left", "warning", (5,))}),
    ("overload", 50.0, {("send_buffer_overload", "info", (2,))}),
    ("overload", 60.0, {("send_buffer_overload", "warning", (2,))}),
    ("heartbeat", 52.0, {("missed_heartbeat", "warning", (5,))}),
    ("heartbeat", 70.0, {("missed_heartbeat", "critical", (5,)), ("node_stopped", "warning", (5,)),
                         ("node_group_one_left", "warning", (4,))}),
    ("arbitrator-lost", 90.0, {("no_arbitrator", "warning", (1,))}),
    # Every data node stopped with 2305: the cluster is down.
    ("arbitrator-lost", 620.0, {("no_arbitrator", "critical", ()),
                                ("cluster_down", "critical", (2, 3, 4, 5))}
     | {("node_stopped", "warning", (n,)) for n in (2, 3, 4, 5)}),
    ("memory-full", 60.0, {("memory_high", "info", (2,)), ("memory_high", "info", (3,))}),
    ("memory-full", 100.0, {("memory_high", "warning", (2,)), ("memory_high", "warning", (3,))}),
    ("memory-full", 170.0, {("memory_high", "critical", (2,)),
                            ("memory_high", "critical", (3,))}),
    # The replica keeps up, then applies 4 epochs a second of the 10 written from 20 s:
    # 78 s behind at 150 s, past the 60 s threshold.
    ("replication-lag", 19.0, set()),
    ("replication-lag", 150.0, {("replication_lag", "warning", ())}),
    # SQL node 50 was disconnected for lagging at 30 s; its binary log's LOST_EVENTS stops
    # the replica's applier.
    ("lost-events", 60.0, {("sql_node_disconnected_lagging", "warning", (50,)),
                           ("replication_lost_events", "critical", ()),
                           ("replication_stopped", "critical", ())}),
    # The only start waits for ever: no data node started, none moving on.
    ("start-waiting", 200.0, {("start_waiting_for_nodes", "warning", (11,)),
                              ("cluster_down", "critical", (10, 11)),
                              ("start_phase_slow", "warning", (10,))}),
]


INTERNAL_TAG = re.compile(r"\((?:[A-Z]{1,2}|R4 )[0-9]{1,2}\)")
"""A tag such as ``(S1)``: the name of a scenario in ndbtop's own notes, not the user's."""

SAMPLES = {"large": 5, "max": 5}
"""Refreshes read before the moment judged (20 by default): five give the largest clusters
their rates and trends (two would), at a quarter of the cost of 20 of 144 data nodes."""


@pytest.mark.parametrize(("scenario", "at", "expected"), CASES)
async def test_a_scenario_raises_what_it_plays(scenario: str, at: float,
                                               expected: set[tuple[str, str, tuple[int, ...]]]
                                               ) -> None:
    cap = await captured(CaptureSpec(scenario, at, samples=SAMPLES.get(scenario, 20)))
    findings = evaluate(cap.snapshot)
    found = {(f.id, f.severity.value, f.nodes) for f in findings}
    assert found == expected
    # What the user reads names no tag of ndbtop's own notes (the field scenarios' S1..S5).
    for f in findings:
        words = " ".join((f.summary, f.advice, *(e.value for e in f.evidence)))
        assert not INTERNAL_TAG.search(words), (f.id, words)


def test_every_scenario_of_the_list_is_judged() -> None:
    assert {name for name, _, _ in CASES} == set(SCENARIOS)


async def test_the_waiting_initial_start_names_what_shortens_it() -> None:
    # start-waiting plays an initial start: QmgrMain.cpp check_startup reports type 1
    # ("Initial start, waiting for %s to connect"), which StartPartialTimeout does not end.
    cap = await captured(CaptureSpec("start-waiting", 200.0))
    (f,) = (f for f in evaluate(cap.snapshot) if f.id == "start_waiting_for_nodes")
    assert f.summary == "node 10's initial start waits for node 11 with no timeout"
    assert f.threshold.parameter == "--nowait-nodes / StartNoNodegroupTimeout"
    assert f.evidence[0].value.startswith("Initial start, waiting for 11 to connect")
