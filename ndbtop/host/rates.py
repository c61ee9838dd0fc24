"""Rates between two host samples, as ``iostat -x`` and ``top -H`` show them.

Every function is pure: it takes the previous and the current counters (and the
elapsed time between them) and returns a frozen value.

Unknown is ``None``, never 0:

- elapsed time zero or negative (same sample twice, clock trouble): every rate is ``None``;
- a counter that went backwards is a reset or a wrap (a device re-attached, a reused
  thread id, the kernel's 32-bit millisecond fields wrapping after 49.7 days). Its
  delta is unknown, so every rate built from it is ``None`` for that interval.
  Counting from zero instead would report everything since the reset as one interval's
  activity, and would turn a wrap into an absurd spike;
- no request in the interval: the average size and the await are ``None``
  (there is nothing to average), while r/s, w/s and the throughput are 0.

kB is 1024 bytes, as in iostat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ndbtop.compat import SLOTS
from ndbtop.host.samples import CpuTimes, DiskCounters, ThreadSample

KB = 1024

_CPU_TOTAL_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


@dataclass(frozen=True, **SLOTS)
class DiskRates:
    """``iostat -x`` figures of one device over one interval.

    ``rareq_kb``/``wareq_kb`` are the average request sizes (iostat ``rareq-sz``,
    ``wareq-sz``); ``await_ms`` is the average time a request spent queued and in
    service, reads and writes together; ``util_pct`` is the share of the interval the
    device was busy, capped at 100 like iostat does (the kernel's busy time and our
    clock are read at slightly different instants).
    """

    name: str
    r_s: float | None = None
    w_s: float | None = None
    rkb_s: float | None = None
    wkb_s: float | None = None
    rrqm_s: float | None = None
    wrqm_s: float | None = None
    rareq_kb: float | None = None
    wareq_kb: float | None = None
    r_await_ms: float | None = None
    w_await_ms: float | None = None
    await_ms: float | None = None
    util_pct: float | None = None


@dataclass(frozen=True, **SLOTS)
class CpuPercent:
    """Host CPU use over one interval, in percent of all CPU time (``iostat`` avg-cpu).

    ``user`` excludes guest time and ``nice`` excludes guest_nice time, as iostat does;
    ``system`` includes hard and soft interrupt time.
    """

    user: float | None
    nice: float | None
    system: float | None
    iowait: float | None
    steal: float | None
    idle: float | None


@dataclass(frozen=True, **SLOTS)
class ThreadRates:
    """CPU use of one data node thread over one interval, in percent of one CPU."""

    pid: int
    node_id: int | None
    process_name: str
    tid: int
    thread_name: str | None
    user_pct: float | None = None
    system_pct: float | None = None
    cpu_pct: float | None = None


def counter_delta(prev: float | None, cur: float | None) -> float | None:
    """``cur - prev`` for a cumulative counter; ``None`` if either is unknown or it went back."""
    if prev is None or cur is None or cur < prev:
        return None
    return cur - prev


def _per_s(delta: float | None, elapsed_s: float) -> float | None:
    return None if delta is None else delta / elapsed_s


def _ratio(num: float | None, den: float | None) -> float | None:
    if num is None or den is None or den == 0:
        return None
    return num / den


def _sum(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


def disk_rates(prev: DiskCounters | None, cur: DiskCounters, elapsed_s: float | None) -> DiskRates:
    """The iostat -x figures of ``cur``'s device between ``prev`` and ``cur``.

    ``prev`` is ``None`` when the device is new in this interval: every figure is then
    ``None``. Formulas: r/s = Δreads/t; rkB/s = Δread_bytes/1024/t;
    rareq-sz = Δread_bytes/1024/Δreads; r_await = Δread_time/Δreads;
    await = Δ(read_time+write_time)/Δ(reads+writes); %util = Δbusy_time/(1000 t) * 100.
    """
    if prev is None or elapsed_s is None or elapsed_s <= 0:
        return DiskRates(cur.name)
    reads = counter_delta(prev.reads, cur.reads)
    writes = counter_delta(prev.writes, cur.writes)
    rbytes = counter_delta(prev.read_bytes, cur.read_bytes)
    wbytes = counter_delta(prev.write_bytes, cur.write_bytes)
    rtime = counter_delta(prev.read_time_ms, cur.read_time_ms)
    wtime = counter_delta(prev.write_time_ms, cur.write_time_ms)
    busy = counter_delta(prev.busy_time_ms, cur.busy_time_ms)
    rkb = None if rbytes is None else rbytes / KB
    wkb = None if wbytes is None else wbytes / KB
    util = None if busy is None else min(100.0, busy / (elapsed_s * 1000.0) * 100.0)
    return DiskRates(
        name=cur.name,
        r_s=_per_s(reads, elapsed_s),
        w_s=_per_s(writes, elapsed_s),
        rkb_s=_per_s(rkb, elapsed_s),
        wkb_s=_per_s(wkb, elapsed_s),
        rrqm_s=_per_s(counter_delta(prev.read_merged, cur.read_merged), elapsed_s),
        wrqm_s=_per_s(counter_delta(prev.write_merged, cur.write_merged), elapsed_s),
        rareq_kb=_ratio(rkb, reads),
        wareq_kb=_ratio(wkb, writes),
        r_await_ms=_ratio(rtime, reads),
        w_await_ms=_ratio(wtime, writes),
        await_ms=_ratio(_sum(rtime, wtime), _sum(reads, writes)),
        util_pct=util,
    )


def cpu_percent(prev: CpuTimes, cur: CpuTimes) -> CpuPercent | None:
    """Host CPU percentages between two readings of the CPU times.

    The denominator is the growth of all CPU time (the fields of :attr:`CpuTimes.total`),
    as iostat computes it, so the figures do not depend on the sampling clock. A single
    field that went back is ``None`` and left out of the denominator: proc(5) warns that
    iowait can decrease. ``None`` when nothing grew (same reading twice, or readings
    from different boots).
    """
    d = {f: counter_delta(getattr(prev, f), getattr(cur, f)) for f in _CPU_TOTAL_FIELDS}
    total = math.fsum(v for v in d.values() if v is not None)
    if total <= 0:
        return None

    def pct(delta: float | None) -> float | None:
        return None if delta is None else min(100.0, 100.0 * delta / total)

    user = _sub_guest(d["user"], counter_delta(prev.guest, cur.guest))
    nice = _sub_guest(d["nice"], counter_delta(prev.guest_nice, cur.guest_nice))
    return CpuPercent(
        user=pct(user),
        nice=pct(nice),
        system=pct(_sum(_sum(d["system"], d["irq"]), d["softirq"])),
        iowait=pct(d["iowait"]),
        steal=pct(d["steal"]),
        idle=pct(d["idle"]),
    )


def _sub_guest(delta: float | None, guest: float | None) -> float | None:
    if delta is None or guest is None:
        return None
    return max(0.0, delta - guest)


def thread_rates(
    prev: ThreadSample | None, cur: ThreadSample, elapsed_s: float | None
) -> ThreadRates:
    """CPU percent of one thread: Δ(cpu seconds) / elapsed * 100.

    ``prev`` is ``None`` for a thread first seen in this interval. The kernel counts
    thread CPU in clock ticks (usually 10 ms), so short intervals are coarse.
    """
    base = ThreadRates(cur.pid, cur.node_id, cur.process_name, cur.tid, cur.thread_name)
    if prev is None or elapsed_s is None or elapsed_s <= 0:
        return base
    user = counter_delta(prev.user_s, cur.user_s)
    system = counter_delta(prev.system_s, cur.system_s)
    user_pct = _per_s(user, elapsed_s)
    system_pct = _per_s(system, elapsed_s)
    return ThreadRates(
        pid=cur.pid,
        node_id=cur.node_id,
        process_name=cur.process_name,
        tid=cur.tid,
        thread_name=cur.thread_name,
        user_pct=None if user_pct is None else 100.0 * user_pct,
        system_pct=None if system_pct is None else 100.0 * system_pct,
        cpu_pct=None if user_pct is None or system_pct is None else 100.0 * (user_pct + system_pct),
    )
