"""Values derived from two samples: rates, deltas and ratios, as pure functions.

Counters reset when a data node restarts (its ``nodes.uptime`` goes back) and
transporter counters reset when a link connects again;
a delta across a reset is unknown (None), never negative.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from ndbtop.compat import SLOTS, zip_strict
from ndbtop.model.ndbinfo import (
    DiskPageBuffer,
    DiskWriteSpeed,
    LogSpace,
    NodeActivity,
    NodeLinks,
)


def counter_delta(previous: int | float | None, current: int | float | None) -> float | None:
    """``current - previous``, or None when either is missing or the counter went back."""
    if previous is None or current is None or current < previous:
        return None
    return float(current - previous)


def rate(previous: int | float | None, current: int | float | None, seconds: float) -> float | None:
    """Per-second rate of a counter over ``seconds``; None across a reset or a zero interval."""
    delta = counter_delta(previous, current)
    if delta is None or seconds <= 0:
        return None
    return delta / seconds


MIN_REQUESTS = 100
"""Page requests below which a hit ratio says nothing (a cluster without disk data tables
still counts a few requests on the extra PGMAN instance)."""


def hit_ratio(direct_return: float, wait_io: float, min_requests: float = 1) -> float | None:
    """``100 * direct / (direct + wait_io)``: undefined (None) below ``min_requests``
    requests, and never 100% for no requests at all."""
    total = direct_return + wait_io
    if total <= 0 or total < min_requests:
        return None
    return 100.0 * direct_return / total


@dataclass(frozen=True, **SLOTS)
class HitRatio:
    """A node's disk page buffer hit ratio since it started and over the last interval."""

    node_id: int
    since_start_pct: float | None
    interval_pct: float | None
    requests_per_s: float | None


def hit_ratios(
    previous: tuple[DiskPageBuffer, ...] | None,
    current: tuple[DiskPageBuffer, ...],
    seconds: float,
) -> tuple[HitRatio, ...]:
    """Hit ratio per node from two ``diskpagebuffer`` samples ``seconds`` apart."""
    before = {p.node_id: p for p in previous or ()}
    out = []
    for cur in current:
        prev = before.get(cur.node_id)
        interval = requests = None
        if prev is not None:
            d_direct = counter_delta(
                prev.page_requests_direct_return, cur.page_requests_direct_return
            )
            d_wait = counter_delta(prev.page_requests_wait_io, cur.page_requests_wait_io)
            if d_direct is not None and d_wait is not None:
                interval = hit_ratio(d_direct, d_wait)
                requests = (d_direct + d_wait) / seconds if seconds > 0 else None
        since = hit_ratio(cur.page_requests_direct_return, cur.page_requests_wait_io,
                          MIN_REQUESTS)
        out.append(HitRatio(cur.node_id, since, interval, requests))
    return tuple(out)


@dataclass(frozen=True, **SLOTS)
class LinkRate:
    """Bytes per second over all the links of one data node, over ``seconds``."""

    node_id: int
    sent_per_s: float | None
    received_per_s: float | None
    seconds: float = 0.0
    rising: tuple[tuple[int, int, int], ...] = ()
    """(remote node, overloads, slowdowns) of each link whose ``overload_count`` or
    ``slowdown_count`` grew between the two readings."""


def _rising(prev: NodeLinks, cur: NodeLinks) -> tuple[tuple[int, int, int], ...]:
    before = {p[0]: p for p in prev.pressure}
    out = []
    for remote, overloads, slowdowns in cur.pressure:
        _, o0, s0 = before.get(remote, (remote, 0, 0))
        if overloads < o0 or slowdowns < s0:
            continue
        if overloads > o0 or slowdowns > s0:
            out.append((remote, overloads - o0, slowdowns - s0))
    return tuple(out)


def link_rates(
    previous: tuple[NodeLinks, ...] | None,
    current: tuple[NodeLinks, ...],
    seconds: float,
) -> tuple[LinkRate, ...]:
    """Each data node's traffic between two readings of its links. A link that connected
    again in between restarted its counters: when the links or their connect counts changed,
    or a sum went back, the rate is unknown."""
    before = {links.node_id: links for links in previous or ()}
    out = []
    for cur in current:
        prev = before.get(cur.node_id)
        if (
            prev is None
            or prev.connects != cur.connects
            or prev.links != cur.links
            or prev.down != cur.down
        ):
            out.append(LinkRate(cur.node_id, None, None, seconds))
            continue
        out.append(
            LinkRate(
                cur.node_id,
                rate(prev.bytes_sent, cur.bytes_sent, seconds),
                rate(prev.bytes_received, cur.bytes_received, seconds),
                seconds,
                _rising(prev, cur) if cur.pressure else (),
            )
        )
    return tuple(out)


