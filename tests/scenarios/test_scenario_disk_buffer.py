"""S4, DiskPageBufferMemory warm-up, watched through ndbinfo: the hit ratio per node with
the documented query, since start and over an interval, and throughput from the DBTC
TRANSACTIONS counters, at the times of the field report (64M, the rolling restart to
512M, then 413 s, 1,780 s and 3,300 s after it)."""

from __future__ import annotations

from scenario_watch import ScenarioWatch, Watch, assert_reference_texts

HIT_RATIO = (
    "SELECT node_id, SUM(page_requests_direct_return), SUM(page_requests_wait_io), "
    "100 * SUM(page_requests_direct_return) / "
    "(SUM(page_requests_direct_return) + SUM(page_requests_wait_io)) AS hit_ratio "
    "FROM ndbinfo.diskpagebuffer GROUP BY node_id ORDER BY node_id"
)
TRANSACTIONS = (
    "SELECT node_id, SUM(val) FROM ndbinfo.counters WHERE counter_name = 'TRANSACTIONS' "
    "GROUP BY node_id ORDER BY node_id"
)
POINTS = 0.3
"""Tolerance of a hit ratio, in percentage points."""


class Sample:
    """What the documented queries return at one instant."""

    def __init__(self, time: float, ratio_rows: list, trans_rows: list) -> None:
        self.time = time
        self.ratio = {int(r[0]): float(r[3]) for r in ratio_rows}
        self.requests = {int(r[0]): (int(r[1]), int(r[2])) for r in ratio_rows}
        self.transactions = {int(r[0]): int(r[1]) for r in trans_rows}

    def interval_ratio(self, earlier: Sample, node: int) -> float:
        """Hit ratio of one node between ``earlier`` and this sample."""
        direct = self.requests[node][0] - earlier.requests[node][0]
        wait = self.requests[node][1] - earlier.requests[node][1]
        return 100.0 * direct / (direct + wait)

    def tps(self, earlier: Sample) -> float:
        """Transactions per second over the whole cluster since ``earlier``."""
        done = sum(self.transactions.values()) - sum(earlier.transactions.values())
        return done / (self.time - earlier.time)


async def sample(w: ScenarioWatch) -> Sample:
    """The hit ratios and transaction counters now."""
    return Sample(w.now, await w.query(HIT_RATIO), await w.query(TRANSACTIONS))


async def figures_at(w: ScenarioWatch, when: float, window: float = 60.0) -> tuple[Sample, float]:
    """The sample at ``when`` and the throughput over the ``window`` before it."""
    await w.run_to(when - window, step=20.0)
    before = await sample(w)
    await w.run_to(when, step=20.0)
    now = await sample(w)
    return now, now.tps(before)


def near(value: float, target: float, tolerance: float) -> bool:
    """``value`` within ``tolerance`` (absolute) of ``target``."""
    return abs(value - target) <= tolerance


async def test_hit_ratio_and_throughput_follow_the_field_report(watch: Watch) -> None:
    w = await watch("disk-buffer")

    at_64m, tps = await figures_at(w, 600.0)
    assert near(at_64m.ratio[3], 93.4, POINTS) and near(at_64m.ratio[4], 93.7, POINTS)
    assert near(tps, 273, 27.3), tps

    # The rolling restart to 512M: while node 3 is down only node 4 answers.
    await w.run_until(lambda: w.arrived(53, 3) is not None, step=2.0, limit=1000)
    alone_from = await sample(w)
    assert list(alone_from.ratio) == [4]
    await w.step(40.0)
    alone_to = await sample(w)
    assert list(alone_to.ratio) == [4]
    assert w.arrived(11, 3) is None
    assert near(alone_to.interval_ratio(alone_from, 4), 91.3, POINTS)
    assert near(alone_to.tps(alone_from), 200, 20), alone_to.tps(alone_from)

    await w.run_until(lambda: w.arrived(11, 4) is not None, step=1.0, limit=300)
    restarted = w.arrived(11, 4)
    assert restarted is not None
    # Node 4 goes down only once node 3 is back.
    order = [(s.type, s.source) for s in w.events if s.type in (11, 17)]
    assert order == [(17, 3), (11, 3), (17, 4), (11, 4)]

    first, tps = await figures_at(w, restarted + 413)
    assert near(first.ratio[3], 98.2, POINTS) and near(first.ratio[4], 98.6, POINTS), first.ratio
    assert near(tps, 1145, 114.5), tps

    later, tps = await figures_at(w, restarted + 1780)
    assert near(later.ratio[3], 99.2, POINTS) and near(later.ratio[4], 99.5, POINTS), later.ratio
    assert near(tps, 1670, 167), tps

    before_last, _ = await figures_at(w, restarted + 3000)
    last, tps = await figures_at(w, restarted + 3300)
    assert near(tps, 2330, 233), tps
    for node in (3, 4):
        # Still climbing: the last interval beats the average since start, which rises.
        assert last.ratio[node] > before_last.ratio[node] > later.ratio[node]
        assert last.interval_ratio(before_last, node) > last.ratio[node]
        assert last.ratio[node] < 99.9
    assert_reference_texts(w.events)
