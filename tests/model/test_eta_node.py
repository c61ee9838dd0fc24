"""The estimate of a data node's time to STARTED, from hand-built evidence.

Events are built as the management server sends them (mgm-protocol.md §5: NDBStartStarted
10, StartPhaseCompleted 13 with the phase and start type; redo-init.md §6:
LogFileInitStatus 71 with the block reference, total files, files done, total MB, MB done).
"""

from __future__ import annotations

from dataclasses import replace

from ndbtop.eta.node import (
    FIELD_MEMORY_BYTES_PER_S,
    SPREAD,
    RedoRate,
    RestartReference,
    StartEvidence,
    estimate_start,
    estimate_whole_start,
    phase_parts,
)
from ndbtop.eta.node_evidence import StartEtaKeeper, redo_mb_per_s, restart_phases
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig, DataNodeConfig, NodeConfig
from ndbtop.model.eta import Eta, EtaMissing, bounded, eta_json
from ndbtop.model.history import PastStart
from ndbtop.model.hosts import HostReport, RedoMeasure
from ndbtop.model.ndbinfo import MemoryUse, NdbinfoSample, RestartInfo
from ndbtop.model.phases import (
    INITIAL_START,
    NODE_RESTART,
    StartTimeline,
    apply_event,
)
from ndbtop.model.snapshot import ClusterSnapshot
from ndbtop.sim.startplan import RESTART_COLUMNS
from tests.model.test_model_phases import event

GIB = 1 << 30


def started(node: int, at: float) -> dict[int, StartTimeline]:
    return apply_event({}, event(10, node, (), at))


def done(timelines: dict[int, StartTimeline], node: int, phase: int, kind: int,
         at: float) -> dict[int, StartTimeline]:
    return apply_event(timelines, event(13, node, (phase, kind), at))


def node_restart_in_phase_5(at: float = 1000.0) -> StartTimeline:
    """Node 3 restarting: phases 0..4 done in 40 s, in phase 5 since ``at + 40``."""
    t = started(3, at)
    for i, phase in enumerate((1, 2, 3, 4)):
        t = done(t, 3, phase, NODE_RESTART, at + 30 + 2.5 * i)
    return t[3]


def rows(**secs: int) -> tuple[tuple[str, int], ...]:
    return tuple((c, secs.get(c, 0)) for c in RESTART_COLUMNS)


def test_a_node_restart_with_no_history_and_no_restart_info_has_no_estimate() -> None:
    t = node_restart_in_phase_5()
    result = estimate_start(StartEvidence(t, 1100.0, memory_bytes=64 * GIB))
    assert isinstance(result, EtaMissing)
    assert result.reason == "phase 5 (copy data, wait LCP): no restart_info, no past start"
    assert eta_json(result) == {"eta": None, "eta_missing": result.reason}


def test_an_initial_start_with_no_history_has_none_until_its_redo_log_is_seen() -> None:
    t = started(10, 1000.0)[10]
    t = replace(t, start_type=INITIAL_START)
    # Which phase creates the redo log depends on the release: no norm may stand for it.
    assert estimate_start(StartEvidence(t, 1001.0, memory_bytes=27 * GIB)) == EtaMissing(
        "redo log init not begun yet: no rate, no past start")
    # With an earlier initial start in the history, its phases give the estimate.
    past = PastStart(11, INITIAL_START, 500.0, ((0, 5.0), (1, 0.5), (2, 900.0)), 920.0)
    evidence = StartEvidence(t, 1001.0, memory_bytes=27 * GIB, history=(past,))
    result = estimate_start(evidence)
    assert isinstance(result, Eta)
    assert result.basis[0] == "start history (node 11)"
    parts = phase_parts(evidence)
    assert not isinstance(parts, EtaMissing)
    # Phase 0 by the field report's memory rate (no start of this node), 1 s in.
    memory = parts[0]
    assert memory.basis == "memory rate (field report)"
    assert memory.seconds == 27 * GIB / FIELD_MEMORY_BYTES_PER_S - 1.0
    assert next(p for p in parts if p.phase == 2).seconds == 900.0