@dataclass(frozen=True, **SLOTS)
class ActivityRate:
    """What one data node did per second between two readings of its counters."""

    node_id: int
    transactions_per_s: float | None
    commits_per_s: float | None
    aborts_per_s: float | None
    reads_per_s: float | None
    writes_per_s: float | None
    scans_per_s: float | None
    operations_per_s: float | None
    seconds: float = 0.0


_ACTIVITY_COUNTERS = attrgetter(
    "transactions", "commits", "aborts", "reads", "writes", "scans", "operations"
)
"""A :class:`NodeActivity`'s counters in order (``astuple`` would deep-copy each field)."""


def activity_rates(
    previous: tuple[NodeActivity, ...] | None,
    current: tuple[NodeActivity, ...],
    seconds: float,
) -> tuple[ActivityRate, ...]:
    """Each data node's rates between two readings; a node that restarted in between
    (its counters went back) has none."""
    before = {a.node_id: a for a in previous or ()}
    out = []
    for cur in current:
        prev = before.get(cur.node_id)
        if prev is None or any(
            now < then
            for now, then in zip_strict(_ACTIVITY_COUNTERS(cur), _ACTIVITY_COUNTERS(prev))
        ):
            out.append(ActivityRate(cur.node_id, *(None,) * 7, seconds))
            continue
        out.append(
            ActivityRate(
                cur.node_id,
                rate(prev.transactions, cur.transactions, seconds),
                rate(prev.commits, cur.commits, seconds),
                rate(prev.aborts, cur.aborts, seconds),
                rate(prev.reads, cur.reads, seconds),
                rate(prev.writes, cur.writes, seconds),
                rate(prev.scans, cur.scans, seconds),
                rate(prev.operations, cur.operations, seconds),
                seconds,
            )
        )
    return tuple(out)


@dataclass(frozen=True, **SLOTS)
class IoLagRate:
    """Seconds a data node's redo writes were slowed down for I/O lag between two readings
    (``slowed_s`` of ``seconds``; None across a restart or when not read)."""

    node_id: int
    slowed_s: float | None
    seconds: float = 0.0


def io_lag_rates(
    previous: tuple[DiskWriteSpeed, ...] | None,
    current: tuple[DiskWriteSpeed, ...],
    seconds: float,
) -> tuple[IoLagRate, ...]:
    """Each data node's growth of ``slowdowns_due_to_io_lag`` between two readings."""
    before = {w.node_id: w for w in previous or ()}
    out = []
    for cur in current:
        prev = before.get(cur.node_id)
        delta = None
        if prev is not None and seconds > 0:
            delta = counter_delta(prev.slowdowns_io_lag, cur.slowdowns_io_lag)
        out.append(IoLagRate(cur.node_id, delta, seconds))
    return tuple(out)


REDO_TAIL_PROBLEM_BYTES = 4 << 20
"""Free bytes in a redo log part under which the part refuses writes with 410
(DblqhMain.cpp: ``c_free_mb_tail_problem_limit = 4``)."""


@dataclass(frozen=True, **SLOTS)
class RedoFillRate:
    """How fast one redo log part filled between two readings of ``logspaces`` (bytes per
    second; None when it emptied, as a checkpoint moved its tail), and the seconds until it
    has :data:`REDO_TAIL_PROBLEM_BYTES` left at that rate (None when not filling)."""

    node_id: int
    log_part: int
    bytes_per_s: float | None
    seconds: float = 0.0
    to_410_s: float | None = None


def redo_fill_rates(
    previous: tuple[LogSpace, ...] | None,
    current: tuple[LogSpace, ...],
    seconds: float,
) -> tuple[RedoFillRate, ...]:
    """Each REDO log part's filling between two readings."""
    before = {(s.node_id, s.log_part): s for s in previous or () if s.log_type == "REDO"}
    out = []
    for cur in current:
        if cur.log_type != "REDO":
            continue
        prev = before.get((cur.node_id, cur.log_part))
        filled = eta = None
        if prev is not None and prev.total == cur.total:
            filled = rate(prev.used, cur.used, seconds)
        if filled:
            eta = max(cur.total - cur.used - REDO_TAIL_PROBLEM_BYTES, 0) / filled
        out.append(RedoFillRate(cur.node_id, cur.log_part, filled, seconds, eta))
    return tuple(out)
