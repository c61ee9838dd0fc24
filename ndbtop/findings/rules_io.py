"""Rules on the redo log, the links, the disks and the threads (diagnostics.md §b, §d; the
field scenarios S1, S4, S5) and on starts that run long."""

from __future__ import annotations

from collections.abc import Iterator

from ndbtop.model.derive import REDO_TAIL_PROBLEM_BYTES
from ndbtop.model.findings import Evidence, Finding, Threshold
from ndbtop.model.findings import FindingSeverity as Severity
from ndbtop.model.freshness import freshness
from ndbtop.model.history import phase_normal
from ndbtop.model.links import link_states
from ndbtop.model.ndbinfo import ThreadCpu
from ndbtop.model.phases import phase_name
from ndbtop.model.snapshot import ClusterSnapshot

MIB = 1 << 20
TAIL_PROBLEM_MB = REDO_TAIL_PROBLEM_BYTES // MIB
"""Free MB in a redo log part under which the part refuses writes with 410
(DblqhMain.cpp: ``c_free_mb_tail_problem_limit = 4``)."""
REDO_WARN_PCT, REDO_CRIT_PCT = 80.0, 95.0
REDO_ETA_WARN_S, REDO_ETA_CRIT_S = 600.0, 120.0
"""A part that will have 4 MB left within this many seconds at its measured rate is a
warning, then critical (ndbtop's judgement)."""
RATE_MIN_S = 10.0
"""Readings of ``logspaces`` closer than this that show no change give no fill rate (the
used figure moves in steps): the rate is then unknown, not zero."""
REDO_BUFFER_PCT = 80.0
LOW_HIT_PCT, LOW_HIT_MIN_READS = 95.0, 50.0
HOT_PCT, PEERS_PCT = 90.0, 50.0
DISK_BOUND_UTIL, SMALL_WRITE_KB = 95.0, 64.0


def reading_age(snap: ClusterSnapshot, panel: str) -> float | None:
    """Seconds since ``panel`` was last read: panels read in rotation are older than the
    sample, whose ``read_at`` is on its own clock. A growth counted between two readings is
    judged only while the later reading is no older than the window it was counted over."""
    ni = snap.ndbinfo
    sample_age = freshness(snap, "ndbinfo").age
    read_at = ni.panel_read_at(panel) if ni is not None else None
    if read_at is None or ni is None:
        return sample_age
    return max(ni.taken_at - read_at, 0.0) + (sample_age or 0.0)


