"""The Config view: each data node's configuration with defaults marked, and after a
configuration change the nodes still running the older one."""

from __future__ import annotations

from ndbtop.model.config import pending_restarts
from ndbtop.sim.scenarios import CONFIG_CHANGE_AT


async def test_config_view_shows_each_data_node_and_marks_defaults(tui):
    async with tui("node-groups") as t:
        await t.view("7")
        await t.until_shown("Configuration generation 1")
        text = t.text()
        rows: dict[str, list[str]] = {}
        for line in text.splitlines():
            if line.strip() and line.split()[0] in ("2", "3", "4", "5"):
                rows.setdefault(line.split()[0], []).append(line)
        place, start = rows["3"]
        assert place.split()[1] == "1" and rows["4"][0].split()[1] == "0"
        assert "192.168.0.5" in rows["5"][0] and "/var/lib/mysql-cluster/5" in rows["5"][0]
        assert "4x42x256M = 42G" in start
        assert "0 (no progress reports) (default)" in start
        assert "MaxNoOfExecutionThreads 4" in start


async def test_after_a_configuration_change_the_nodes_on_the_old_one_are_flagged(tui):
    async with tui("config-change", speed=40.0) as t:
        await t.view("7")
        await t.until_shown("Configuration generation 4")

        def flagged() -> bool:
            snap = t.app.current_view.snapshot
            if snap is None or snap.config is None or snap.config.generation != 5:
                return False
            pending = pending_restarts(snap.config, snap.live_ndbinfo())
            return pending == {2: False, 3: True, 4: True, 5: True}

        await t.until(flagged, "nodes 3, 4 and 5 flagged", timeout=60)
        assert t.sim.cluster.now > CONFIG_CHANGE_AT
        await t.until_shown("nodes 3, 4, 5 still run an older configuration")
        text = t.text()
        row3 = next(x for x in text.splitlines() if x.split()[:1] == ["3"])  # the first table
        assert row3.split()[-2:] == ["4", "needed"]
        assert "12G" in row3


async def test_at_80_columns_no_column_is_cut_away(tui):
    async with tui("node-groups", size=(80, 24)) as t:
        await t.view("7")
        await t.until_shown("Configuration generation 1")
        await t.until_shown("node    DataMemory")
        text = t.text()
        for header in ("node    group    host", "DataDir", "DataMemory", "DiskPageBuffer",
                       "runs gen", "restart"):
            assert header in text, header
        rows = [line.split() for line in text.splitlines() if line.split()[:1] == ["5"]]
        place, hold = rows[0], rows[1]
        assert place == ["5", "1", "192.168.0.5", "/var/lib/mysql-cluster/5"]
        assert hold[:5] == ["5", "11.7G", "64M", "(default)", "-"]
        assert hold[5] in ("no", "?")  # "?" until the SQL node's first sample
        assert "…" not in "\n".join(text.splitlines()[3:])  # below the header and tabs
        # The rest is below: the view scrolls.
        scroll = t.app.current_view.query_one("#scroll")
        scroll.scroll_end(animate=False)
        await t.until_shown("MaxNoOfExecutionThreads 4")
        text = t.text()
        assert "4x42x256M = 42G    0 (no progress reports) (default)" in text
        assert "MaxNoOfExecutionThreads 4" in text and "ArbitrationRank" in text
