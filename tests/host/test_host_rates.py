"""Rate formulas of ndbtop.host.rates, checked against hand-computed values."""

from __future__ import annotations

import dataclasses
import math

import pytest

from ndbtop.host.rates import (
    DiskRates,
    counter_delta,
    cpu_percent,
    disk_rates,
    thread_rates,
)
from ndbtop.host.samples import CpuTimes, DiskCounters, ThreadSample

BASE = DiskCounters(
    name="sda",
    reads=1_000,
    writes=2_000,
    read_bytes=10_000_000,
    write_bytes=20_000_000,
    read_time_ms=5_000,
    write_time_ms=9_000,
    busy_time_ms=40_000,
    read_merged=10,
    write_merged=20,
)


def after(**delta: int) -> DiskCounters:
    """BASE with each named counter increased by the given amount."""
    fields = {f.name: getattr(BASE, f.name) for f in dataclasses.fields(BASE)}
    for key, value in delta.items():
        fields[key] += value
    return DiskCounters(**fields)


def approx(value: float | None) -> object:
    return None if value is None else pytest.approx(value)


# (label, deltas, elapsed seconds, expected DiskRates fields)
DISK_CASES = [
    (
        "S1 redo init: 50 writes, 1024 kB, 1800 ms write time, 1000 ms busy in 1 s",
        {"writes": 50, "write_bytes": 1024 * 1024, "write_time_ms": 1_800, "busy_time_ms": 1_000},
        1.0,
        {
            "r_s": 0.0,
            "w_s": 50.0,
            "rkb_s": 0.0,
            "wkb_s": 1024.0,
            "rareq_kb": None,
            "wareq_kb": 20.48,
            "r_await_ms": None,
            "w_await_ms": 36.0,
            "await_ms": 36.0,
            "util_pct": 100.0,
            "rrqm_s": 0.0,
            "wrqm_s": 0.0,
        },
    ),
    (
        "S1 over 2 s: rates halve, sizes and await do not",
        {
            "writes": 100,
            "write_bytes": 2 * 1024 * 1024,
            "write_time_ms": 3_600,
            "busy_time_ms": 2_000,
        },
        2.0,
        {
            "w_s": 50.0,
            "wkb_s": 1024.0,
            "wareq_kb": 20.48,
            "w_await_ms": 36.0,
            "await_ms": 36.0,
            "util_pct": 100.0,
        },
    ),
    (
        "mixed reads and writes: await weights by request count",
        {
            "reads": 30,
            "read_bytes": 30 * 4096,
            "read_time_ms": 60,
            "writes": 10,
            "write_bytes": 10 * 65536,
            "write_time_ms": 200,
            "busy_time_ms": 250,
            "read_merged": 6,
            "write_merged": 4,
        },
        0.5,
        {
            "r_s": 60.0,
            "w_s": 20.0,
            "rkb_s": 240.0,
            "wkb_s": 1280.0,
            "rareq_kb": 4.0,
            "wareq_kb": 64.0,
            "r_await_ms": 2.0,
            "w_await_ms": 20.0,
            "await_ms": 6.5,
            "util_pct": 50.0,
            "rrqm_s": 12.0,
            "wrqm_s": 8.0,
        },
    ),
    (
        "busy time a little over the interval is capped at 100 %",
        {"writes": 1, "write_bytes": 512, "write_time_ms": 1, "busy_time_ms": 1_020},
        1.0,
        {"util_pct": 100.0, "wareq_kb": 0.5},
    ),
    (
        "idle device: zero rates, unknown sizes and await",
        {},
        1.0,
        {
            "r_s": 0.0,
            "w_s": 0.0,
            "rkb_s": 0.0,
            "wkb_s": 0.0,
            "rareq_kb": None,
            "wareq_kb": None,
            "r_await_ms": None,
            "w_await_ms": None,
            "await_ms": None,
            "util_pct": 0.0,
        },
    ),
]


@pytest.mark.parametrize(
    ("deltas", "elapsed", "expected"),
    [c[1:] for c in DISK_CASES],
    ids=[c[0] for c in DISK_CASES],
)
def test_disk_rates(deltas: dict[str, int], elapsed: float, expected: dict[str, float]) -> None:
    rates = disk_rates(BASE, after(**deltas), elapsed)
    assert rates.name == "sda"
    for field, value in expected.items():
        assert getattr(rates, field) == approx(value), field