def redo_part_filling(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``redo_part_filling``: a redo log part's used share past ndbtop's warning levels, or
    filling fast enough to have 4 MB left (the server then refuses writes with 410) within
    :data:`REDO_ETA_WARN_S` at the rate measured between the last two readings."""
    ni = snap.live_ndbinfo()
    if ni is None:
        return
    age = freshness(snap, "ndbinfo").age
    redo = [s for s in ni.log_spaces if s.log_type == "REDO" and s.total > 0]
    node_redo = {d.node_id: d.redo_last_60sec for d in ni.disk_write_speed}
    soon = {(r.node_id, r.log_part): r for r in snap.redo_fill_rates
            if r.to_410_s is not None and r.to_410_s <= REDO_ETA_WARN_S}
    for s in redo:
        pct = s.used_pct or 0.0
        free_mb = (s.total - s.used) / MIB
        near = soon.get((s.node_id, s.log_part)) if soon else None
        if pct < REDO_WARN_PCT and free_mb > TAIL_PROBLEM_MB and near is None:
            continue
        if near is None:
            near = next((r for r in snap.redo_fill_rates
                         if (r.node_id, r.log_part) == (s.node_id, s.log_part)), None)
        filling = near.bytes_per_s if near is not None else None
        eta = near.to_410_s if near is not None else None
        unknown = near is None or near.seconds <= 0 or (
            not near.bytes_per_s and near.seconds < RATE_MIN_S)
        worst = speed = None
        if unknown:
            # No fill rate between the readings: the worst case is the node's whole redo
            # write rate of the last minute going into this part (the server's measure).
            speed = node_redo.get(s.node_id)
            if speed is not None:
                filling, worst = float(speed), "at most "
                eta = (max(s.total - s.used - REDO_TAIL_PROBLEM_BYTES, 0) / filling
                       if filling > 0 else None)
        others = sorted(round(o.used_pct or 0.0) for o in redo
                        if o.node_id == s.node_id and o is not s)
        skew = ("" if not others else
                f"; the node's other parts are at {others[0]}%" if others[0] == others[-1]
                else f"; the node's other parts are at {others[0]}-{others[-1]}%")
        tail_problem = free_mb <= TAIL_PROBLEM_MB
        critical = (pct >= REDO_CRIT_PCT or tail_problem
                    or (eta is not None and eta <= REDO_ETA_CRIT_S)
                    or (unknown and speed is None))
        when = ""
        if eta is not None and filling:
            when = (f", in {eta:,.0f} s at the soonest (filling at most at the node's redo "
                    f"rate, {filling / MIB:,.1f} MB/s)" if worst
                    else f", in {eta:,.0f} s at {filling / MIB:,.1f} MB/s")
        if unknown and speed is None:
            when = "; fill rate unknown (no two readings apart): judged on the worst case"
        # Past the tail-problem limit the server refuses writes already: no "in 0 s".
        consequence = (f"writes fail with 410 now (under {TAIL_PROBLEM_MB} MB free)"
                       if tail_problem else f"under {TAIL_PROBLEM_MB} MB writes fail with "
                       f"410{when}")
        evidence = [Evidence(f"redo part {s.log_part}",
                             f"{s.used} of {s.total} bytes ({pct:.1f}%)", "ndbinfo.logspaces",
                             age)]
        if filling:
            evidence.append(Evidence("filling", f"{worst or ''}{filling / MIB:,.2f} MB/s",
                                     "ndbinfo.disk_write_speed_aggregate_node, the node's redo "
                                     "writes of the last 60 s" if worst else
                                     "ndbinfo.logspaces, two readings", age))
        yield Finding(
            "redo_part_filling", Severity.CRITICAL if critical else Severity.WARNING,
            f"node {s.node_id} redo log part {s.log_part} {pct:.0f}% used, {free_mb:,.0f} MB "
            f"free: {consequence}{skew}",
            tuple(evidence),
            Threshold(f"{REDO_WARN_PCT:.0f}% / {REDO_CRIT_PCT:.0f}% used, or 410 within "
                      f"{REDO_ETA_WARN_S / 60:.0f} / {REDO_ETA_CRIT_S / 60:.0f} min (410 at "
                      f"{TAIL_PROBLEM_MB} MB free: the server's)", "ndbtop",
                      reference="DblqhMain.cpp c_free_mb_tail_problem_limit; Dblqh.hpp "
                      "ZTAIL_PROBLEM_IN_LOG_ERROR"),
            "the tail moves only when an LCP completes: check that LCPs complete (Events), "
            "and raise NoOfFragmentLogFiles or FragmentLogFileSize (an initial node restart "
            "per node applies them)",
            nodes=(s.node_id,), parts=(s.log_part,), key=f"{s.node_id}:{s.log_part}")


def redo_buffer_full(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``redo_buffer_full``: a REDO log buffer more than 80% used (1221 when it is full)."""
    ni = snap.live_ndbinfo()
    if ni is None:
        return
    age = freshness(snap, "ndbinfo").age
    for b in ni.log_buffers:
        pct = b.used_pct
        if b.log_type != "REDO" or pct is None or pct < REDO_BUFFER_PCT:
            continue
        yield Finding(
            "redo_buffer_full", Severity.WARNING,
            f"node {b.node_id} redo buffer of part {b.log_part} {pct:.0f}% used: full, "
            "writes fail with 1221",
            (Evidence("redo buffer", f"{b.used} of {b.total} bytes ({pct:.1f}%)",
                      "ndbinfo.logbuffers", age),),
            Threshold(f"{REDO_BUFFER_PCT:.0f}%", "ndbtop", "RedoBuffer", None,
                      "diagnostics.md §b (1221 under 10 free pages)"),
            "the disk does not keep up with the redo writes: raise RedoBuffer, or look at "
            "the disk's await and %util",
            nodes=(b.node_id,), parts=(b.log_part,), key=f"{b.node_id}:{b.log_part}")


def redo_io_lag(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``redo_io_lag``: ``slowdowns_due_to_io_lag`` grew between the last two readings,
    the later one no older than that window: the redo log's writes lag behind the disk
    (past RedoOverCommitLimit, counted RedoOverCommitCounter times, writes fail with
    1234)."""
    age = reading_age(snap, "disk_write_speed")
    rising = [r for r in snap.io_lag_rates if r.slowed_s and r.seconds > 0
              and (age is None or age <= r.seconds)]
    if not rising:
        return
    for r in rising:
        slowed = r.slowed_s or 0.0
        yield Finding(
            "redo_io_lag", Severity.WARNING,
            # The counter sums the node's LDM threads: more seconds than went by is real.
            f"node {r.node_id} redo writes lag the disk: its LDM threads slowed down "
            f"{slowed:,.0f} s in the last {r.seconds:,.0f} s; a lag past RedoOverCommitLimit, "
            "RedoOverCommitCounter times in a row, fails writes with 1234",
            (Evidence("slowdowns_due_to_io_lag", f"+{slowed:,.0f} s in {r.seconds:,.0f} s",
                      "ndbinfo.disk_write_speed_aggregate", age),),
            Threshold("any increase", "ndbtop", "RedoOverCommitLimit / RedoOverCommitCounter",
                      None, "diagnostics.md §b (1234 after about 20 s x 3 of lag by default)"),
            "look at the redo disk's await and %util (Disk view) and at what else writes to "
            "it; a faster disk or a separate one for the redo log helps",
            nodes=(r.node_id,))


def send_buffer_overload(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``send_buffer_overload``: links overloaded (1218) or slowed down, per data node: at
    the reading, or in between (``overload_count`` / ``slowdown_count`` grew).

    The links are read in rotation with other tables: a growth is judged only while the
    reading it ends with is no older than the window it was counted over, and the evidence
    gives the reading's own age."""
    ni = snap.live_ndbinfo()
    if ni is None:
        return
    age = reading_age(snap, "links")
    rising = {r.node_id: r for r in snap.link_rates
              if r.rising and (age is None or age <= r.seconds)}
    if not (rising or any(n.overloaded or n.slowdown for n in ni.links)):
        return
    for state in link_states(snap):
        grew = rising.get(state.node_id)
        grown = grew.rising if grew is not None else ()
        over = tuple(sorted({*state.overloaded, *(r for r, o, _ in grown if o)}))
        slow = tuple(sorted({*state.slowdown, *(r for r, _, s in grown if s)} - set(over)))
        if not (over or slow):
            continue
        peers = ", ".join(map(str, over or slow))
        evidence = [Evidence("transporters", f"overloaded {list(state.overloaded)}, slowdown "
                             f"{list(state.slowdown)}", "ndbinfo.transporters", age)]
        if grew is not None:
            evidence.append(Evidence(
                "counts grown", ", ".join(f"to node {r}: overload_count +{o}, slowdown_count "
                                          f"+{s}" for r, o, s in grown)
                + f" in {grew.seconds:,.0f} s", "ndbinfo.transporters", age))
        yield Finding(
            "send_buffer_overload", Severity.WARNING if over else Severity.INFO,
            f"node {state.node_id}: link to node {peers} "
            + ("overloaded: key operations fail with 1218" if over else
               "slowed down: scans get smaller batches"),
            tuple(evidence),
            Threshold("80% of SendBufferMemory (slowdown at 60% of that)", "server",
                      "SendBufferMemory / OverloadLimit", None,
                      "TCP_Transporter.cpp overload_limit"),
            "raise SendBufferMemory (or TotalSendBufferMemory), or lower the load on "
            "that link",
            nodes=(state.node_id,),
            links=tuple((state.node_id, p) for p in (over or slow)))


def disk_page_buffer_low_hit(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``disk_page_buffer_low_hit``: disk data pages read from disk too often (S4)."""
    for h in snap.hit_ratios:
        pct = h.interval_pct
        if pct is None or (h.requests_per_s or 0.0) < LOW_HIT_MIN_READS or pct >= LOW_HIT_PCT:
            continue
        yield Finding(
            "disk_page_buffer_low_hit", Severity.WARNING,
            f"node {h.node_id} disk page buffer hit ratio {pct:.1f}% over the last interval",
            (Evidence("hit ratio", f"{pct:.1f}% at {h.requests_per_s:,.0f} requests/s "
                      f"(since start {h.since_start_pct or 0:.1f}%)",
                      "ndbinfo.diskpagebuffer", freshness(snap, "ndbinfo").age),),
            Threshold(f"{LOW_HIT_PCT:.0f}% with at least {LOW_HIT_MIN_READS:.0f} requests/s",
                      "ndbtop", "DiskPageBufferMemory"),
            "raise DiskPageBufferMemory (a rolling restart applies it)",
            nodes=(h.node_id,))


_HOT: list[tuple[tuple[ThreadCpu, ...], frozenset[int]]] = []
"""The nodes with a hot thread, by the very tuple of threads they were found in: a large
cluster has thousands of threads, re-read once in thirty refreshes unless shown."""


def _hot_nodes(threads: tuple[ThreadCpu, ...]) -> frozenset[int]:
    if _HOT and _HOT[0][0] is threads:
        return _HOT[0][1]
    hot = frozenset(t.node_id for t in threads if t.cpu_pct >= HOT_PCT)
    _HOT[:] = [(threads, hot)]
    return hot


def thread_saturated(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``thread_saturated``: one thread near 100% while the node's threads of its kind are
    not (S5). Only a node's hottest thread of a kind can be one: with two past
    :data:`HOT_PCT` its peers are not idle."""
    ni = snap.live_ndbinfo()
    if ni is None:
        return
    hot = _hot_nodes(ni.threads)
    if not hot:
        return
    kinds: dict[tuple[int, str], list[tuple[float, int]]] = {}
    for t in ni.threads:
        if t.node_id in hot:
            kinds.setdefault((t.node_id, t.thread_name), []).append((t.cpu_pct, t.thr_no))
    for (node, kind), threads in sorted(kinds.items()):
        if len(threads) < 2:
            continue
        hottest = max(threads)
        if hottest[0] < HOT_PCT:
            continue
        peers = max(c for c, n in threads if n != hottest[1])
        if peers > PEERS_PCT:
            continue
        cpu, thr_no = hottest
        yield Finding(
            "thread_saturated", Severity.WARNING,
            f"node {node} {kind} thread {thr_no} at {cpu:.0f}% while its "
            f"{len(threads) - 1} peers are at most {peers:.0f}%",
            (Evidence(f"thread {thr_no} ({kind})", f"{cpu:.0f}%", "ndbinfo.cpustat",
                      freshness(snap, "ndbinfo").age),),
            Threshold(f"{HOT_PCT:.0f}% with peers under {PEERS_PCT:.0f}%", "ndbtop"),
            "one LDM thread doing the work of all: look for a hot table or partition "
            "(a skewed key); more threads do not help",
            nodes=(node,), key=f"{node}:{thr_no}")


def redo_init_disk_bound(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``redo_init_disk_bound``: redo log initialisation with the host's disk at ~100%
    util and small synced writes (S1)."""
    for t in snap.timelines:
        if not t.active or t.redo is None or t.redo.completed:
            continue
        host = snap.host_of(t.node_id)
        disk = host.busiest_disk() if host is not None else None
        if disk is None or (disk.util_pct or 0.0) < DISK_BOUND_UTIL or \
                disk.wareq_kb is None or disk.wareq_kb > SMALL_WRITE_KB:
            continue
        yield Finding(
            "redo_init_disk_bound", Severity.INFO,
            f"node {t.node_id} creates its redo log with {disk.name} at "
            f"{disk.util_pct:.0f}% util and {disk.wareq_kb:.0f} kB writes: the disk sets the "
            "pace",
            (Evidence(f"{disk.name} on {host.host if host else '?'}",
                      f"%util {disk.util_pct:.0f}, w/s {disk.w_s or 0:.0f}, wareq "
                      f"{disk.wareq_kb:.1f} kB, await {disk.await_ms or 0:.1f} ms",
                      f"host ({host.via if host else '?'})",
                      None if host is None else host.age(snap.taken_at)),),
            Threshold(f"{DISK_BOUND_UTIL:.0f}% util with writes under {SMALL_WRITE_KB:.0f} "
                      "kB", "ndbtop"),
            "small synced writes at full utilisation: the initialisation is bound by "
            "the disk's sync latency; a disk with a write cache, or ODirect, shortens it",
            nodes=(t.node_id,))


TIMED_FROM = {"file": "the cluster log file"}
"""How the evidence names where a phase's time counts from (a timeline's ``current_from``)."""


def start_phase_slow(snap: ClusterSnapshot) -> Iterator[Finding]:
    """``start_phase_slow``: a start phase running past twice its normal duration: this
    cluster's last comparable start where there is one, else an assumption said as such
    (:func:`~ndbtop.model.history.phase_normal`)."""
    for t in snap.timelines:
        if not t.active or t.current_phase is None:
            continue
        spent = t.in_phase_s(snap.wall)
        normal = phase_normal(snap.past_starts, t, t.current_phase)
        if spent is None or normal is None or not normal.slow(spent):
            continue
        name = phase_name(t.current_phase, t.redo_phase)
        # A phase ndbtop did not see begin has run at least this long.
        least = "at least " if t.current_from == "first_seen" else ""
        yield Finding(
            "start_phase_slow", Severity.WARNING,
            f"node {t.node_id} has been in phase {t.current_phase} {name} for {least}"
            f"{spent:,.0f} s, more than twice its normal {normal.seconds:,.0f} s "
            f"({normal.basis})",
            (Evidence(f"phase {t.current_phase}", f"{least}{spent:,.0f} s so far",
                      f"start events and get status (timed from "
                      f"{TIMED_FROM.get(t.current_from, t.current_from)})", None),),
            Threshold(f"2 x {normal.seconds:,.0f} s ({normal.basis})", "ndbtop"),
            "look at what the phase waits for: the disk (Disk view) during redo log "
            "creation, other nodes (Events: StartReport) early in a start",
            nodes=(t.node_id,))


def forget() -> None:
    """Drop the result remembered by the identity of its rows."""
    _HOT.clear()
