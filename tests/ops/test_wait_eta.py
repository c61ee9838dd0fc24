"""``wait`` prints a starting node's estimate on each of its lines, or why there is none."""

from __future__ import annotations

import datetime as dt

from ndbtop.eta.node import KIND_UNKNOWN, StartEvidence, estimate_start
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.eta import Eta, EtaMissing
from ndbtop.model.phases import apply_status
from ndbtop.ops.wait import NOT_SEEN_STARTING, NodeChange, _estimate


def local(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch).strftime("%H:%M")


def test_a_starting_node_line_carries_the_estimate_its_range_and_basis() -> None:
    now = 1_800_000_000.0
    eta = Eta(600.0, 300.0, 900.0, now, ("restart_info (this node)", "typical", "phases done"))
    change = NodeChange(now, 3, "STARTING", 4, "phase 5 copy data, wait LCP", 20.0, eta)
    assert change.text().endswith(
        f"node 3 STARTING phase 5 copy data, wait LCP (20s in phase) · ETA {local(now + 600)}"
        f" ({local(now + 300)}–{local(now + 900)}) · its restart_info, typical")
    out = change.as_json()
    assert out["eta"] == eta.as_json() and "eta_missing" not in out
    assert out["eta"]["basis"] == ["restart_info (this node)", "typical", "phases done"]


def test_no_estimate_is_said_and_a_started_node_has_none() -> None:
    missing = EtaMissing("start not seen from its beginning: its times are lower bounds")
    change = NodeChange(0.0, 3, "STARTING", 4, "phase 5", 1.0, missing)
    assert change.text().endswith(" · no ETA: start not seen from its beginning: its times "
                                  "are lower bounds")
    assert change.as_json()["eta"] is None
    assert change.as_json()["eta_missing"] == missing.reason
    done = NodeChange(0.0, 3, "STARTED", 0, "", None, None)
    assert "ETA" not in done.text() and "eta" not in done.as_json()


def test_without_the_hub_s_estimate_the_wait_says_why_in_the_words_of_once() -> None:
    # One reason, one wording: --once and the live view say it of the same start.
    starting = NodeStatus(3, "NDB", "STARTING", 0, 0, 2, 0, 0, 1, "h")
    assert _estimate(lambda node: None, starting) == EtaMissing(NOT_SEEN_STARTING)
    first_sight = apply_status({}, [starting], 1000.0)[3]
    # No event told the kind of start, and nothing points to one: no data node runs, no
    # redo log creation was seen.
    why = EtaMissing(KIND_UNKNOWN)
    assert _estimate(None, starting, first_sight, 1001.0, 0.0, [starting]) == why
    assert estimate_start(StartEvidence(first_sight, 1001.0)) == why
    # Node 2 runs: the wait takes it for a node restart, as the hub would; its phase 5
    # then needs restart_info or a past start, which the wait alone does not have.
    running = NodeStatus(2, "NDB", "STARTED", 0, 0, 0, 0, 0, 1, "h")
    found = _estimate(None, starting, first_sight, 1001.0, 0.0, [running, starting])
    assert found == EtaMissing("phase 5 (copy data, wait LCP): no restart_info, no past start")
    started = NodeStatus(3, "NDB", "STARTED", 0, 0, 0, 0, 0, 1, "h")
    assert _estimate(lambda node: EtaMissing("x"), started) is None
