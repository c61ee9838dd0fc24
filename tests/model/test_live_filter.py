"""The live figures of a cluster's refreshes: the same rows and live nodes give the very same
objects, which the rules and views downstream recognise by identity."""

from __future__ import annotations

from ndbtop.model.live import LiveFilter
from ndbtop.model.ndbinfo import NdbinfoSample, ThreadCpu


def _sample(nodes: tuple[int, ...]) -> NdbinfoSample:
    threads = tuple(ThreadCpu(n, t, "ldm", exec_pct=10.0) for n in nodes for t in range(2))
    return NdbinfoSample(1.0, 80_000, threads=threads,
                         config_values=tuple((n, 112, "1024") for n in nodes))


def test_every_node_live_gives_the_sample_itself_and_again_the_same() -> None:
    sample = _sample((1, 2))
    live = LiveFilter()
    assert live.sample(sample, frozenset({1, 2})) is sample
    assert live.sample(sample, frozenset({2, 1})) is sample


def test_a_node_not_live_loses_its_figures_not_its_configuration() -> None:
    sample = _sample((1, 2))
    live = LiveFilter()
    kept = live.sample(sample, frozenset({2}))
    assert kept is not None and kept is not sample
    assert [(t.node_id, t.thr_no) for t in kept.threads] == [(2, 0), (2, 1)]
    assert kept.config_values is sample.config_values
    again = live.sample(sample, frozenset({2}))
    assert again is kept, "same rows, same live nodes: the same sample"
    assert again.threads is kept.threads


def test_the_rows_are_filtered_again_when_the_live_nodes_or_the_rows_change() -> None:
    sample = _sample((1, 2))
    live = LiveFilter()
    kept = live.sample(sample, frozenset({2}))
    both = live.sample(sample, frozenset({1, 2}))
    assert both is sample and both is not kept
    newer = _sample((1, 2))
    assert live.sample(newer, frozenset({1, 2})) is newer
    one = live.sample(newer, frozenset({1}))
    assert one is not None and {t.node_id for t in one.threads} == {1}


def test_rates_by_node_keep_their_identity_per_slot() -> None:
    rows = _sample((1, 2, 3)).threads
    live = LiveFilter()
    assert live.rows("a", rows, frozenset({1, 2, 3})) is rows
    two = live.rows("a", rows, frozenset({1, 3}))
    assert {t.node_id for t in two} == {1, 3}
    assert live.rows("a", rows, frozenset({1, 3})) is two
    assert live.rows("b", rows, frozenset({1, 2, 3})) is rows, "another slot, its own rows"
