"""One name per start phase: the live view, --once (text and JSON), wait and rolling-restart
name a node's phase the same way, from the same table."""

from __future__ import annotations

import pytest

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.phases import (
    NODE_RESTART,
    START_TYPE_SHORT,
    StartTimeline,
    phase_name,
    phase_text,
)
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.ops.rolling import last_seen
from ndbtop.ops.wait import describe
from ndbtop.report.render import report_json, report_text
from ndbtop.tui.views.nodes import phase_cell

NODE = NodeStatus(3, "NDB", "STARTING", 525315, 525315, 4, 3, 0, 2, "h")
TIMELINE = StartTimeline(3, NODE_RESTART, 1000.0, True, current_phase=5, current_since=1010.0)


@pytest.mark.parametrize(
    ("node", "timeline", "name"),
    [
        (NODE, TIMELINE, "5 copy data, wait LCP"),
        (NODE, None, "5 copy data, wait LCP"),
        (NodeStatus(3, "NDB", "SHUTTING_DOWN", start_phase=2), None, "stop level 2"),
    ],
)
def test_every_output_names_the_phase_alike(
    node: NodeStatus, timeline: StartTimeline | None, name: str
) -> None:
    assert phase_text(node, timeline) == name
    assert phase_cell(node, timeline).plain == name
    snap = ClusterSnapshot(1.0, 1020.0, 1.0, (), nodes=(node,),
                           timelines=(timeline,) if timeline else ())
    assert report_json(snap)["nodes"][0]["phase"] == name
    assert f" {name}" in report_text(snap)
    shown, _ = describe(node, timeline, 1020.0)
    assert shown.removeprefix("phase ") == name
    assert name in last_seen(node, timeline, 1020.0)


def test_one_table_names_each_phase_once_whatever_the_kind_of_start() -> None:
    # A name that changed with what an output knew of the start's kind gave one phase
    # two names ("5 sync data" beside "5 copy data, wait LCP").
    for kind in (None, *START_TYPE_SHORT):
        t = StartTimeline(3, kind, 1000.0, True, current_phase=5, current_since=1010.0)
        assert phase_text(NODE, t) == "5 copy data, wait LCP"
    assert phase_name(101) == "subscription hand-over"
    assert last_seen(NODE, None, 0.0) == "node 3 STARTING in phase 5 copy data, wait LCP"
