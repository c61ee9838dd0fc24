"""The replication source: the SQL nodes of both sides read in the background, the channels
joined from them, and how fast things move (epochs written, conflicts).

Which SQL nodes: the watched cluster's (``--mysql-host``) and its replica's
(``--replica-mysql-host``, or a context's ``replicates_to``); each is read for both roles
(a binary log written, replica channels), so a cluster seen from either side shows its
channels. Nothing is read unless a replica side is named.

How often: every refresh while something shows or asks for replication (the Replication
view, ``--once --section replication``, the exporter), else every :data:`BACKGROUND_EVERY`
seconds, enough for the findings (a stopped channel, a lag past its threshold, lost
events), each read of each SQL node a few statements in a worker thread of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace

from ndbtop.collect.health import Health
from ndbtop.errors import SqlError
from ndbtop.model.clock import Clock
from ndbtop.model.replication import Endpoint, ReplicationState
from ndbtop.model.replication_join import counts_wanted, join_channels
from ndbtop.model.sources import SourceState, SourceStatus
from ndbtop.replication.reader import EndpointRead, EndpointReader
from ndbtop.replication.setup import ReplicationSetup

BACKGROUND_EVERY = 10.0
"""Seconds between two reads while nothing shows replication."""
COUNTS_PER_SOURCE = 32
"""Lags a source counts at most per read (each may be a query of its ndb_binlog_index): a
replica that names many channels, or many source servers, costs the source no more."""
RATE_WINDOW_S = 60.0
"""Seconds over which the rate of epochs written is measured (the reads within it)."""
NAME = "replication"


class _Rates:
    """How fast a counter grows, over the reads of the last :data:`RATE_WINDOW_S`."""

    def __init__(self) -> None:
        self._points: deque[tuple[float, int]] = deque()

    def add(self, at: float, total: int) -> None:
        points = self._points
        if points and total < points[-1][1]:
            points.clear()  # the counter started again (a server restart)
        points.append((at, total))
        while len(points) > 2 and points[1][0] <= at - RATE_WINDOW_S:
            points.popleft()

    def per_second(self) -> tuple[float | None, float]:
        """(rate per second, seconds it was measured over); None before two reads."""
        points = self._points
        if len(points) < 2 or points[-1][0] <= points[0][0]:
            return None, 0.0
        span = points[-1][0] - points[0][0]
        return (points[-1][1] - points[0][1]) / span, span

    def last_rise(self) -> tuple[int, float]:
        """(rise, seconds) between the last two reads."""
        points = self._points
        if len(points) < 2:
            return 0, 0.0
        (t0, a), (t1, b) = points[-2], points[-1]
        return max(b - a, 0), t1 - t0


class ReplicationSource:
    """Reads every SQL node named for replication and joins the channels."""

    name = NAME

    def __init__(self, setup: ReplicationSetup, clock: Clock, interval: float,
                 on_update: Callable[[], None],
                 make_reader: Callable[..., EndpointReader] = EndpointReader) -> None:
        self.setup = setup
        self.clock = clock
        self.interval = interval
        self.on_update = on_update
        self.readers = [make_reader(spec.options, wall=clock.wall) for spec in setup.endpoints]
        self._sides = {reader.target: spec.side
                       for reader, spec in zip(self.readers, setup.endpoints)}
        count = len(self.readers)
        self.health = Health(NAME, f"{count} SQL node{'s' if count != 1 else ''}")
        self.state: ReplicationState | None = None
        self._wanted: set[str] = set()
        self._connected: set[str] = set()
        self._last: dict[str, Endpoint] = {}
        self._epochs: dict[str, tuple[_Rates, list[int]]] = {}
        self._conflicts: dict[str, _Rates] = {}

    @property
    def status(self) -> SourceStatus:
        """The source's state."""
        return self.health.status

    @property
    def every(self) -> float:
        """Seconds between two reads now."""
        return self.interval if self._wanted else max(BACKGROUND_EVERY, self.interval)

    def want(self, owner: str, wanted: bool) -> None:
        """Read at every refresh while some ``owner`` wants it (a view, a report)."""
        before = bool(self._wanted)
        if wanted:
            self._wanted.add(owner)
        else:
            self._wanted.discard(owner)
        if bool(self._wanted) and not before:
            self.health.wake.set()

    async def poll_once(self) -> ReplicationState:
        """Read every SQL node (at once, each in a thread) and join the channels."""
        endpoints = tuple(await asyncio.gather(*(self._read(r) for r in self.readers)))
        counts: dict[tuple[str, int], tuple[int, bool] | str] = {}
        readers = {r.target: r for r in self.readers}
        asked: dict[str, int] = {}
        for target, applied in sorted(counts_wanted(endpoints)):
            reader = readers[target]
            if target not in self._connected:
                counts[(target, applied)] = "its source does not answer"
                continue
            asked[target] = asked.get(target, 0) + 1
            if asked[target] > COUNTS_PER_SOURCE:
                counts[(target, applied)] = (f"not counted: the source counts {COUNTS_PER_SOURCE} "
                                             "lags at most per read")
                continue
            try:
                counts[(target, applied)] = await asyncio.to_thread(reader.count_after, applied)
            except SqlError as exc:
                self._connected.discard(target)
                counts[(target, applied)] = str(exc)
        channels = join_channels(endpoints, counts, self._channel_conflicts(endpoints))
        self.state = ReplicationState(endpoints, channels, self.setup.lag_threshold_s,
                                      self.clock.wall(), self.every)
        return self.state

    async def _read(self, reader: EndpointReader) -> Endpoint:
        target = reader.target
        try:
            if target not in self._connected:
                await asyncio.to_thread(reader.connect)
                self._connected.add(target)
            got = await asyncio.to_thread(reader.read)
        except SqlError as exc:
            self._connected.discard(target)
            before = self._last.get(target)
            if before is None:
                return Endpoint(target, self._sides[target], error=str(exc))
            return replace(before, error=str(exc))
        endpoint = self._endpoint(target, got)
        self._last[target] = endpoint
        return endpoint

    def _endpoint(self, target: str, got: EndpointRead) -> Endpoint:
        now = self.clock.monotonic()
        rates, total = self._epochs.setdefault(target, (_Rates(), [0]))
        if got.newest_epoch is not None:
            total[0] += got.new_epochs or 0
            rates.add(now, total[0])
        rate, window = rates.per_second()
        per_min, rose = None, 0
        if got.conflicts is not None:
            counter = self._conflicts.setdefault(target, _Rates())
            counter.add(now, got.conflicts)
            rose, span = counter.last_rise()
            per_min = rose / span * 60.0 if span > 0 else None
        return Endpoint(
            target=target, side=self._sides[target], read_at=self.clock.wall(),
            server_id=got.server_id, version=got.version,
            binlog_file=got.binlog.file if got.binlog else None,
            binlog_position=got.binlog.position if got.binlog else None,
            newest_epoch=got.newest_epoch, last_commit_epoch=got.last_commit_epoch,
            epoch_rate=rate, epoch_rate_window_s=window, incidents=got.incidents,
            channels=got.threads, applied=got.applied,
            max_replicated_epoch=got.max_replicated_epoch, conflicts=got.conflicts,
            conflicts_per_min=per_min, conflicts_rose=rose,
            channel_epochs=tuple((a.channel, a.max_replicated_epoch) for a in got.applier
                                 if a.max_replicated_epoch is not None),
            channel_conflicts=tuple((a.channel, a.conflicts) for a in got.applier),
            unavailable=tuple(sorted(got.unavailable.items())))

    def _channel_conflicts(self, endpoints: Sequence[Endpoint]) -> dict[str, float]:
        """Conflicts per minute of each channel whose replica gives them per channel."""
        out = {}
        now = self.clock.monotonic()
        seen = {e.target for e in endpoints}
        for e in endpoints:
            if e.error is not None:
                seen.update(k for k in self._conflicts if k.startswith(f"{e.target}/"))
                continue
            for channel, total in e.channel_conflicts:
                key = f"{e.target}/{channel}"
                seen.add(key)
                counter = self._conflicts.setdefault(key, _Rates())
                counter.add(now, total)
                rose, span = counter.last_rise()
                if span > 0:
                    out[key] = rose / span * 60.0
        # A channel no longer listed is forgotten: names that change at every read do not
        # pile up.
        for key in [k for k in self._conflicts if k not in seen]:
            del self._conflicts[key]
        return out

    async def attempt(self) -> float:
        """Read once and record how it went; returns the seconds until the next read."""
        started = time.monotonic()
        state = await self.poll_once()
        answered = [e for e in state.endpoints if e.error is None]
        delay = max(self.every - (time.monotonic() - started), 0.0)
        if answered or not state.endpoints:
            self.health.ok()
        else:
            delay = self.health.failed(state.endpoints[0].error or "no SQL node answers",
                                       SourceState.RETRYING)
        self.health.status = replace(self.health.status, every=self.every)
        self.on_update()
        return delay

    async def run(self) -> None:
        """Read until cancelled; never raises for a server problem."""
        while True:
            await self.health.sleep(await self.attempt())

    async def close(self) -> None:
        """Close every connection (in worker threads)."""
        for reader in self.readers:
            with contextlib.suppress(Exception):
                await asyncio.to_thread(reader.close)
        self._connected.clear()
