"""A source that hangs (accepts, never answers): the keys stay quick and the header says so.

The simulated management server and SQL node can stall: they keep accepting
connections but answer nothing. The collectors' timeouts are set short here so
the hang is detected in seconds; the test only waits for what the screen shows,
never for a fixed time.
"""

from __future__ import annotations

import re
import statistics
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from textual.widgets import TabbedContent

from ndbtop.collect.hub import Hub
from ndbtop.demo.hub import demo_hub
from ndbtop.ndbinfo.collector import NdbinfoCollector
from ndbtop.sim.runtime import Simulator

TIMEOUT = 1.5
"""Seconds the collectors wait for an answer in these tests (2 s and 5 s by default): long
enough that an app waiting on the hung source would hold keys longer than the limits
below, short enough to see the source lost within seconds."""

KEY_LIMIT = TIMEOUT / 3
"""Seconds within which the median view key must make its view the active one while a
source hangs. An app that waited on the hung source would hold each key for up to
:data:`TIMEOUT` while it asked (with a view key made to wait on ``get status`` the median
key took 1.8 s). The product's targets (200 ms for a key, measured at 15-26 ms median on
2 cores) are timing targets and live in bench/, not here: a single slow key under a loaded
machine is not a defect, a median near the timeout is."""

SETTLE_LIMIT = TIMEOUT
"""Seconds for the median ``pilot.press`` + ``pilot.pause`` of a view key: until every
widget has processed what the switch caused. Waiting on the hung source would put it past
:data:`TIMEOUT`; Textual's own work takes 76-118 ms median (214-340 ms with both cores
oversubscribed)."""

SWITCHES_AFTER = 10
"""View switches measured once the header shows the source lost."""

VIEWS = {"1": "nodes", "2": "threads", "3": "disk", "4": "events", "5": "restarts"}
CYCLE = "23451"


def fresh(name: str) -> re.Pattern[str]:
    """``mgm 0s``: the source answered within two refresh intervals."""
    return re.compile(rf"\b{name} \d+s")


def lost(name: str) -> re.Pattern[str]:
    """``mgm stale 2s lost, retry in 1s``: the header gives the age of the last good data."""
    return re.compile(rf"\b{name} stale \d+s lost")


def answered_since(t: Any, name: str, since: float) -> bool:
    """True when source ``name`` produced good data after ``since`` (monotonic)."""
    status = t.hub.snapshot().source(name)
    return status is not None and (status.last_ok or 0.0) > since


def hanging_hub(sim: Simulator, interval: float) -> Hub:
    """The demo's hub with every management and SQL call bounded by :data:`TIMEOUT`."""
    hub = demo_hub(sim, interval)
    hub.mgm.client.timeout = TIMEOUT
    assert hub.sql is not None and isinstance(hub.sql.reader, NdbinfoCollector)
    reader = hub.sql.reader
    reader.options = replace(
        reader.options, connect_timeout=TIMEOUT, read_timeout=TIMEOUT, write_timeout=TIMEOUT
    )
    return hub


