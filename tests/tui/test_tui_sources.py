"""A source that dies: the header says so, the last data stays on screen, and it comes back."""

from __future__ import annotations

import re

LOST = re.compile(r"mgm( stale \d+s)? lost(, retry in \d+s)?")


async def test_a_lost_management_server_shows_in_the_header_and_comes_back(tui):
    async with tui("threads") as t:
        await t.until(lambda: re.search(r"mgm \d+s", t.header()), "mgm fresh")
        await t.view("2")
        await t.until(lambda: t.table("#detail").row_count == 7, "node 2's threads")
        await t.view("1")
        rows = t.row_keys("#nodes")
        assert len(rows) == 7

        await t.sim.stop_mgmd(1)
        await t.until(lambda: LOST.search(t.header()), "mgm lost in the header")
        header = t.header()
        assert re.search(r"ndbinfo \d+s", header), "ndbinfo is still fresh"
        assert re.search(r"host \d+s", header)
        # What the management server said last stays on screen.
        assert t.row_keys("#nodes") == rows
        assert t.node_status(2) == "STARTED" and t.node_status(3) == "STARTED"
        await t.view("2")
        assert t.table("#detail").row_count == 7, "threads come from ndbinfo: still there"
        assert "ldm 3" in t.text()

        await t.sim.start_mgmd(1)
        await t.until(lambda: not LOST.search(t.header()), "mgm back", timeout=15.0)
        await t.until(
            lambda: (
                re.search(r"mgm \d+s", t.header()) and re.search(r"events \d+s", t.header())
            ),
            "mgm and events fresh again",
            timeout=15.0,
        )
        assert t.hub.snapshot().source("mgm").error is None
