"""The garbage collector runs between refreshes of the live view, and as before after it."""

from __future__ import annotations

import gc
import weakref

from ndbtop.tui.gc_pacing import ALL_EVERY, OLDER_EVERY, GcPacing


def test_collections_come_after_refreshes_oldest_objects_least_often() -> None:
    before = gc.get_threshold()
    pacing = GcPacing()
    assert pacing.after_refresh() is None, "not started: the collector is left alone"
    pacing.start()
    try:
        assert gc.get_threshold()[0] == 0, "no collection set off by allocations"
        generations = [pacing.after_refresh() for _ in range(ALL_EVERY)]
    finally:
        pacing.stop()
    assert gc.get_threshold() == before
    assert generations.count(2) == 1 and generations[-1] == 2
    assert generations.count(1) == ALL_EVERY // OLDER_EVERY - 1
    assert generations[OLDER_EVERY - 1] == 1 and generations[0] == 0


def test_garbage_in_cycles_waits_for_the_next_refresh() -> None:
    class Node:
        other: object = None

    pacing = GcPacing()
    pacing.start()
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        for _ in range(10_000):
            [object()]  # allocations that would have set off a collection
        assert gone() is not None, "not collected while a screen may be drawn"
        pacing.after_refresh()
        assert gone() is None
    finally:
        pacing.stop()


async def test_the_live_view_paces_the_collector_while_it_runs(tui) -> None:
    before = gc.get_threshold()
    async with tui("threads") as t:
        await t.until(lambda: t.app.gc_pacing.started, "the pacing")
        assert gc.get_threshold()[0] == 0
    assert gc.get_threshold() == before