class Latency:
    """Per view key: seconds until the view was active (handled) and until the screen settled."""

    def __init__(self, t: Any) -> None:
        self.t = t
        self.handled: list[float] = []
        self.settled: list[float] = []
        self._activations: list[tuple[str, float]] = []
        self._drawn: object | None = None
        self._next = 0
        tabs = t.app.query_one("#tabs", TabbedContent)
        t.app.watch(tabs, "active", self._activated, init=False)

    def _activated(self, value: str) -> None:
        self._activations.append((value, time.monotonic()))

    async def switch(self) -> None:
        """Press the next view's key and record both times; the view must be the one shown.

        Keys come one screen refresh apart, as from a person reading the screen: the
        view drawn by the previous key must have been redrawn with newer data first.
        """
        key = CYCLE[self._next % len(CYCLE)]
        self._next += 1
        name = VIEWS[key]
        app = self.t.app
        if self._drawn is not None:
            drawn = self._drawn
            await self.t.until(
                lambda: app.current_view.snapshot is not drawn, "a refresh of the screen"
            )
        began = time.monotonic()
        await self.t.pilot.press(key)
        await self.t.pilot.pause()
        self.settled.append(time.monotonic() - began)
        activated = [at for value, at in self._activations if value == name and at >= began]
        assert activated, f"{key} did not switch to the {name} view"
        self.handled.append(activated[0] - began)
        assert app.current_view.id == f"view-{name}"
        assert app.current_view.snapshot is not None
        self._drawn = app.current_view.snapshot

    async def switch_until(self, done: Callable[[], object], what: str) -> None:
        """Switch views until ``done()``; at least two switches, at most a minute's worth."""
        for _ in range(200):
            await self.switch()
            if len(self.handled) >= 2 and done():
                return
        raise AssertionError(f"never saw {what}; header:\n{self.t.header()}")

    def check(self) -> None:
        """The app never waited on the hung source; the message gives medians and maxima."""

        def summary(values: list[float]) -> str:
            return (
                f"median {statistics.median(values) * 1000:.0f} ms, "
                f"max {max(values) * 1000:.0f} ms"
            )

        text = (
            f"{len(self.handled)} view switches: active after {summary(self.handled)}; "
            f"press + pause {summary(self.settled)}"
        )
        assert statistics.median(self.handled) < KEY_LIMIT, text
        assert statistics.median(self.settled) < SETTLE_LIMIT, text


async def test_keys_stay_quick_while_the_management_server_hangs(tui) -> None:
    async with tui("threads", make_hub=hanging_hub) as t:
        await t.until(lambda: fresh("mgm").search(t.header()), "mgm fresh")
        await t.until(lambda: fresh("ndbinfo").search(t.header()), "ndbinfo fresh")
        server = t.sim.mgmds[1]
        latency = Latency(t)

        server.stall = True
        stalled_at = time.monotonic()
        requests = server.requests
        # Keys are pressed while a poll hangs, until the header says the source is lost.
        await latency.switch_until(lambda: lost("mgm").search(t.header()), "mgm shown lost")
        assert time.monotonic() - stalled_at >= TIMEOUT, "shown lost only after the timeout"
        assert server.requests > requests, "a poll reached the stalled server"
        error = t.hub.snapshot().source("mgm").error or ""
        assert f"no reply within {TIMEOUT:g} s" in error
        # The other sources do not wait for the hung one.
        assert answered_since(t, "ndbinfo", stalled_at)
        assert answered_since(t, "host", stalled_at)
        for _ in range(SWITCHES_AFTER):
            await latency.switch()
        assert server.stall
        latency.check()
        # What the management server said last stays on screen.
        await t.view("1")
        assert t.node_status(2) == "STARTED"

        server.stall = False
        await t.until(lambda: fresh("mgm").search(t.header()), "mgm fresh again", timeout=20.0)
        assert t.hub.snapshot().source("mgm").error is None


async def test_keys_stay_quick_while_the_sql_node_hangs(tui) -> None:
    async with tui("threads", make_hub=hanging_hub) as t:
        await t.until(lambda: fresh("ndbinfo").search(t.header()), "ndbinfo fresh")
        await t.view("2")
        await t.until(lambda: t.table("#detail").row_count == 7, "node 2's threads")
        await t.view("1")
        server = t.sim.sql_server
        latency = Latency(t)

        server.stall = True
        stalled_at = time.monotonic()
        await latency.switch_until(
            lambda: lost("ndbinfo").search(t.header()), "ndbinfo shown lost"
        )
        assert time.monotonic() - stalled_at >= TIMEOUT, "shown lost only after the timeout"
        error = t.hub.snapshot().source("ndbinfo").error or ""
        assert f"did not answer within {TIMEOUT:g} s" in error
        assert answered_since(t, "mgm", stalled_at)
        for _ in range(SWITCHES_AFTER):
            await latency.switch()
        assert server.stall
        latency.check()
        # The last sample stays on screen.
        await t.view("2")
        assert t.table("#detail").row_count == 7

        server.stall = False
        await t.until(
            lambda: fresh("ndbinfo").search(t.header()), "ndbinfo fresh again", timeout=20.0
        )
        assert t.hub.snapshot().source("ndbinfo").error is None
