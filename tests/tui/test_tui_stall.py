"""A source that hangs (accepts, never answers): the keys stay quick and the header says so.

The simulated management server and SQL node can stall: they keep accepting
connections but answer nothing. The collectors' timeouts are set short here so
the hang is detected in seconds; the test only waits for what the screen shows,
never for a fixed time. That keys do not wait on the hung source is told by order, not
by speed: each view switch is handled while the poll pending at its press still is. The
product's targets for a key (200 ms; 15-26 ms median measured on 2 cores) live in bench/.
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
"""Seconds the collectors wait for an answer in these tests (2 s and 5 s by default): short
enough to see the source lost within seconds."""

SWITCHES_AFTER = 5
"""View switches that must each be handled while a poll of the hung source is pending."""

TRIES = 3 * SWITCHES_AFTER
"""View switches tried for those: a switch that a poll's end overtook proves nothing either
way (a poll hangs for :data:`TIMEOUT`, then the source waits to retry)."""

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


class Polls:
    """The polls of one source: how many began, and whether one is pending now."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.begun = 0
        self.pending = False
        poll_once = source.poll_once

        async def watched() -> Any:
            self.begun += 1
            self.pending = True
            try:
                return await poll_once()
            finally:
                self.pending = False

        source.poll_once = watched

    def mark(self) -> tuple[int, bool]:
        """Which poll is the last begun, and whether it is still pending."""
        return self.begun, self.pending

    def now(self) -> None:
        """Poll now rather than after the retry delay (which doubles after each failure)."""
        if not self.pending:
            self.source.health.wake.set()


def hanging_hub(polls: dict[str, Polls]) -> Callable[[Simulator, float], Hub]:
    """The demo's hub with every management and SQL call bounded by :data:`TIMEOUT`, the
    polls of both watched (in ``polls``, by source name)."""

    def make(sim: Simulator, interval: float) -> Hub:
        hub = demo_hub(sim, interval)
        hub.mgm.client.timeout = TIMEOUT
        assert hub.sql is not None and isinstance(hub.sql.reader, NdbinfoCollector)
        reader = hub.sql.reader
        reader.options = replace(
            reader.options, connect_timeout=TIMEOUT, read_timeout=TIMEOUT, write_timeout=TIMEOUT
        )
        polls["mgm"], polls["ndbinfo"] = Polls(hub.mgm), Polls(hub.sql)
        return hub

    return make


class Switches:
    """View keys pressed while a source hangs, and whether each was handled, and settled,
    while the poll of the hung source pending at the press still was."""

    def __init__(self, t: Any, polls: Polls) -> None:
        self.t = t
        self.polls = polls
        self.tries = 0
        self.during: list[str] = []
        """The keys handled and settled while the poll pending at their press still was."""
        self.handled: list[float] = []
        self.settled: list[float] = []
        self._activations: list[tuple[str, float, tuple[int, bool]]] = []
        self._drawn: object | None = None
        tabs = t.app.query_one("#tabs", TabbedContent)
        t.app.watch(tabs, "active", self._activated, init=False)

    def _activated(self, value: str) -> None:
        self._activations.append((value, time.monotonic(), self.polls.mark()))

    async def switch(self) -> bool:
        """Press the next view's key (the view must be the one shown); whether it was
        handled and settled while the poll pending at the press still was.

        Keys come one screen refresh apart, as from a person reading the screen: the
        view drawn by the previous key must have been redrawn with newer data first.
        """
        key = CYCLE[self.tries % len(CYCLE)]
        self.tries += 1
        name = VIEWS[key]
        app = self.t.app
        if self._drawn is not None:
            drawn = self._drawn
            await self.t.until(
                lambda: app.current_view.snapshot is not drawn, "a refresh of the screen"
            )
        began, pending = time.monotonic(), self.polls.mark()
        await self.t.pilot.press(key)
        await self.t.pilot.pause()
        settled = self.polls.mark()
        self.settled.append(time.monotonic() - began)
        activated = [(at, mark) for value, at, mark in self._activations
                     if value == name and at >= began]
        assert activated, f"{key} did not switch to the {name} view"
        self.handled.append(activated[0][0] - began)
        assert app.current_view.id == f"view-{name}"
        assert app.current_view.snapshot is not None
        self._drawn = app.current_view.snapshot
        during = pending[1] and activated[0][1] == pending and settled == pending
        if during:
            self.during.append(key)
        return during

    async def switch_until(self, done: Callable[[], object], what: str) -> None:
        """Switch views until ``done()``; at least two switches, at most a minute's worth."""
        for _ in range(200):
            await self.switch()
            if self.tries >= 2 and done():
                return
        raise AssertionError(f"never saw {what}; header:\n{self.t.header()}")

    async def while_pending(self, count: int) -> None:
        """Switch views, each pressed while a poll of the hung source is pending, until
        ``count`` of them were handled before that poll ended.

        An app that waited on the hung source would handle every key after the poll
        pending at its press had ended (its timeout): none would count.
        """
        done = 0
        for _ in range(TRIES):
            self.polls.now()
            await self.t.until(lambda: self.polls.pending, "a poll of the hung source")
            done += await self.switch()
            if done == count:
                return
        raise AssertionError(self.summary())

    def summary(self) -> str:
        """The keys handled during a pending poll, and the times taken (for a failure)."""

        def times(values: list[float]) -> str:
            return (
                f"median {statistics.median(values) * 1000:.0f} ms, "
                f"max {max(values) * 1000:.0f} ms"
            )

        return (
            f"{len(self.during)} of {self.tries} view switches handled while a poll of the "
            f"hung source was pending; active after {times(self.handled)}; "
            f"press + pause {times(self.settled)}"
        )


