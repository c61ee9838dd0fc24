"""An estimate is about what remains: a start ndbtop attached to mid-way has one too.

The timelines are built as ``get status`` and the events give them (mgm-protocol.md §6):
``node.N.startphase`` is the last completed phase while the node is STARTING, so a node
first seen with ``startphase: 4`` is in phase 5 and has been for who knows how long.
"""

from __future__ import annotations

from dataclasses import replace

from ndbtop.eta.node import (
    KIND_UNKNOWN,
    SPREAD,
    RedoRate,
    RestartReference,
    StartEvidence,
    estimate_start,
    phase_parts,
)
from ndbtop.eta.node_evidence import StartEtaKeeper
from ndbtop.eta.node_text import eta_text
from ndbtop.eta.start_kind import taken_kind
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.eta import Eta, EtaMissing
from ndbtop.model.hosts import HostReport, RedoMeasure
from ndbtop.model.phases import (
    INITIAL_NODE_RESTART,
    INITIAL_START,
    NODE_RESTART,
    StartTimeline,
    apply_event,
    apply_status,
)
from ndbtop.model.start_evidence import clock_time
from tests.model.test_eta_node import TOTAL_MB, redo_report, snap
from tests.model.test_model_phases import event

FIRST_SIGHT = 1_800_000_000.0
PHASE_5 = 300.0
"""restart_info's phase 5 (restore, redo, index rebuild, wait for LCP) of node 3."""
REF = RestartReference(3, ((1, 1.0), (2, 1.0), (3, 1.0), (5, PHASE_5), (101, 6.0)))
AFTER_5 = 6.0 + 5 * 2.0
"""Phase 101 from restart_info, the norms of phases 6..9 and 100."""
NODE_RESTART_TAKEN = (NODE_RESTART,
                      "taken for a node restart: data node 2 started, no redo log creation seen")


def ndb(node_id: int, status: str, phase: int) -> NodeStatus:
    return NodeStatus(node_id, "NDB", status, 0, 0, phase, 0, 0, 1, "h")


def in_phase_5() -> StartTimeline:
    """Node 3 first seen in phase 5 (startphase 4): every phase so far began unseen."""
    return apply_status({}, [ndb(3, "STARTING", 4)], FIRST_SIGHT)[3]


def estimate(t: StartTimeline, now: float, **extra: object) -> Eta:
    result = estimate_start(StartEvidence(t, now, references=(REF,),
                                          taken_kind=NODE_RESTART_TAKEN, **extra))  # type: ignore[arg-type]
    assert isinstance(result, Eta), result
    return result


def test_a_phase_begun_unseen_has_at_most_its_usual_length_less_what_was_seen_to_go() -> None:
    seen = 30.0
    result = estimate(in_phase_5(), FIRST_SIGHT + seen)
    low, high = SPREAD["restart_info (this node)"]
    # Phase 5 may end any moment (it may have begun long before) or run its usual length
    # less the 30 s seen: the middle of the two, and the range from nothing to its high end.
    assert abs(result.seconds - ((PHASE_5 - seen) / 2 + AFTER_5)) < 1e-6
    assert abs(result.high - (PHASE_5 * (1 + high) - seen + 6.0 * (1 + high) + 5 * 8.0)) < 1e-6
    assert result.low < 6.0 * (1 - low) + 1e-6
    assert result.basis == ("restart_info (this node)", "typical",
                            f"attached mid-start: phase 5 began before {clock_time(FIRST_SIGHT)}",
                            NODE_RESTART_TAKEN[1])
    line = eta_text(result)
    assert line.endswith(f"· its restart_info, typical; attached mid-start: phase 5 began before "
                         f"{clock_time(FIRST_SIGHT)}; {NODE_RESTART_TAKEN[1]}")


def test_the_real_time_still_to_go_falls_inside_the_range_wherever_ndbtop_came_in() -> None:
    # Phase 5 really takes 250 to 370 s (restart_info's 300 s, -20/+25 %); ndbtop came in
    # at any moment of it, and looks 10 to 200 s later.
    for length in (250.0, 300.0, 370.0):
        for came_in in range(0, int(length), 20):
            for seen in (10.0, 60.0, 200.0):
                left = length - came_in - seen
                if left < 0:
                    continue
                result = estimate(in_phase_5(), FIRST_SIGHT + seen)
                # The real time to STARTED: the rest of phase 5 and the phases after it at
                # their norms and restart_info's hand-over.
                assert result.low <= left + AFTER_5 <= result.high, (length, came_in, seen)


def test_past_its_usual_length_the_range_opens_upwards_and_may_end_now() -> None:
    result = estimate(in_phase_5(), FIRST_SIGHT + 400.0)
    parts = phase_parts(StartEvidence(in_phase_5(), FIRST_SIGHT + 400.0, references=(REF,),
                                      taken_kind=NODE_RESTART_TAKEN))
    assert not isinstance(parts, EtaMissing)
    five = next(p for p in parts if p.phase == 5)
    assert (five.seconds, five.low, five.high) == (100.0, 0.0, 400.0)
    assert result.high > 400.0


