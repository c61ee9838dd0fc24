"""Thread CPU series kept as columns: every thread's series is what a list of its own points
would hold, whatever threads come and go between samples."""

from __future__ import annotations

from collections import deque

from hypothesis import given, settings
from hypothesis import strategies as st

from ndbtop.collect.thread_history import ThreadHistory, series_key
from ndbtop.model.ndbinfo import ThreadCpu


def thread(node: int, thr: int, pct: float) -> ThreadCpu:
    return ThreadCpu(node, thr, "ldm", exec_pct=pct, os_user_pct=0.0)


def test_series_keep_the_last_points_and_are_cut_as_they_stood_when_asked() -> None:
    history = ThreadHistory(3)
    for pct in (1.0, 2.0, 3.0, 4.0):
        history.add([thread(1, 0, pct), thread(1, 1, 10 * pct)])
    cut = history.later()
    history.add([])
    history.add([thread(1, 0, 5.0), thread(1, 1, 50.0)])
    assert dict(cut()) == {"thread.cpu.1.0": (2.0, 3.0, 4.0),
                           "thread.cpu.1.1": (20.0, 30.0, 40.0)}
    assert dict(history.later()())["thread.cpu.1.0"] == (3.0, 4.0, 5.0)


def test_a_thread_that_goes_keeps_its_series_and_goes_on_from_it_when_back() -> None:
    history = ThreadHistory(4)
    history.add([thread(1, 0, 1.0), thread(2, 0, 1.0)])
    history.add([thread(1, 0, 2.0)])  # node 2 restarting
    history.add([thread(1, 0, 3.0), thread(1, 5, 7.0)])
    assert dict(history.later()()) == {
        "thread.cpu.1.0": (1.0, 2.0, 3.0),
        "thread.cpu.1.5": (7.0,),
        "thread.cpu.2.0": (1.0,),
    }
    history.add([thread(1, 0, 4.0), thread(1, 5, 8.0), thread(2, 0, 9.0)])
    assert dict(history.later()())["thread.cpu.2.0"] == (1.0, 9.0)


def test_whole_percentages_are_shared_objects() -> None:
    history = ThreadHistory(5)
    for _ in range(5):
        history.add([ThreadCpu(1, 0, "main", os_user_pct=2.0, os_system_pct=1.0)])
    (_, values), = history.later()()
    assert values == (3.0,) * 5 and len({id(v) for v in values}) == 1


_SAMPLES = st.lists(
    st.dictionaries(
        st.tuples(st.integers(1, 3), st.integers(0, 3)),
        st.sampled_from([0.0, 1.0, 2.5, 50.0]),
        max_size=6,
    ),
    max_size=12,
)


@settings(max_examples=300, deadline=None)
@given(_SAMPLES, st.integers(1, 4))
def test_series_are_each_threads_own_last_points(
    samples: list[dict[tuple[int, int], float]], points: int
) -> None:
    history = ThreadHistory(points)
    expected: dict[str, deque[float]] = {}
    for sample in samples:
        threads = [thread(node, thr, pct) for (node, thr), pct in sorted(sample.items())]
        history.add(threads)
        for t in threads:
            expected.setdefault(series_key((t.node_id, t.thr_no)),
                                deque(maxlen=points)).append(t.cpu_pct)
        find = history.finder()
        got = history.later()()
        assert len(got) == len(expected)
        for key, values in expected.items():
            assert find(key) == tuple(values)
        assert find("thread.cpu.9.9") is None
        assert {key: values for key, values in got} == {
            key: tuple(values) for key, values in expected.items()
        }
