"""A start ndbtop attached to mid-way shows no duration it did not measure.

The sequences are written as the management server gives them (mgm-protocol.md §6):
``get status`` gives ``node.N.startphase``, the *last completed* phase, while the node is
STARTING; ``StartPhaseCompleted`` (13) carries the phase just completed. A phase that was
over when ndbtop first saw the node was not seen: no duration (``not seen``, JSON null);
one under way then took at least what ndbtop saw of it (``≥``, JSON ``at_least_s``).
"""

from __future__ import annotations

import io
import re
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, cast

from rich.console import Console

from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.clock import RealClock
from ndbtop.model.history import past_start
from ndbtop.model.phases import StartTimeline, apply_event, apply_status
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.model.start_evidence import clock_time, phase_json, phase_seconds_text
from ndbtop.ops.wait import NodeChange, Target, describe, merge_timeline, wait_for
from ndbtop.report.render import report_json, report_text
from ndbtop.tui.views.restarts import timelines_table
from ndbtop.tui.views.timeline import timeline_panel
from tests.mgm.test_client import STATUS_2_6
from tests.model.test_model_phases import event

Scripted = Callable[..., Awaitable[Any]]
FIRST_SIGHT = 1000.0


def ndb(status: str, phase: int, node_id: int = 10) -> NodeStatus:
    # get status: node.N.startphase is the last completed phase (mgm-protocol.md §6).
    return NodeStatus(node_id, "NDB", status, 525315, 525315, phase, node_id, 0, 2, "h")


def attached_during_phase_4() -> StartTimeline:
    """First seen with phases 1 to 3 done (startphase 3: phase 4 runs), then phase 4 seen
    completing 30 s later and phase 5 10 s after that, polled every 10 s."""
    t = apply_status({}, [ndb("STARTING", 3)], FIRST_SIGHT)
    t = apply_status(t, [ndb("STARTING", 3)], FIRST_SIGHT + 20)
    t = apply_status(t, [ndb("STARTING", 4)], FIRST_SIGHT + 30)
    t = apply_status(t, [ndb("STARTING", 5)], FIRST_SIGHT + 40)
    return t[10]


