"""One name per start phase: the live view, --once (text and JSON), wait and rolling-restart
name a node's phase the same way, from the same table."""

from __future__ import annotations

import pytest

from ndbtop.mgm.status import NodeStatus
from ndbtop.model.phases import NODE_RESTART, StartTimeline, phase_text
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
        (NODE, None, "5 sync data"),
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


def test_without_a_timeline_the_start_type_of_the_restart_names_the_phase() -> None:
    assert phase_text(NODE, None, NODE_RESTART) == "5 copy data, wait LCP"
    assert last_seen(NODE, None, 0.0, start_type=NODE_RESTART) == (
        "node 3 STARTING in phase 5 copy data, wait LCP")