async def test_keys_stay_quick_while_the_management_server_hangs(tui) -> None:
    polls: dict[str, Polls] = {}
    async with tui("threads", make_hub=hanging_hub(polls)) as t:
        await t.until(lambda: fresh("mgm").search(t.header()), "mgm fresh")
        await t.until(lambda: fresh("ndbinfo").search(t.header()), "ndbinfo fresh")
        server = t.sim.mgmds[1]
        keys = Switches(t, polls["mgm"])

        server.stall = True
        stalled_at = time.monotonic()
        requests = server.requests
        # Keys are pressed while a poll hangs, until the header says the source is lost.
        await keys.switch_until(lambda: lost("mgm").search(t.header()), "mgm shown lost")
        assert time.monotonic() - stalled_at >= TIMEOUT, "shown lost only after the timeout"
        assert server.requests > requests, "a poll reached the stalled server"
        error = t.hub.snapshot().source("mgm").error or ""
        assert f"no reply within {TIMEOUT:g} s" in error
        # The other sources do not wait for the hung one.
        assert answered_since(t, "ndbinfo", stalled_at)
        assert answered_since(t, "host", stalled_at)
        await keys.while_pending(SWITCHES_AFTER)
        assert server.stall
        # What the management server said last stays on screen.
        await t.view("1")
        assert t.node_status(2) == "STARTED"

        server.stall = False
        await t.until(lambda: fresh("mgm").search(t.header()), "mgm fresh again", timeout=20.0)
        assert t.hub.snapshot().source("mgm").error is None


async def test_keys_stay_quick_while_the_sql_node_hangs(tui) -> None:
    polls: dict[str, Polls] = {}
    async with tui("threads", make_hub=hanging_hub(polls)) as t:
        await t.until(lambda: fresh("ndbinfo").search(t.header()), "ndbinfo fresh")
        await t.view("2")
        await t.until(lambda: t.table("#detail").row_count == 7, "node 2's threads")
        await t.view("1")
        server = t.sim.sql_server
        keys = Switches(t, polls["ndbinfo"])

        server.stall = True
        stalled_at = time.monotonic()
        await keys.switch_until(
            lambda: lost("ndbinfo").search(t.header()), "ndbinfo shown lost"
        )
        assert time.monotonic() - stalled_at >= TIMEOUT, "shown lost only after the timeout"
        error = t.hub.snapshot().source("ndbinfo").error or ""
        assert f"did not answer within {TIMEOUT:g} s" in error
        assert answered_since(t, "mgm", stalled_at)
        await keys.while_pending(SWITCHES_AFTER)
        assert server.stall
        # The last sample stays on screen.
        await t.view("2")
        assert t.table("#detail").row_count == 7

        server.stall = False
        await t.until(
            lambda: fresh("ndbinfo").search(t.header()), "ndbinfo fresh again", timeout=20.0
        )
        assert t.hub.snapshot().source("ndbinfo").error is None
