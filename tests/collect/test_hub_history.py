"""The hub's time series: how many points each keeps, and snapshots that never change."""

from __future__ import annotations

from ndbtop.collect.hub import HISTORY_POINTS, THREAD_HISTORY_POINTS, Hub
from ndbtop.mgm.connectstring import parse_connectstring
from ndbtop.model.clock import RealClock
from ndbtop.model.ndbinfo import DiskPageBuffer, NdbinfoSample, ThreadCpu


class Reader:
    """An ndbinfo reader whose samples the test writes: thread 2.1 busy ``n`` % at the n-th."""

    def __init__(self) -> None:
        self.n = 0
        self.threads_wanted = True

    def connect(self) -> None:
        pass

    def sample(self) -> NdbinfoSample:
        self.n += 1
        n = self.n
        return NdbinfoSample(
            taken_at=float(n),
            ndb_version=None,
            threads=(
                ThreadCpu(2, 0, "main", os_user_pct=1.0),
                ThreadCpu(2, 1, "ldm", exec_pct=float(n), os_user_pct=0.5),
            ),
            # Every page found in the cache: the interval hit ratio is 100 % from the second.
            disk_page_buffer=(DiskPageBuffer(2, 10 * n, 0, 0, 0, 0, 0, 0),),
        )

    def close(self) -> None:
        pass


def hub() -> Hub:
    return Hub(
        parse_connectstring("127.0.0.1:1"), RealClock(), 1.0, ndbinfo=(Reader(), "t"), events=False
    )


async def test_thread_series_keep_fewer_points_than_the_others() -> None:
    h = hub()
    assert h.sql is not None
    rounds = HISTORY_POINTS + 5
    for _ in range(rounds):
        await h.sql.poll_once()
    snap = h.snapshot()
    assert 12 <= THREAD_HISTORY_POINTS < HISTORY_POINTS
    assert snap.series("thread.cpu.2.1") == tuple(
        float(n) for n in range(rounds - THREAD_HISTORY_POINTS + 1, rounds + 1)
    )
    assert snap.series("thread.cpu.2.0") == (1.0,) * THREAD_HISTORY_POINTS
    # Whole percentages are shared objects, not one new float per point.
    assert len({id(v) for v in snap.series("thread.cpu.2.0")}) == 1
    assert snap.series("hit.interval.2") == (100.0,) * HISTORY_POINTS
    keys = {key for key, _ in snap.history}
    assert keys == {"thread.cpu.2.0", "thread.cpu.2.1", "hit.interval.2"}


async def test_a_snapshot_keeps_its_series_while_new_points_arrive() -> None:
    h = hub()
    assert h.sql is not None
    await h.sql.poll_once()
    await h.sql.poll_once()
    first = h.snapshot()
    assert first.series("thread.cpu.2.1") == (1.0, 2.0)
    await h.sql.poll_once()
    h.changed()
    second = h.snapshot()
    assert second.series("thread.cpu.2.1") == (1.0, 2.0, 3.0)
    assert first.series("thread.cpu.2.1") == (1.0, 2.0)
    assert first.series("hit.interval.2") == (None, 100.0)
    assert second.series("hit.interval.2") == (None, 100.0, 100.0)


async def test_series_are_copied_again_only_after_new_points() -> None:
    h = hub()
    assert h.sql is not None
    await h.sql.poll_once()
    first = h.snapshot()
    h.changed()
    again = h.snapshot()
    assert again is not first
    assert again.history is first.history
    await h.sql.poll_once()
    h.changed()
    assert h.snapshot().history is not first.history


async def test_threads_kept_from_an_earlier_read_leave_a_gap_in_their_series() -> (
    None
):
    h = hub()
    assert h.sql is not None
    reader = h.sql.reader
    assert isinstance(reader, Reader)
    for _ in range(3):
        await h.sql.poll_once()
    h.want_threads(False)
    assert reader.threads_wanted is False
    threads = (ThreadCpu(2, 1, "ldm", exec_pct=40.0),)
    for at in (10.0, 11.0, 12.0):
        # Read at 10, then kept by the two samples after it.
        h.sql.on_sample(NdbinfoSample(taken_at=at, ndb_version=None, threads=threads,
                                      read_at=(("threads", 10.0),)))
    h.changed()
    assert h.snapshot().series("thread.cpu.2.1")[-4:] == (3.0, 40.0, None, None), (
        "seconds not read show as such, not as the last figure"
    )
    h.want_threads(True)
    assert reader.threads_wanted is True
