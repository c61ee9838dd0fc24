"""A start ndbtop came to late, dated from the cluster log file: its phase in progress goes
as one seen from its beginning, the basis says where that beginning comes from, and
``start_phase_slow`` is judged.

The file's lines as real clusters write them (tests/model/test_start_file.py); ``get
status`` gives the last completed phase (mgm-protocol.md §6).
"""

from __future__ import annotations

from dataclasses import replace

from ndbtop.eta.node import StartEvidence, estimate_start
from ndbtop.eta.node_evidence import StartEtaKeeper
from ndbtop.eta.node_text import eta_text
from ndbtop.findings import evaluate
from ndbtop.findings.coverage import unjudged
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.eta import Eta
from ndbtop.model.history import SLOWER_MIN_EXCESS_S, PastStart, phase_normal
from ndbtop.model.phases import INITIAL_START, NODE_RESTART, apply_status
from ndbtop.model.start_evidence import clock_time
from ndbtop.model.start_file import apply_file
from tests.eta.test_attached_estimate import AFTER_5, NODE_RESTART_TAKEN, PHASE_5, REF
from tests.model.test_eta_node import snap
from tests.model.test_start_file import BEGAN, FIELD_S1, FIRST_SIGHT, at, attached, lines, redo_file

S2_LINES = """\
2008-10-24 12:42:40 [MgmtSrvr] INFO     -- Node 3: Start initiated (mysql-5.7.22 ndb-7.6.6)
2008-10-24 12:43:06 [MgmtSrvr] INFO     -- Node 3: Start phase 0 completed (node restart)
2008-10-24 12:43:07 [MgmtSrvr] INFO     -- Node 3: Start phase 1 completed (node restart)
2008-10-24 12:43:08 [MgmtSrvr] INFO     -- Node 3: Start phase 2 completed (node restart)
2008-10-24 12:43:09 [MgmtSrvr] INFO     -- Node 3: Start phase 3 completed (node restart)
2008-10-24 12:43:16 [MgmtSrvr] INFO     -- Node 3: Start phase 4 completed (node restart)
"""
"""S2's node restart of node 3 on 7.6 (the field report's 26 s to allocate and touch memory,
metadata in a second or two), phase 5 under way since 12:43:16, a minute before ndbtop
first saw the node."""
PHASE_5_BEGAN = at("12:43:16")


def in_phase_5_dated(seen: float) -> tuple[object, float]:
    """Node 3 first seen in phase 5 at FIRST_SIGHT, dated by the file; (timeline, now)."""
    t = apply_status({}, [NodeStatus(3, "NDB", "STARTING", 0, 0, 4, 0, 0, 1, "h")],
                     FIRST_SIGHT)
    return apply_file(t, lines(S2_LINES))[3], FIRST_SIGHT + seen


def test_a_phase_the_file_dated_goes_by_its_usual_length_less_its_time_so_far() -> None:
    t, now = in_phase_5_dated(30.0)
    spent = now - PHASE_5_BEGAN
    result = estimate_start(StartEvidence(t, now, references=(REF,)))  # type: ignore[arg-type]
    assert isinstance(result, Eta)
    # The file told the kind: nothing taken. The phase left is restart_info's less the
    # time since it began (no lower bound, no "middle of the two").
    assert abs(result.seconds - (PHASE_5 - spent + AFTER_5)) < 1e-6
    note = f"attached mid-start: phase 5 began at {clock_time(PHASE_5_BEGAN)} (the cluster log)"
    assert result.basis == ("restart_info (this node)", "typical", "phases done", note)
    assert eta_text(result).endswith(f"; {note}")
    # The same start undated has a range from nothing: the file narrows it.
    undated = apply_status({}, [NodeStatus(3, "NDB", "STARTING", 0, 0, 4, 0, 0, 1, "h")],
                           FIRST_SIGHT)[3]
    loose = estimate_start(StartEvidence(undated, now, references=(REF,),
                                         taken_kind=NODE_RESTART_TAKEN))
    assert isinstance(loose, Eta)
    assert result.high - result.low < loose.high - loose.low


