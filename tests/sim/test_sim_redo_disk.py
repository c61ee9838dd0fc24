"""The simulated disk during redo-log initialisation comes from the initialisation's own
rate: its w/s and kB/s agree with the MB/s of log and the ETA the events give."""

from __future__ import annotations

import pytest

from ndbtop.sim.host import PAGE_KB, SimHost, redo_init_load
from ndbtop.sim.scenarios import ScenarioOptions, build_scenario


def test_s1_rate_gives_s1_disk() -> None:
    # S1 (field-scenarios.md): 43,008 MB in 38 min 47 s is 18.49 MB/s of log; iostat showed
    # about 50 writes/s and 1,000-1,050 kB/s, about 20 kB per write.
    load = redo_init_load(43008 / (38 * 60 + 47), synced=True)
    assert load.writes == pytest.approx(50.0, abs=0.5)
    assert 1000 <= load.write_kb <= 1050
    assert load.write_kb / load.writes == pytest.approx(20.5, abs=0.5)


def test_without_a_sync_per_page_the_disk_writes_just_the_pages() -> None:
    load = redo_init_load(141.5, synced=False)
    assert load.writes == pytest.approx(141.5)
    assert load.write_kb == pytest.approx(141.5 * PAGE_KB)


@pytest.mark.parametrize("fast", [False, True])
def test_the_simulated_host_disk_follows_the_node_redo_rate(fast: bool) -> None:
    cluster = build_scenario("initial-start", ScenarioOptions(fast_redo=fast))
    cluster.advance_to(60.0)
    host = SimHost(cluster, 10)
    host.sample()
    cluster.advance_to(90.0)
    host.sample()
    view = host.view()
    assert view is not None
    sdb = next(d for d in view.disks if d.name == "sdb")
    node = cluster.data_nodes[10]
    log_mb_per_s = node.redo_total_mb / node.redo_init_seconds
    expected = redo_init_load(log_mb_per_s, synced=not fast)
    assert sdb.w_s == pytest.approx(expected.writes, rel=0.05)
    assert sdb.wkb_s == pytest.approx(expected.write_kb, rel=0.05)
