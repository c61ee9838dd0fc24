"""The evidence of :func:`ndbtop.eta.node.estimate_start`, gathered from the snapshots.

A :class:`StartEtaKeeper` lives beside the hub. At each snapshot it remembers what a
single snapshot does not hold: the recent redo initialisation rates of each starting node
(their spread makes the range), and each node's last *completed* restart in
``restart_info`` with the DataMemory it had in use then (the row is overwritten as soon
as the node restarts again). :meth:`StartEtaKeeper.observe` returns the estimate of every
starting data node.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace

from ndbtop.eta.node import RedoRate, RestartReference, StartEvidence, estimate_start
from ndbtop.eta.start_kind import taken_kind
from ndbtop.model.config_facts import host_redo_wins, measured_redo
from ndbtop.model.eta import EtaResult
from ndbtop.model.hosts import SPARSE_FRACTION
from ndbtop.model.ndbinfo import RestartInfo
from ndbtop.model.phases import StartTimeline
from ndbtop.model.snapshot import ClusterSnapshot

MIB = 1024 * 1024
RATE_SAMPLES = 8
"""Redo readings kept per node."""
RATE_WINDOW = 4
"""Intervals a redo rate is measured over: one report's arrival, late or early, moves it
little (events are stamped when they arrive), a change of speed moves it at once."""


def window_rates(readings: list[RedoReading]) -> list[float]:
    """The rate over up to :data:`RATE_WINDOW` intervals ending at each reading after the
    first two (MB of log per second), oldest first."""
    out = []
    for i in range(2, len(readings)):
        first = readings[max(i - RATE_WINDOW, 0)]
        last = readings[i]
        if last.at > first.at and last.done_mb >= first.done_mb:
            out.append((last.done_mb - first.done_mb) / (last.at - first.at))
    return out[-RATE_WINDOW:]
RESTART_COMPLETED = 12
"""``node_restart_status_int`` of a restart that completed (ndbinfo.md, restart_info)."""

RESTART_PHASE: dict[str, int] = {
    "secs_to_include_in_heartbeat_protocol": 1,
    "secs_until_wait_for_ndbcntr_master": 2,
    "secs_wait_for_ndbcntr_master": 2,
    "secs_to_get_start_permitted": 3,
    "secs_to_wait_for_lcp_for_copy_meta_data": 5,
    "secs_to_copy_meta_data": 5,
    "secs_to_include_node": 5,
    "secs_starting_node_to_request_local_recovery": 5,
    "secs_restore_fragments": 5,
    "secs_undo_disk_data": 5,
    "secs_exec_redo_log": 5,
    "secs_index_rebuild": 5,
    "secs_to_synchronize_starting_node": 5,
    "secs_wait_lcp_for_restart": 5,
    "secs_wait_subscription_handover": 101,
}
"""The start phase each ``restart_info`` step belongs to: a node restart copies and
restores its data and waits for a local checkpoint in phase 5, and hands over the event
subscriptions in phase 101. ``secs_for_local_recovery`` sums four of these and
``secs_to_allocate_node_id`` includes the wait for the node's process (phase 0 is
estimated from the memory); neither is counted."""


def restart_phases(info: RestartInfo) -> tuple[tuple[int, float], ...]:
    """``restart_info``'s steps summed per start phase (:data:`RESTART_PHASE`)."""
    out: dict[int, float] = {}
    for column, seconds in info.phases:
        phase = RESTART_PHASE.get(column)
        if phase is not None:
            out[phase] = out.get(phase, 0.0) + float(seconds)
    return tuple(sorted(out.items()))


@dataclass(frozen=True)
class KeptRestart:
    """A completed restart seen in ``restart_info``, with the DataMemory in use then."""

    info: RestartInfo
    data_used: int | None
    seen_at: float