def test_s1_figures_read_as_the_field_report() -> None:
    """About 50 w/s, 1,000-1,050 kB/s, about 20 kB per write, await 35-38 ms, 100 %."""
    rates = disk_rates(
        BASE,
        after(writes=51, write_bytes=1_040 * 1024, write_time_ms=1_887, busy_time_ms=1_000),
        1.0,
    )
    assert rates.w_s == 51
    assert 1_000 <= rates.wkb_s <= 1_050
    assert 19.5 <= rates.wareq_kb <= 21
    assert 35 <= rates.await_ms <= 38
    assert rates.util_pct == 100


@pytest.mark.parametrize("elapsed", [0.0, -0.5, None])
def test_disk_rates_without_elapsed_time_are_unknown(elapsed: float | None) -> None:
    assert disk_rates(BASE, after(writes=5, busy_time_ms=10), elapsed) == DiskRates("sda")


def test_new_device_has_unknown_rates() -> None:
    assert disk_rates(None, BASE, 1.0) == DiskRates("sda")


def test_counter_reset_makes_dependent_rates_unknown() -> None:
    """A device re-attached: every counter restarts near zero."""
    reset = DiskCounters("sda", 3, 4, 4096, 8192, 1, 2, 5, 0, 0)
    rates = disk_rates(BASE, reset, 1.0)
    assert rates == DiskRates("sda")


def test_wrapped_time_counter_only_hides_the_figures_built_on_it() -> None:
    """The 32-bit millisecond write time wraps; counts and bytes are still good."""
    cur = after(writes=50, write_bytes=1024 * 1024, busy_time_ms=1_000)
    wrapped = DiskCounters(
        **{
            **{f.name: getattr(cur, f.name) for f in dataclasses.fields(cur)},
            "write_time_ms": 17,
        }
    )
    rates = disk_rates(BASE, wrapped, 1.0)
    assert rates.w_s == 50
    assert rates.wkb_s == 1024
    assert rates.wareq_kb == pytest.approx(20.48)
    assert rates.util_pct == 100
    assert rates.w_await_ms is None
    assert rates.await_ms is None
    assert rates.r_await_ms is None  # no reads in the interval


def test_reset_never_gives_negative_or_huge_rates() -> None:
    for field in (
        "reads",
        "writes",
        "read_bytes",
        "write_bytes",
        "read_time_ms",
        "write_time_ms",
        "busy_time_ms",
    ):
        values = {f.name: getattr(BASE, f.name) for f in dataclasses.fields(BASE)}
        values[field] = 0
        rates = disk_rates(BASE, DiskCounters(**values), 1.0)
        for name in (f.name for f in dataclasses.fields(DiskRates)):
            value = getattr(rates, name)
            if isinstance(value, float):
                assert 0 <= value <= 100, (field, name, value)


def test_missing_platform_fields_give_unknown_rates() -> None:
    prev = DiskCounters("disk0", 0, 0, 0, 0, 0, 0)
    cur = DiskCounters("disk0", 10, 0, 40960, 0, 30, 0)
    rates = disk_rates(prev, cur, 1.0)
    assert rates.r_s == 10
    assert rates.rareq_kb == 4
    assert rates.r_await_ms == 3
    assert rates.util_pct is None
    assert rates.rrqm_s is None


@pytest.mark.parametrize(
    ("prev", "cur", "expected"),
    [(5, 8, 3), (5, 5, 0), (8, 5, None), (None, 5, None), (5, None, None), (1.5, 2.0, 0.5)],
)
def test_counter_delta(prev: float | None, cur: float | None, expected: float | None) -> None:
    assert counter_delta(prev, cur) == expected


CPU_PREV = CpuTimes(
    user=100,
    nice=10,
    system=50,
    idle=800,
    iowait=50,
    irq=5,
    softirq=5,
    steal=1,
    guest=20,
    guest_nice=2,
)