def render(renderable: object, width: int = 120) -> str:
    console = Console(width=width, record=True, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def test_phases_over_before_ndbtop_came_have_no_duration() -> None:
    t = attached_during_phase_4()
    done = {r.phase: r for r in t.completed}
    for phase in (1, 2, 3):
        assert done[phase].seconds is None and not done[phase].exact
        assert phase_seconds_text(done[phase]) == "not seen"
        assert phase_json(done[phase]) == {"phase": phase, "seconds": None,
                                           "at_least_s": None, "exact": False,
                                           "ended_from": "status"}
    # Phase 4 ran from before ndbtop came to a poll 30 s later: a lower bound.
    assert done[4].lower_bound and done[4].measured_s is None
    assert phase_seconds_text(done[4]) == "≥30s"
    assert phase_json(done[4]) == {"phase": 4, "seconds": None, "at_least_s": 30.0,
                                   "exact": False, "ended_from": "status"}
    # Phase 5 was seen from its beginning to its end, each within one poll.
    assert (done[5].seconds, done[5].lower_bound, phase_seconds_text(done[5])) == (
        10.0, False, "≈10s")


def test_a_start_event_seen_first_gives_its_phase_no_duration() -> None:
    # The listener attached mid-way: the first thing seen is StartPhaseCompleted for
    # phase 3 (words: phase, start type; mgm-protocol.md §5.3).
    t = apply_event({}, event(13, 10, (3, 0), FIRST_SIGHT))[10]
    (record,) = t.completed
    assert (record.phase, record.seconds, record.exact) == (3, None, False)
    t = apply_event({10: t}, event(13, 10, (4, 0), FIRST_SIGHT + 50))[10]
    four = t.completed[-1]
    assert (four.phase, four.seconds, four.lower_bound, four.exact) == (4, 50.0, False, True)


def test_json_gives_null_durations_and_lower_bounds_in_their_own_fields() -> None:
    t = attached_during_phase_4()
    now = FIRST_SIGHT + 45
    snap = ClusterSnapshot(1.0, now, 1.0, (), nodes=(ndb("STARTING", 5),), timelines=(t,))
    (shown,) = report_json(snap)["start_timelines"]
    assert [(c["phase"], c["seconds"], c["at_least_s"]) for c in shown["completed"]] == [
        (1, None, None), (2, None, None), (3, None, None), (4, None, 30.0), (5, 10.0, None)]
    # The start's beginning was not seen: its length so far is a lower bound.
    assert shown["elapsed_s"] is None and shown["elapsed_at_least_s"] == 45.0
    assert (shown["in_phase_s"], shown["in_phase_at_least_s"]) == (5.0, None)
    first = apply_status({}, [ndb("STARTING", 3)], FIRST_SIGHT)[10]
    snap = ClusterSnapshot(1.0, FIRST_SIGHT + 2, 1.0, (), nodes=(ndb("STARTING", 3),),
                           timelines=(first,))
    (shown,) = report_json(snap)["start_timelines"]
    assert (shown["in_phase_s"], shown["in_phase_at_least_s"], shown["in_phase_from"]) == (
        None, 2.0, "first_seen")
    assert not re.search(r"(?<!\d)0s", report_text(snap))


def test_the_timeline_and_restarts_views_show_not_seen_and_lower_bounds() -> None:
    t = attached_during_phase_4()
    now = FIRST_SIGHT + 45
    snap = ClusterSnapshot(1.0, now, 1.0, (), nodes=(ndb("STARTING", 5),), timelines=(t,))
    text = render(timeline_panel(snap, 10, now))
    assert "seen since" in text and "running ≥45s" in text
    assert re.search(r"1\s+connect, heartbeats\s+not seen", text)
    assert re.search(r"3\s+init variables\s+not seen", text)
    assert re.search(r"4\s+restore or local start\s+≥30s", text)
    assert not re.search(r"(?<!\d)0s", text)
    folded = render(timeline_panel(snap, 10, now, compact=True))
    assert "1 connect, heartbeats not seen" in folded and "4 restore or local start ≥30s" in \
        folded
    table = render(timelines_table((t,), now), width=160)
    assert "≥45s" in table and "1:not seen" in table and "4:≥30s" in table
    assert "4 restore or local start ≥30s" in table
    done = replace(t, finished_at=now, current_phase=None)
    assert "took ≥45s" in render(timeline_panel(replace(snap, timelines=(done,)), 10, now))


def test_a_start_seen_in_part_keeps_only_what_was_measured_and_is_partial() -> None:
    t = attached_during_phase_4()
    t = apply_event({10: t}, event(13, 10, (6, 0), FIRST_SIGHT + 50))[10]
    t = apply_status({10: t}, [ndb("STARTED", 0)], FIRST_SIGHT + 60)[10]
    kept = past_start(t)
    assert kept is not None and kept.partial
    # Neither the phases not seen nor the lower bound are kept as durations.
    assert all(kept.seconds(p) is None for p in (1, 2, 3, 4))


def test_wait_gives_no_time_in_a_phase_it_did_not_see_begin() -> None:
    t = apply_status({}, [ndb("STARTING", 4, 3)], FIRST_SIGHT)[3]
    phase, spent = describe(ndb("STARTING", 4, 3), t, FIRST_SIGHT + 0.4)
    change = NodeChange(FIRST_SIGHT + 0.4, 3, "STARTING", 4, phase, spent, None,
                        t.current_from, t.current_since)
    line = change.text()
    assert f"phase 5 copy data, wait LCP (in phase since before {clock_time(FIRST_SIGHT)})" \
        in line
    assert "0s" not in line
    shown = change.as_json()
    assert (shown["in_phase_s"], shown["in_phase_at_least_s"], shown["in_phase_from"]) == (
        None, 0.4, "first_seen")


async def test_wait_against_a_node_already_starting(scripted: Scripted) -> None:
    # get status as §2.6 of mgm-protocol.md gives it: node 3 STARTING, startphase 4 (it is
    # in phase 5 and has been for who knows how long).
    server = await scripted({"get status": STATUS_2_6})
    lines: list[NodeChange] = []
    result = await wait_for(parse_connectstring(server.connectstring), Target.STARTED, [3],
                            0.2, clock=RealClock(), interval=0.05, on_change=lines.append)
    assert not result.reached
    (change,) = lines
    assert change.text().split(" node 3 ", 1)[1].startswith(
        "STARTING phase 5 copy data, wait LCP (in phase since before ")
    assert not re.search(r"\b0s in phase", change.text())
    # Node 2 runs: a node restart, whose phase 5 needs restart_info or a past start. The
    # estimate is missing for that, not for having come late.
    why = "phase 5 (copy data, wait LCP): no restart_info, no past start"
    assert change.text().endswith(f"no ETA: {why}")
    assert change.as_json()["in_phase_s"] is None
    assert change.as_json()["eta_missing"] == why


def test_wait_names_the_phase_as_once_does_from_the_same_evidence() -> None:
    # The hub beside the wait saw node 3's LogFileInitStatus in phase 5: it and --once
    # name phase 5 "redo log init"; the wait's own get status alone could not.
    node = ndb("STARTING", 4, 3)
    own = apply_status({}, [node], FIRST_SIGHT + 1)[3]
    followed = replace(apply_status({}, [node], FIRST_SIGHT)[3], redo_phase=5)
    snap = ClusterSnapshot(1.0, FIRST_SIGHT + 2, 1.0, (), nodes=(node,), timelines=(followed,))
    assert report_json(snap)["nodes"][0]["phase"] == "5 redo log init"
    assert " 5 redo log init " in report_text(snap)
    phase, _ = describe(node, merge_timeline(node, own, followed, FIRST_SIGHT + 1),
                        FIRST_SIGHT + 2)
    assert phase == "phase 5 redo log init"
    # A hub a poll behind (it still has phase 4 in progress) is brought up to the wait's
    # own status: phase 5 from that poll on, with the hub's redo phase.
    behind = replace(apply_status({}, [ndb("STARTING", 3, 3)], FIRST_SIGHT)[3],
                     redo_phase=5)
    merged = merge_timeline(node, own, behind, FIRST_SIGHT + 1)
    assert merged is not None and merged.current_phase == 5
    assert merged.current_since == own.current_since and merged.redo_phase == 5
    assert merge_timeline(node, own, None, FIRST_SIGHT + 1) is own


def test_wait_after_its_own_request_never_says_since_before() -> None:
    # mgm --wait: the hub saw the start from its first event (exact) and the wait's own
    # first poll, read after the request, shows a later phase done: the line goes by the
    # hub's start brought up to that poll, never by the poll's first sight (a lower bound).
    began = FIRST_SIGHT
    hub = apply_event({}, event(10, 3, (525315,), began))[3]
    hub = apply_event({3: hub}, event(13, 3, (1, 4), began + 1))[3]
    node = ndb("STARTING", 2, 3)
    own = apply_status({}, [node], began + 3)[3]
    assert own.current_from == "first_seen"
    merged = merge_timeline(node, own, hub, began + 3)
    assert merged is not None and merged.began_at == began
    assert merged.current_phase == 3 and merged.current_from == "status"


def test_the_rolling_restart_screen_marks_a_time_in_phase_it_did_not_see_begin() -> None:
    from ndbtop.tui.screens.rolling_progress import NodeProgress, progress_text

    node = ndb("STARTING", 4, 3)
    first = apply_status({}, [node], FIRST_SIGHT)[3]
    row = NodeProgress(3, 0, 1, "restarting", node)
    shown = progress_text(row, cast(Any, None), {3: first}, FIRST_SIGHT + 12).plain
    assert "phase 5 copy data, wait LCP · ≥12 s in phase" in shown
    later = apply_status({3: first}, [ndb("STARTING", 5, 3)], FIRST_SIGHT + 20)[3]
    shown = progress_text(row, cast(Any, None), {3: later}, FIRST_SIGHT + 25).plain
    assert "· ≈5 s in phase" in shown