def test_a_start_the_host_dates_bounds_the_time_spent_from_above() -> None:
    # --ssh: the worker process started 60 s before ndbtop first saw node 3 in phase 5, so
    # phase 5 has run 30 to 90 s when ndbtop has seen 30 s of it.
    t = replace(in_phase_5(), began_at=FIRST_SIGHT - 60.0, began_exact=True, began_from="host")
    parts = phase_parts(StartEvidence(t, FIRST_SIGHT + 30.0, references=(REF,),
                                      taken_kind=NODE_RESTART_TAKEN))
    assert not isinstance(parts, EtaMissing)
    five = next(p for p in parts if p.phase == 5)
    assert five.high == PHASE_5 * 1.25 - 30.0
    assert five.low == PHASE_5 * 0.8 - 90.0
    assert five.seconds == ((PHASE_5 - 30.0) + (PHASE_5 - 90.0)) / 2


def test_the_redo_log_still_to_create_goes_by_its_rate_however_long_ago_it_began() -> None:
    # S1 first seen in phase 4 (startphase 3), its redo log creation measured: the phase
    # goes by what is left at the rate, not by when it began.
    t = apply_status({}, [ndb(10, "STARTING", 3)], FIRST_SIGHT)[10]
    t = replace(t, redo_phase=4)
    redo = RedoRate("events", remaining_mb=1800.0, mb_per_s=18.0, slowest=17.0, fastest=19.0,
                    samples=3)
    taken = (INITIAL_START, "taken for an initial start: it creates its redo log (its progress "
             "reports), no data node started")
    for seen in (5.0, 500.0):
        result = estimate_start(StartEvidence(t, FIRST_SIGHT + seen, redo=redo, taken_kind=taken))
        assert isinstance(result, Eta)
        assert result.basis[0] == "redo rate (events)"
        assert result.basis[-1] == taken[1]
        assert result.basis[-2] == f"attached mid-start: phase 4 began before " \
                                   f"{clock_time(FIRST_SIGHT)}"
        # 100 s of redo log, then the norms of an initial start's phases 5 to 101.
        assert abs(result.seconds - (100.0 + 5 + 2 + 2 + 5 + 2 + 2 + 10)) < 1e-6


def test_the_kind_of_start_is_taken_from_what_is_seen_and_said() -> None:
    first = apply_status({}, [ndb(10, "STARTING", 3)], FIRST_SIGHT)[10]
    alone = [ndb(10, "STARTING", 3), ndb(11, "STARTING", 3)]
    joined = [ndb(10, "STARTING", 3), ndb(11, "STARTED", 0), ndb(12, "STARTED", 0)]
    assert taken_kind(first, alone) is None
    assert taken_kind(first, joined) == (
        NODE_RESTART, "taken for a node restart: data nodes 11, 12 started, no redo log "
        "creation seen")
    reports = apply_event({10: first}, redo_report(10, 100, FIRST_SIGHT + 1, TOTAL_MB))[10]
    assert taken_kind(reports, alone) == (
        INITIAL_START, "taken for an initial start: it creates its redo log (its progress "
        "reports), no data node started")
    assert taken_kind(first, joined, host_redo=True) == (
        INITIAL_NODE_RESTART, "taken for an initial node restart: it creates its redo log (its "
        "host), data nodes 11, 12 started")
    # A phase-completed event tells the kind: nothing is taken.
    told = apply_event({10: first}, event(13, 10, (4, 0), FIRST_SIGHT + 2))[10]
    assert taken_kind(told, joined) is None


def test_nothing_to_tell_a_system_restart_from_an_initial_start_gives_no_estimate() -> None:
    first = apply_status({}, [ndb(10, "STARTING", 3)], FIRST_SIGHT)[10]
    assert estimate_start(StartEvidence(first, FIRST_SIGHT + 1)) == EtaMissing(KIND_UNKNOWN)


def test_the_keeper_takes_the_kind_from_the_snapshot_and_the_host() -> None:
    # Initial start of node 10, first seen in its phase 4 without events; --ssh measures
    # its redo log creation on the host (a quarter of the writes of 4096 MiB of log done).
    t = apply_status({}, [ndb(10, "STARTING", 3)], FIRST_SIGHT)
    t = {10: replace(t[10], redo_phase=4)}
    log = TOTAL_MB << 20
    measure = RedoMeasure(10, 64, 256, (log // 32) // 4, log // 32, 1 << 20, None)
    host = HostReport("db10", "ssh", (10,), "ok", last_ok=50.0, redo_init=(measure,))
    nodes = (ndb(10, "STARTING", 3), ndb(11, "STARTING", 3))
    result = dict(StartEtaKeeper().observe(snap(t, FIRST_SIGHT + 20, hosts=(host,),
                                                nodes=nodes)))[10]
    assert isinstance(result, Eta)
    assert result.basis[0] == "redo rate (host)"
    assert result.basis[-1] == ("taken for an initial start: it creates its redo log (its "
                                "host), no data node started")