# (label, current CPU times, expected percentages)
CPU_CASES = [
    (
        "S1: iowait 18.5 % of a 100 s total",
        CpuTimes(
            user=105,
            nice=10,
            system=52,
            idle=873.5,
            iowait=68.5,
            irq=5.5,
            softirq=5.5,
            steal=1,
            guest=20,
            guest_nice=2,
        ),
        {"user": 5.0, "nice": 0.0, "system": 3.0, "iowait": 18.5, "steal": 0.0, "idle": 73.5},
    ),
    (
        "guest time is taken out of user and nice",
        CpuTimes(
            user=110,
            nice=12,
            system=50,
            idle=886,
            iowait=50,
            irq=5,
            softirq=5,
            steal=3,
            guest=24,
            guest_nice=3,
        ),
        {"user": 6.0, "nice": 1.0, "system": 0.0, "iowait": 0.0, "steal": 2.0, "idle": 86.0},
    ),
    (
        "iowait going back (proc(5)) is unknown and left out of the total",
        CpuTimes(
            user=150,
            nice=10,
            system=100,
            idle=900,
            iowait=49,
            irq=5,
            softirq=5,
            steal=1,
            guest=20,
            guest_nice=2,
        ),
        {"user": 25.0, "system": 25.0, "idle": 50.0, "iowait": None},
    ),
]


@pytest.mark.parametrize(
    ("cur", "expected"), [c[1:] for c in CPU_CASES], ids=[c[0] for c in CPU_CASES]
)
def test_cpu_percent(cur: CpuTimes, expected: dict[str, float | None]) -> None:
    pct = cpu_percent(CPU_PREV, cur)
    assert pct is not None
    for field, value in expected.items():
        assert getattr(pct, field) == approx(value), field


def test_cpu_percent_sums_to_100() -> None:
    pct = cpu_percent(CPU_PREV, CPU_CASES[0][1])
    assert pct is not None
    parts = (pct.user, pct.nice, pct.system, pct.iowait, pct.steal, pct.idle)
    assert math.fsum(p for p in parts if p is not None) == pytest.approx(100.0)


def test_cpu_percent_never_exceeds_100_through_rounding() -> None:
    """psutil's two-decimal seconds make float deltas like 0.00999999999999801."""
    prev = CpuTimes(user=108.32, system=35.11, idle=1869.68, iowait=5.85, softirq=0.95, steal=3.28)
    cur = CpuTimes(user=108.32, system=35.12, idle=1869.68, iowait=5.85, softirq=0.95, steal=3.28)
    pct = cpu_percent(prev, cur)
    assert pct is not None
    assert pct.system == 100.0
    assert (pct.user, pct.idle, pct.iowait) == (0.0, 0.0, 0.0)


def test_cpu_total_counts_guest_time_once() -> None:
    assert CPU_PREV.total == 100 + 10 + 50 + 800 + 50 + 5 + 5 + 1


def test_cpu_percent_same_reading_is_unknown() -> None:
    assert cpu_percent(CPU_PREV, CPU_PREV) is None


def test_cpu_percent_after_reboot_is_unknown() -> None:
    assert cpu_percent(CPU_PREV, CpuTimes(user=1, idle=10)) is None


def thread(user: float, system: float, tid: int = 4242) -> ThreadSample:
    return ThreadSample(
        pid=4200,
        node_id=10,
        process_name="ndbmtd",
        tid=tid,
        thread_name="ldm",
        user_s=user,
        system_s=system,
    )


# (label, prev, cur, elapsed, expected user/system/cpu percent)
THREAD_CASES = [
    (
        "hot ldm thread: 0.9 s user + 0.1 s system in 1 s",
        thread(10, 2),
        thread(10.9, 2.1),
        1.0,
        (90.0, 10.0, 100.0),
    ),
    ("half busy over 2 s", thread(10, 2), thread(10.8, 2.2), 2.0, (40.0, 10.0, 50.0)),
    ("idle thread", thread(10, 2), thread(10, 2), 1.0, (0.0, 0.0, 0.0)),
    ("new thread", None, thread(1, 1), 1.0, (None, None, None)),
    ("zero interval", thread(10, 2), thread(11, 2), 0.0, (None, None, None)),
    ("tid reused: counters went back", thread(10, 2), thread(0.2, 0.1), 1.0, (None, None, None)),
]


@pytest.mark.parametrize(
    ("prev", "cur", "elapsed", "expected"),
    [c[1:] for c in THREAD_CASES],
    ids=[c[0] for c in THREAD_CASES],
)
def test_thread_rates(
    prev: ThreadSample | None,
    cur: ThreadSample,
    elapsed: float,
    expected: tuple[float | None, float | None, float | None],
) -> None:
    rates = thread_rates(prev, cur, elapsed)
    assert (rates.pid, rates.node_id, rates.tid, rates.thread_name) == (4200, 10, 4242, "ldm")
    assert (rates.user_pct, rates.system_pct, rates.cpu_pct) == tuple(approx(e) for e in expected)