def test_not_starting_gives_none_and_json_says_so() -> None:
    t = node_restart_in_phase_5()
    finished = replace(t, finished_at=2000.0, current_phase=None)
    assert estimate_start(StartEvidence(finished, 2001.0)) is None
    assert eta_json(None) == {"eta": None, "eta_missing": "not starting"}


def test_restart_info_of_this_node_gives_phase_5_and_the_range_follows_its_spread() -> None:
    t = node_restart_in_phase_5()
    ref = RestartReference(3, ((1, 1.0), (2, 1.0), (3, 1.0), (5, 400.0), (101, 6.0)), None)
    result = estimate_start(StartEvidence(t, t.current_since + 100.0, references=(ref,)))
    assert isinstance(result, Eta)
    assert result.basis[0] == "restart_info (this node)"
    # 300 s left of phase 5, 6 s of hand-over, norms for phases 6..100 (5 x 2 s).
    assert abs(result.seconds - (300.0 + 6.0 + 10.0)) < 1e-6
    above = SPREAD["restart_info (this node)"][1]
    assert abs(result.high - (400 * (1 + above) - 100 + 6 * (1 + above) + 10 * 4)) < 1e-6
    assert result.low < result.seconds < result.high


def test_a_partners_restart_is_scaled_by_data_memory_and_weighs_less() -> None:
    t = node_restart_in_phase_5()
    now = t.current_since
    own = estimate_start(StartEvidence(t, now, references=(RestartReference(3, ((5, 400.0),)),)))
    partner = estimate_start(StartEvidence(
        t, now, references=(RestartReference(2, ((5, 200.0),), scale=2.0),)))
    assert isinstance(own, Eta) and isinstance(partner, Eta)
    assert abs(own.seconds - partner.seconds) < 1e-6, "200 s for half the data: 400 s"
    assert partner.basis[0] == "restart_info (node 2)"
    assert (partner.high - partner.low) > (own.high - own.low)


def test_history_of_this_node_beats_another_nodes_and_is_tighter() -> None:
    t = node_restart_in_phase_5()
    now = t.current_since
    phases = ((5, 300.0), (101, 5.0))
    mine = PastStart(3, NODE_RESTART, 500.0, phases, 340.0)
    other = PastStart(2, NODE_RESTART, 900.0, phases, 340.0)
    a = estimate_start(StartEvidence(t, now, history=(other, mine)))
    b = estimate_start(StartEvidence(t, now, history=(other,)))
    assert isinstance(a, Eta) and isinstance(b, Eta)
    assert a.basis[0] == "last start" and b.basis[0] == "start history (node 2)"
    assert abs(a.seconds - b.seconds) < 1e-6
    assert (b.high - b.low) > (a.high - a.low)
    # A partial start (seen in part) is never a basis.
    partial = replace(mine, partial=True)
    assert isinstance(estimate_start(StartEvidence(t, now, history=(partial,))), EtaMissing)


def test_a_phase_past_its_estimate_opens_the_range_upwards() -> None:
    t = node_restart_in_phase_5()
    ref = RestartReference(3, ((5, 100.0), (101, 5.0)))
    before = estimate_start(StartEvidence(t, t.current_since + 50.0, references=(ref,)))
    after = estimate_start(StartEvidence(t, t.current_since + 400.0, references=(ref,)))
    assert isinstance(before, Eta) and isinstance(after, Eta)
    # 400 s into a phase expected to take 100 s: a quarter of the time so far is still to
    # go, up to four times that; then the norms of phases 6..100 and 5 s of hand-over.
    assert abs(after.seconds - (100.0 + 10.0 + 5.0)) < 1e-6
    assert abs(after.high - (400.0 + 5 * 8.0 + 5.0 * 1.25)) < 1e-6
    assert after.high - after.seconds > before.high - before.seconds