def test_the_real_time_still_to_go_falls_inside_the_range() -> None:
    # Phase 5 really takes 250 to 370 s (restart_info's 300 s, -20/+25 %).
    for length in (250.0, 300.0, 370.0):
        for seen in (0.0, 60.0, 120.0):
            t, now = in_phase_5_dated(seen)
            left = length - (now - PHASE_5_BEGAN)
            result = estimate_start(StartEvidence(t, now, references=(REF,)))  # type: ignore
            assert isinstance(result, Eta) and t.start_type == NODE_RESTART  # type: ignore
            assert result.low <= left + AFTER_5 <= result.high, (length, seen)


def test_an_initial_start_goes_by_the_files_redo_rate_at_once() -> None:
    text = FIELD_S1 + redo_file([("12:24:16", [(0, 0, 4)]), ("12:24:26", [(0, 47, 4)]),
                                 ("12:24:36", [(0, 94, 4)])])
    t = apply_file(attached(), lines(text))
    now = at("12:24:40")
    result = dict(StartEtaKeeper().observe(snap(t, now)))[10]
    assert isinstance(result, Eta)
    # No event heard yet: the file's lines give the rate, and no kind is taken.
    assert result.basis[0] == "redo rate (cluster log)"
    assert result.basis[-1] == (f"attached mid-start: phase 4 began at {clock_time(BEGAN)} "
                                "(the cluster log)")
    assert not any(b.startswith("taken for") for b in result.basis)


def test_start_phase_slow_is_judged_on_a_phase_the_file_dated() -> None:
    t = attached()
    undated = snap(t, at("13:02:00"))
    assert ("a start phase not seen from its beginning", ("start_phase_slow",)) in \
        unjudged(undated, None)
    # The redo log (4096 MB in the test configuration) takes about 82 s at 50 MB/s; the
    # phase has run 38 min by the file.
    dated = snap(apply_file(t, lines(FIELD_S1 + redo_file([("12:24:16", [(0, 0, 4)])]))),
                 at("13:02:00"))
    assert all("start_phase_slow" not in rules for _, rules in unjudged(dated, None))
    slow = [f for f in evaluate(dated) if f.id == "start_phase_slow"]
    assert [f.summary for f in slow] == [
        "node 10 has been in phase 4 redo log init for 2,264 s, more than twice its normal "
        "860 s (redo log at an assumed 50 MB/s)"]
    assert slow[0].evidence[0].source.endswith("(timed from the cluster log file)")


def test_start_phase_slow_goes_by_this_clusters_last_start_where_there_is_one() -> None:
    # The last initial start of node 10 spent 2,306 s (38m26s) in phase 4: that is normal
    # here, whatever 50 MB/s would make of the log; 2,264 s is not slow.
    t = apply_file(attached(), lines(FIELD_S1 + redo_file([("12:24:16", [(0, 0, 4)])])))
    dated = snap(t, at("13:02:00"))
    last = PastStart(10, INITIAL_START, 1.0, ((4, 2306.0),), 2400.0)
    assert not [f for f in evaluate(replace(dated, past_starts=(last,)))
                if f.id == "start_phase_slow"]
    # Twice the last start's is slow, and says what the normal rests on.
    quick = PastStart(10, INITIAL_START, 1.0, ((4, 1000.0),), 1100.0)
    (f,) = [f for f in evaluate(replace(dated, past_starts=(quick,)))
            if f.id == "start_phase_slow"]
    assert f.summary.endswith("more than twice its normal 1,000 s (this cluster's last start)")
    assert f.threshold.value == "2 x 1,000 s (this cluster's last start)"
    # A short phase measured last time is not slow for a few seconds more.
    short = phase_normal((PastStart(10, INITIAL_START, 1.0, ((1, 1.0),), 2.0),), t[10], 1)
    assert short is not None and short.measured and not short.slow(3.0)
    assert short.slow(1.0 + SLOWER_MIN_EXCESS_S)
