"""A snapshot's series, some of them cut out only when read: they read as the tuple of every
pair, and a look-up of one of the others does not cut them out."""

from __future__ import annotations

from ndbtop.model.series import SeriesSet
from ndbtop.model.snapshot import ClusterSnapshot


def test_a_series_set_reads_as_the_tuple_of_its_pairs_and_cuts_the_rest_once() -> None:
    calls = []

    def later() -> tuple[tuple[str, tuple[float | None, ...]], ...]:
        calls.append(1)
        return (("thread.cpu.1.0", (5.0,)),)

    fixed = (("hit.interval.1", (99.0, None)),)
    snap = ClusterSnapshot(1.0, 1.0, 1.0, (), history=SeriesSet(fixed, later))
    assert snap.series("hit.interval.1") == (99.0, None)
    assert calls == []
    assert snap.series("thread.cpu.1.0") == (5.0,)
    assert snap.series("nothing") == ()
    whole = (*fixed, ("thread.cpu.1.0", (5.0,)))
    assert snap.history == whole and whole == snap.history
    assert len(snap.history) == 2 and snap.history[1] == whole[1] and snap.history[:1] == fixed
    assert dict(snap.history) == dict(whole)
    assert hash(snap.history) == hash(whole)
    assert snap == ClusterSnapshot(1.0, 1.0, 1.0, (), history=whole)
    assert calls == [1]


def test_one_later_series_is_looked_up_without_cutting_out_the_others() -> None:
    def later() -> tuple[tuple[str, tuple[float | None, ...]], ...]:
        raise AssertionError("cut out")

    found = {"thread.cpu.1.0": (5.0, 6.0)}
    snap = ClusterSnapshot(
        1.0, 1.0, 1.0, (), history=SeriesSet((("hit.interval.1", (99.0,)),), later, found.get)
    )
    assert snap.series("thread.cpu.1.0") == (5.0, 6.0)
    assert snap.series("hit.interval.1") == (99.0,)
    assert snap.series("thread.cpu.2.0") == ()