def test_a_redo_rate_gives_the_redo_phase_and_its_spread_the_range() -> None:
    t = started(10, 1000.0)
    t = done(t, 10, 1, INITIAL_START, 1001.0)[10]
    redo = RedoRate("events", remaining_mb=1000.0, mb_per_s=10.0, slowest=5.0, fastest=10.0,
                    samples=3)
    result = estimate_start(StartEvidence(t, 1100.0, redo=redo))
    assert isinstance(result, Eta)
    assert result.basis[0] == "redo rate (events)"
    parts = phase_parts(StartEvidence(t, 1100.0, redo=redo))
    assert not isinstance(parts, EtaMissing)
    redo_part = next(p for p in parts if p.phase == 2)
    assert redo_part.seconds == 100.0
    assert redo_part.low == 100.0 * 0.9 and redo_part.high == 200.0 * 1.1


def test_restart_info_steps_sum_to_their_start_phases() -> None:
    info = RestartInfo(3, "Restart completed", 12, rows(
        secs_to_allocate_node_id=26, secs_to_include_in_heartbeat_protocol=1,
        secs_to_copy_meta_data=2, secs_for_local_recovery=247, secs_restore_fragments=135,
        secs_exec_redo_log=35, secs_index_rebuild=77, secs_wait_lcp_for_restart=128,
        secs_wait_subscription_handover=6), 409)
    # Local recovery sums four steps: counted once, through its parts.
    assert restart_phases(info) == ((1, 1.0), (2, 0.0), (3, 0.0), (5, 377.0), (101, 6.0))


# Through the keeper, from snapshots.

def config() -> ClusterConfig:
    data = tuple(DataNodeConfig(n, 0, data_memory=4 * GIB, fragment_log_parts=4,
                                fragment_log_files=64, fragment_log_file_size=16 << 20)
                 for n in (10, 11))
    return ClusterConfig(1, "t", 2, tuple(NodeConfig(n, "NDB") for n in (10, 11)), data)


TOTAL_MB = 4096
NORMS_AFTER_REDO = 2 + 5 + 5 + 2 + 2 + 5 + 2 + 2 + 10
"""The norms of phases 3..101 of an initial start once its redo log is created in phase 2."""