@dataclass(frozen=True)
class RedoReading:
    """One reading of a redo initialisation in progress: MB of log done and still to do
    at ``at`` (seconds on the reading's own clock), and the rate the source gives."""

    source: str
    at: float
    done_mb: float
    left_mb: float
    mb_per_s: float | None
    since: float | None
    """When the initialisation began, on the same clock, if that was seen."""


def redo_now(snap: ClusterSnapshot, t: StartTimeline) -> RedoReading | None:
    """The latest reading of a node's redo initialisation in progress; None when there is
    none.

    The host's measure stands when it wins over the events (:func:`host_redo_wins`): it
    counts bytes written, about 1/32 of the log with SPARSE (redo-init.md §4).
    """
    cfg = snap.config.data_node(t.node_id) if snap.config is not None else None
    measured = host_redo_wins(snap, t.node_id)
    if measured is not None:
        host = snap.host_of(t.node_id)
        if (measured.bytes_expected is None or measured.bytes_written is None
                or measured.bytes_written >= measured.bytes_expected or host is None
                or host.last_ok is None):
            return None
        factor = SPARSE_FRACTION if cfg is None or not cfg.redo_init_full else 1
        rate = measured.rate_bytes_per_s
        return RedoReading("host", host.last_ok, measured.bytes_written * factor / MIB,
                           (measured.bytes_expected - measured.bytes_written) * factor / MIB,
                           rate * factor / MIB if rate else None, None)
    r = t.redo
    if r is None or r.completed or not r.total_mb:
        return None
    # With InitFragmentLogFiles=FULL the events count files, not MB (redo-init.md §6): the
    # share done, of the configured log, is what they tell.
    scale = cfg.redo_log_bytes / MIB / r.total_mb if cfg is not None else 1.0
    seen = t.current_phase == t.redo_phase and t.current_from in ("event", "file", "host")
    # Until an event of each LDM instance came, the cluster log file's lines tell it.
    return RedoReading("cluster log" if r.from_file else "events", r.at, r.mb_done * scale,
                       (r.total_mb - r.mb_done) * scale,
                       r.mb_per_s * scale if r.mb_per_s else None,
                       t.current_since if seen else None)


def redo_reading(snap: ClusterSnapshot, node_id: int) -> RedoReading | None:
    """The latest reading of a node's redo initialisation in progress (:func:`redo_now`),
    None when the node is not creating its redo log."""
    t = snap.timeline(node_id)
    return redo_now(snap, t) if t is not None and t.active else None


def redo_mb_per_s(snap: ClusterSnapshot, node_id: int) -> float | None:
    """The measured speed of a node's redo initialisation in progress (MB of log/s)."""
    now = redo_reading(snap, node_id)
    return None if now is None else now.mb_per_s


def data_used(snap: ClusterSnapshot) -> dict[int, int]:
    """DataMemory in use per live data node (``memoryusage``), bytes."""
    ni = snap.ndbinfo
    if ni is None:
        return {}
    return {m.node_id: m.used for m in ni.memory if m.memory_type == "Data memory"}


def group_of(snap: ClusterSnapshot, node_id: int) -> int | None:
    """The node group of a data node, from ``get status`` or the configuration."""
    node = snap.node(node_id)
    if node is not None and node.node_group is not None:
        return node.node_group
    cfg = snap.config.data_node(node_id) if snap.config is not None else None
    return cfg.node_group if cfg is not None else None