def redo_report(node: int, mb_done: int, at: float, total_mb: int = 1024) -> object:
    # One LDM instance (block reference: node id in the low 16 bits).
    return event(71, node, (node, 64, mb_done // 16, total_mb, mb_done), at)


def snap(timelines: dict[int, StartTimeline], wall: float, **extra: object) -> ClusterSnapshot:
    return ClusterSnapshot(taken_at=wall, wall=wall, interval=10.0, sources=(),
                           timelines=tuple(timelines.values()), config=config(), **extra)


def test_a_redo_rate_that_halves_widens_the_range_and_moves_within_two_intervals() -> None:
    keeper = StartEtaKeeper()
    t = started(10, 1000.0)
    t = done(t, 10, 1, INITIAL_START, 1001.0)
    t = apply_event(t, redo_report(10, 0, 1002.0, TOTAL_MB))
    seen: list[Eta] = []
    mb, at = 0, 1002.0
    # 20 MB/s for five reports 10 s apart, then 10 MB/s.
    for rate in (20, 20, 20, 20, 20, 10, 10):
        mb, at = mb + rate * 10, at + 10.0
        t = apply_event(t, redo_report(10, mb, at, TOTAL_MB))
        result = dict(keeper.observe(snap(t, at)))[10]
        assert isinstance(result, Eta)
        assert result.basis[0] == "redo rate (events)"
        seen.append(result)
    steady, slowed = seen[4], seen[5]
    assert abs(steady.seconds - ((TOTAL_MB - 1000) / 20 + NORMS_AFTER_REDO)) < 1e-6
    # The rate is measured over the last four intervals (one report arriving late or early
    # moves it little): the estimate moves at the first report of the slower rate and
    # again at the second...
    assert abs(slowed.seconds - ((TOTAL_MB - 1100) / 17.5 + NORMS_AFTER_REDO)) < 1e-6
    assert abs(seen[6].seconds - ((TOTAL_MB - 1200) / 15 + NORMS_AFTER_REDO)) < 1e-6
    assert steady.seconds < slowed.seconds < seen[6].seconds
    # ...and the range widened: the recent rates now run from 15 to 20 MB/s, and the end
    # at the new speed of 10 MB/s is nearer its high end than the estimate is.
    def width(e: Eta) -> float:
        return e.high - e.low

    # The norms of the phases ahead keep their width; the redo phase's grows from
    # ±10 % at 20 MB/s to between -10 % at 20 MB/s and +10 % at 17.5 MB/s.
    grown = (TOTAL_MB - 1100) * (1.1 / 17.5 - 0.9 / 20) - (TOTAL_MB - 1000) * 0.2 / 20
    assert abs(width(slowed) - width(steady) - grown) < 1e-6 and grown > 20
    assert width(seen[6]) > width(slowed)
    assert seen[6].low < (TOTAL_MB - 1200) / 20 + NORMS_AFTER_REDO < seen[6].high


def test_the_keeper_keeps_a_completed_restart_before_it_is_overwritten() -> None:
    keeper = StartEtaKeeper()
    used = (MemoryUse(2, "Data memory", 30 * GIB, 0, 64 * GIB, 0),
            MemoryUse(3, "Data memory", 30 * GIB, 0, 64 * GIB, 0))
    finished = RestartInfo(3, "Restart completed", 12, rows(secs_restore_fragments=100,
                                                            secs_wait_lcp_for_restart=200), 320)
    sample = NdbinfoSample(0.0, None, memory=used, restart_info=(finished,))
    nodes = tuple(NodeStatus(n, "NDB", "STARTED", 0, 0, 0, 0, 0, 1, "h") for n in (2, 3))
    keeper.observe(snap({}, 900.0, ndbinfo=sample, nodes=nodes))
    # Node 3 restarts: its row now shows the restart in progress, its memory is not live.
    t = node_restart_in_phase_5()
    in_progress = RestartInfo(3, "Restore fragments ongoing", 8, rows(), 0)
    sample = NdbinfoSample(0.0, None, memory=(replace(used[0], used=60 * GIB),),
                           restart_info=(in_progress,))
    now = t.current_since + 10.0
    result = dict(keeper.observe(snap({3: t}, now, ndbinfo=sample, nodes=nodes)))[3]
    assert isinstance(result, Eta)
    assert result.basis[0] == "restart_info (this node)"
    # Twice the data in use in its node group now: phase 5 takes twice 300 s.
    parts = phase_parts(keeper.evidence(snap({3: t}, now, ndbinfo=sample, nodes=nodes), t,
                                        {2: 60 * GIB}))
    assert not isinstance(parts, EtaMissing)
    assert next(p for p in parts if p.phase == 5).seconds == 600.0 - 10.0


def test_a_start_not_begun_is_estimated_whole_from_the_same_evidence() -> None:
    ref = RestartReference(3, ((1, 1.0), (2, 1.0), (3, 1.0), (5, 400.0), (101, 6.0)))
    whole = estimate_whole_start(3, NODE_RESTART, 5000.0, memory_bytes=27 * GIB,
                                 references=(ref,))
    assert isinstance(whole, Eta)
    memory = 27 * GIB / FIELD_MEMORY_BYTES_PER_S
    # Memory at the field's rate, the restart_info phases, norms for phases 4, 6..9, 100.
    assert abs(whole.seconds - (memory + 409.0 + 6 * 2.0)) < 1e-6
    assert whole.basis[0] == "restart_info (this node)" and whole.now == 5000.0
    assert estimate_whole_start(3, NODE_RESTART, 5000.0, memory_bytes=GIB) == EtaMissing(
        "phase 5 (copy data, wait LCP): no restart_info, no past start")
    assert estimate_whole_start(3, NODE_RESTART, 5000.0, references=(ref,)) == EtaMissing(
        "phase 0 (allocate memory): no configuration (DataMemory), no past start")


def test_a_completed_restart_gets_its_data_memory_once_the_node_is_live() -> None:
    keeper = StartEtaKeeper()
    finished = RestartInfo(3, "Restart completed", 12, rows(secs_restore_fragments=100), 120)
    nodes = tuple(NodeStatus(n, "NDB", "STARTED", 0, 0, 0, 0, 0, 1, "h") for n in (2, 3))
    keeper.observe(snap({}, 900.0, nodes=nodes,
                        ndbinfo=NdbinfoSample(0.0, None, restart_info=(finished,))))
    used = (MemoryUse(3, "Data memory", 10 * GIB, 0, 64 * GIB, 0),)
    keeper.observe(snap({}, 901.0, nodes=nodes,
                        ndbinfo=NdbinfoSample(0.0, None, memory=used, restart_info=(finished,))))
    refs = keeper.references(snap({}, 902.0, nodes=nodes), 3, {2: 20 * GIB})
    assert [(r.node_id, r.scale) for r in refs] == [(3, 2.0)]


def test_the_hosts_measure_counts_bytes_written_one_32nd_of_the_log() -> None:
    # StartupStatusReportFrequency=0: the events stay at their first figures, the host's
    # measure stands (redo-init.md §4: SPARSE writes one 32 KiB page per MiB of log).
    keeper = StartEtaKeeper()
    t = started(10, 1000.0)
    t = done(t, 10, 1, INITIAL_START, 1001.0)
    t = apply_event(t, redo_report(10, 0, 1002.0, TOTAL_MB))
    log = TOTAL_MB << 20
    written = (log // 32) // 4  # a quarter of the writes done
    measure = RedoMeasure(10, 64, 256, written, log // 32, 1 << 20, None)
    host = HostReport("db10", "ssh", (10,), "ok", last_ok=50.0, redo_init=(measure,))
    result = dict(keeper.observe(snap(t, 1100.0, hosts=(host,))))[10]
    assert isinstance(result, Eta) and result.basis[0] == "redo rate (host)"
    # 1 MiB/s written is 32 MiB/s of log; three quarters of 4096 MiB of log left.
    parts = phase_parts(keeper.evidence(snap(t, 1100.0, hosts=(host,)), t[10], {}))
    assert not isinstance(parts, EtaMissing)
    assert next(p for p in parts if p.phase == 2).seconds == 3 * 1024 / 32
    assert redo_mb_per_s(snap(t, 1100.0, hosts=(host,)), 10) == 32.0


def test_a_redo_log_that_stops_growing_has_no_rate_to_divide_by() -> None:
    keeper = StartEtaKeeper()
    t = started(10, 1000.0)
    t = done(t, 10, 1, INITIAL_START, 1001.0)
    at = 1002.0
    # The same 200 MB reported five times, 10 s apart: the window's rate is 0.
    for _ in range(5):
        at += 10.0
        t = apply_event(t, redo_report(10, 200, at, TOTAL_MB))
        result = dict(keeper.observe(snap(t, at)))[10]
    assert isinstance(result, EtaMissing)


def test_an_estimate_past_thirty_days_is_no_estimate() -> None:
    assert bounded(Eta(60.0, 30.0, 90.0, 1e9, ("x",))) == Eta(60.0, 30.0, 90.0, 1e9, ("x",))
    far = bounded(Eta(1e12, 1e11, 1e13, 1.8e9, ("redo rate (events)",)))
    assert far == EtaMissing("more than 30 days at the rate measured")
    assert isinstance(bounded(Eta(float("inf"), 0.0, float("inf"), 1e9, ())), EtaMissing)
    assert eta_json(far) == {"eta": None, "eta_missing": "more than 30 days at the rate measured"}