class StartEtaKeeper:
    """What the estimates of starts need beyond one snapshot, and the estimates."""

    def __init__(self) -> None:
        self._rates: dict[int, tuple[float, deque[RedoReading]]] = {}
        self._restarts: dict[int, KeptRestart] = {}

    def observe(self, snap: ClusterSnapshot) -> tuple[tuple[int, EtaResult], ...]:
        """Take in one snapshot; the estimate of each data node that is starting."""
        used = data_used(snap)
        ni = snap.ndbinfo
        for info in ni.restart_info if ni is not None else ():
            kept = self._restarts.get(info.node_id)
            if info.status_int != RESTART_COMPLETED:
                continue
            if kept is None or kept.info != info:
                self._restarts[info.node_id] = KeptRestart(info, used.get(info.node_id),
                                                           snap.wall)
            elif kept.data_used is None and info.node_id in used:
                # Its memory is read once it is live again, a refresh or two after.
                self._restarts[info.node_id] = replace(kept, data_used=used[info.node_id])
        out: list[tuple[int, EtaResult]] = []
        for t in snap.timelines:
            if not t.active:
                self._rates.pop(t.node_id, None)
                continue
            result = estimate_start(self.evidence(snap, t, used))
            if result is not None:
                out.append((t.node_id, result))
        return tuple(out)

    def evidence(self, snap: ClusterSnapshot, t: StartTimeline,
                 used: dict[int, int]) -> StartEvidence:
        """Everything known about the start of ``t``'s node."""
        cfg = snap.config.data_node(t.node_id) if snap.config is not None else None
        memory = cfg.data_memory + cfg.disk_page_buffer_memory if cfg is not None else None
        return StartEvidence(
            timeline=t,
            now=snap.wall,
            memory_bytes=memory,
            redo=self._redo(snap, t),
            references=self.references(snap, t.node_id, used),
            history=snap.past_starts,
            poll_interval=snap.interval,
            taken_kind=taken_kind(t, snap.nodes, measured_redo(snap, t.node_id) is not None),
        )

    def _redo(self, snap: ClusterSnapshot, t: StartTimeline) -> RedoRate | None:
        """The redo initialisation in progress with its rate and the spread of its recent
        rates; None when there is none or no rate is measured yet."""
        reading = redo_now(snap, t)
        if reading is None:
            return None
        began, kept = self._rates.get(t.node_id, (t.began_at, deque(maxlen=RATE_SAMPLES)))
        if began != t.began_at:
            kept = deque(maxlen=RATE_SAMPLES)
        if not kept or kept[-1].at != reading.at:
            kept.append(reading)
        self._rates[t.node_id] = (t.began_at, kept)
        rates = window_rates(list(kept))
        if rates and min(rates) <= 0:
            # The log did not grow over a window: no rate to divide what is left by.
            return None
        if rates:
            return RedoRate(reading.source, reading.left_mb, rates[-1], min(rates), max(rates),
                            len(rates) + 1)
        # One reading: the average since the initialisation began when that was seen, else
        # the rate between the source's last two reports (a weak basis).
        if reading.since is not None and reading.at > reading.since and reading.done_mb > 0:
            average = reading.done_mb / (reading.at - reading.since)
            return RedoRate(reading.source, reading.left_mb, average, average, average, 2)
        if reading.mb_per_s and reading.mb_per_s > 0:
            rate = reading.mb_per_s
            return RedoRate(reading.source, reading.left_mb, rate, rate, rate, 1)
        return None

    def references(self, snap: ClusterSnapshot, node_id: int,
                   used: dict[int, int]) -> tuple[RestartReference, ...]:
        """The completed restarts in ``restart_info``: this node's first, then its node
        group's, then the others', each scaled by DataMemory in use now over then."""
        group = group_of(snap, node_id)
        partners = [n for n in used if n != node_id and group is not None
                    and group_of(snap, n) == group]
        now_used = max((used[n] for n in partners), default=used.get(node_id))

        def rank(kept: KeptRestart) -> tuple[int, float]:
            n = kept.info.node_id
            same = 0 if n == node_id else 1 if group_of(snap, n) == group else 2
            return same, -kept.seen_at

        out = []
        for kept in sorted(self._restarts.values(), key=rank):
            n = kept.info.node_id
            then = kept.data_used
            if n != node_id and group_of(snap, n) != group:
                then = used.get(n, then)
            scale = now_used / then if now_used and then else None
            out.append(RestartReference(n, restart_phases(kept.info), scale))
        return tuple(out)
