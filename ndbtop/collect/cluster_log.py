"""The cluster log's recent history, read from each management server's host.

Each management node writes its own cluster log file (:func:`~ndbtop.mgm.cluster_log.
log_place`). Its host is its configured ``HostName``, else the address ``get status``
gives, else the host ndbtop connected to. The file is read here when ndbtop runs on that
host, else over ``--ssh`` (the data node host's connection when it is one, otherwise one
of its own, with the same options): the newest file, then its rotated predecessors newest
first, at most the last :data:`HISTORY_S` or :data:`READ_LIMIT` bytes in all, whichever
comes first. Several management servers' files are merged, each event once.

The lines are read in a worker thread (a file of 4 MB takes seconds: the live view does
not wait), as the server's only when they could be (:func:`~ndbtop.mgm.cluster_log.
parse_line`: a line stamped later than the host's clock when the file was read, plus
:data:`AHEAD_S`, stays text). Merging the files, like every match of one event seen twice,
is linear in the lines however many share a text.

Read again (the live view does when its event listener was cut off, so that the events
missed show), a file gives only what was appended since (:func:`read_appended`, from the
size it had), or, once it was rotated, its bounded tail again.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from ndbtop.collect.ssh import HostError, SshHost
from ndbtop.host.log_tail import FileTail, read_local_tail
from ndbtop.host.remote import SshOptions
from ndbtop.mgm.cluster_log import LogLine, LogPlace, log_place, parse_lines
from ndbtop.mgm.status import NodeStatus
from ndbtop.model.config import ClusterConfig
from ndbtop.model.sources import SourceState, SourceStatus

HISTORY_S = 3600.0
"""How far back the files are read."""
READ_LIMIT = 4 * 1024 * 1024
"""Bytes read at most from one management server's files."""
KEEP_LINES = 5000
"""Lines kept (the newest): the history the views, the reports and the rules see."""
APPEND_TRIES = 3
"""Requests for what was appended, when the file keeps growing between them."""
SAME_EVENT_S = 1.0
"""Two management servers log one event within this many seconds of each other."""
AHEAD_S = 60.0
"""How far past the host's clock a line may be stamped and still be read as timed (the
file's times are to the second, in the offset the host gave when it was read)."""
NAME = "cluster-log"


class TailReader(Protocol):
    """A host whose log files can be read."""

    async def log_tail(self, path: str, limit: int) -> FileTail | None:
        """The last ``limit`` bytes of ``path`` (0: its size and time only)."""


class LocalFiles:
    """This host's files."""

    async def log_tail(self, path: str, limit: int) -> FileTail | None:
        """The end of a file here (read in a thread: a slow disk holds no event loop)."""
        return await asyncio.to_thread(read_local_tail, path, limit)


def is_this_host(host: str) -> bool:
    """Whether ``host`` names the machine ndbtop runs on (its name or the loopback's
    usual names; no name is looked up)."""
    own = socket.gethostname().lower()
    return host.lower() in {"localhost", "127.0.0.1", "::1", own, own.split(".")[0]}


def mgm_places(config: ClusterConfig | None, nodes: Iterable[NodeStatus],
               connected: str | None) -> list[LogPlace]:
    """Where every management node of the configuration writes its cluster log."""
    if config is None:
        return []
    address = {n.node_id: n.address for n in nodes if n.type == "MGM" and n.address}
    out = []
    for n in config.nodes:
        if n.node_type != "MGM":
            continue
        host = n.host or address.get(n.node_id) or connected or ""
        out.append(log_place(n.node_id, host, n.data_dir, n.log_destination))
    return out


@dataclass(frozen=True)
class PlaceRead:
    """One management server's files as last read: their lines of the last hour (oldest
    first), the size of the newest file they go up to (where a later read goes on from),
    and its predecessors' sizes and times (a change among them is a rotation)."""

    lines: tuple[LogLine, ...]
    size: int
    older: tuple[tuple[str, int, float], ...]


async def _predecessors(reader: TailReader, place: LogPlace) -> list[tuple[str, FileTail]]:
    """The rotated files that exist, newest first (the numbers go round: by their time)."""
    assert place.path is not None
    older = []
    for n in range(1, place.max_files):
        path = f"{place.path}.{n}"
        st = await reader.log_tail(path, 0)
        if st is not None:
            older.append((path, st))
    return sorted(older, key=lambda f: -f[1].mtime)


def _stats(older: list[tuple[str, FileTail]]) -> tuple[tuple[str, int, float], ...]:
    return tuple(sorted((path, st.size, st.mtime) for path, st in older))


async def read_place(reader: TailReader, place: LogPlace, wall: float
                     ) -> tuple[PlaceRead | None, str | None]:
    """The lines of one management server's files within the hour before now (the host's
    clock when it tells it, else ``wall``), oldest first, or what could not be read."""
    assert place.path is not None
    base = await reader.log_tail(place.path, 0)
    if base is None:
        return None, f"no cluster log file {place.path} on {place.host}"
    now = base.host_now or wall
    older = await _predecessors(reader, place)
    files = [(place.path, base), *older]
    budget = READ_LIMIT
    size = base.size
    chunks: list[list[LogLine]] = []
    for i, (path, st) in enumerate(files):
        if i and st.mtime < now - HISTORY_S:
            break
        want = min(budget, st.size)
        if want <= 0:
            continue
        tail = await reader.log_tail(path, want)
        if tail is None:
            continue
        if i == 0:
            size = tail.size
        budget -= want
        lines = await _parse(tail, place, want >= tail.size, now)
        chunks.insert(0, lines)
        first = next((ln.time for ln in lines if ln.time is not None), None)
        if budget <= 0 or (first is not None and first < now - HISTORY_S):
            break
    lines = _recent([ln for c in chunks for ln in c], now - HISTORY_S)
    return PlaceRead(tuple(lines[-KEEP_LINES:]), size, _stats(older)), None


async def read_appended(reader: TailReader, place: LogPlace, kept: PlaceRead, wall: float
                        ) -> tuple[PlaceRead | None, str | None]:
    """``kept`` with what was appended to the newest file since it was read (at most
    :data:`READ_LIMIT` bytes of it); after a rotation, the whole bounded tail again
    (:func:`read_place`)."""
    assert place.path is not None
    base = await reader.log_tail(place.path, 0)
    if base is None:
        return None, f"no cluster log file {place.path} on {place.host}"
    older = _stats(await _predecessors(reader, place))
    if base.size < kept.size or older != kept.older:
        return await read_place(reader, place, wall)
    size, tail, want = base.size, None, 0
    for _ in range(APPEND_TRIES):
        if size <= kept.size:
            return PlaceRead(kept.lines, kept.size, older), None
        want = min(size - kept.size, READ_LIMIT)
        tail = await reader.log_tail(place.path, want)
        if tail is None:
            return None, f"no cluster log file {place.path} on {place.host}"
        if tail.size < kept.size:
            return await read_place(reader, place, wall)
        if tail.size == size:
            break
        # It grew between the two requests: ask again from the same offset.
        size = tail.size
    assert tail is not None
    now = tail.host_now or base.host_now or wall
    new = await _parse(tail, place, tail.size - want == kept.size, now)
    lines = _recent([*kept.lines, *new], now - HISTORY_S)
    return PlaceRead(tuple(lines[-KEEP_LINES:]), tail.size, older), None


async def _parse(tail: FileTail, place: LogPlace, whole: bool, now: float) -> list[LogLine]:
    """The lines of ``tail`` (read in a worker thread), none stamped after ``now`` plus
    :data:`AHEAD_S`."""
    return await asyncio.to_thread(parse_lines, tail.text, tail.tz, place.mgm_node, whole,
                                   now + AHEAD_S)


def _recent(lines: Sequence[LogLine], since: float) -> list[LogLine]:
    """Lines from ``since`` on; a line that does not read stays with the line before it."""
    out, keep = [], False
    for ln in lines:
        if ln.time is not None:
            keep = ln.time >= since
        if keep:
            out.append(ln)
    return out


def merge(files: Sequence[Sequence[LogLine]]) -> list[LogLine]:
    """The lines of several management servers' files in time order, each event once (a
    line of another server with the same node and text within :data:`SAME_EVENT_S` is the
    same event)."""
    keyed = []
    for f, lines in enumerate(files):
        last = float("-inf")
        for i, ln in enumerate(lines):
            last = ln.time if ln.time is not None else last
            keyed.append((last, f, i, ln))
    keyed.sort(key=lambda k: k[:3])
    out: list[LogLine] = []
    # Per (node, text), per file: the times of its lines within SAME_EVENT_S of now (the
    # lines come in time order, so older ones can never match again).
    recent: dict[tuple[int | None, str], dict[int, deque[float]]] = {}
    for t, f, _, ln in keyed:
        if ln.time is not None:
            by_file = recent.setdefault((ln.node, ln.text), {})
            match: tuple[float, int] | None = None
            for src, times in by_file.items():
                while times and times[0] < t - SAME_EVENT_S:
                    times.popleft()
                if src != f and times and (match is None or (times[0], src) < match):
                    match = (times[0], src)
            if match is not None:
                by_file[match[1]].popleft()
                continue
            by_file.setdefault(f, deque()).append(t)
        out.append(ln)
    return out


@dataclass(frozen=True)
class ClusterLogRead:
    """What one read gave: the merged lines and, per management node, why its file was not
    read."""

    lines: tuple[LogLine, ...]
    problems: tuple[tuple[int, str], ...]
    places: tuple[LogPlace, ...]


class ClusterLogSource:
    """Reads the management servers' cluster log files once it knows where they are."""

    def __init__(self, ssh: SshOptions | None, interval: float,
                 remote: Callable[[str], SshHost | None],
                 readers: dict[str, TailReader] | None = None) -> None:
        self.readers = readers or {}
        """Hosts read another way (a simulated management server's files), by name."""
        self.ssh = ssh
        self.interval = interval
        self.remote = remote
        """The data node host's connection to ``host``, when ndbtop reads one."""
        self.own: dict[str, SshHost] = {}
        self.read: ClusterLogRead | None = None
        self.kept: dict[int, tuple[str | None, PlaceRead]] = {}
        """Per management node: the file last read and what it gave."""
        self.status = SourceStatus(NAME, SourceState.DISABLED, error="not read yet")

    def _reader(self, host: str) -> TailReader | None:
        if host in self.readers:
            return self.readers[host]
        if is_this_host(host):
            return LocalFiles()
        if self.ssh is None or not host:
            return None
        source = self.remote(host)
        if source is None:
            source = self.own.get(host)
            if source is None:
                source = self.own[host] = SshHost(host, self.ssh, self.interval, lambda: None)
        return source

    async def read_all(self, places: Sequence[LogPlace], timeout: float, wall: float,
                       appended: bool = False) -> ClusterLogRead:
        """Read every place (each within ``timeout`` seconds; ``wall``: ndbtop's clock) and
        keep the result. ``appended``: only what each file gained since it was last read
        (a file not read before, or rotated since, is read whole, within the bounds)."""
        problems: list[tuple[int, str]] = []
        wanted = []
        for place in places:
            if place.path is None:
                problems.append((place.mgm_node, place.why or "no file"))
                continue
            reader = self._reader(place.host)
            if reader is None:
                problems.append((place.mgm_node, f"on {place.host or 'an unknown host'}: "
                                 "no --ssh connection to it"))
                continue
            wanted.append((place, reader))

        async def one(place: LogPlace, reader: TailReader
                      ) -> tuple[PlaceRead | None, str | None]:
            kept = self.kept.get(place.mgm_node)
            try:
                if appended and kept is not None and kept[0] == place.path:
                    read = read_appended(reader, place, kept[1], wall)
                else:
                    read = read_place(reader, place, wall)
                return await asyncio.wait_for(read, timeout)
            except asyncio.TimeoutError:
                return None, f"{place.host}: no answer within {timeout:.0f} s"
            except (HostError, ValueError, OSError) as exc:
                return None, f"{place.host}: {exc}"

        results = await asyncio.gather(*(one(p, r) for p, r in wanted))
        files = []
        for (place, _), (got, why) in zip(wanted, results):
            if got is None:
                problems.append((place.mgm_node, why or "not read"))
                old = self.kept.get(place.mgm_node)
                if appended and old is not None:
                    # What was read before stays the history it was.
                    files.append(old[1].lines)
                else:
                    self.kept.pop(place.mgm_node, None)
            else:
                self.kept[place.mgm_node] = (place.path, got)
                files.append(got.lines)
        merged = merge(files)[-KEEP_LINES:]
        self.read = ClusterLogRead(tuple(merged), tuple(problems), tuple(places))
        self.status = _status(self.read, bool(files))
        return self.read

    async def close(self) -> None:
        """Close the connections opened for the management hosts alone."""
        await asyncio.gather(*(s.close() for s in self.own.values()))


def _status(read: ClusterLogRead, any_read: bool) -> SourceStatus:
    why = "; ".join(f"management node {n}: {w}" for n, w in read.problems) or None
    if any_read:
        return SourceStatus(NAME, SourceState.CONNECTED, last_ok=time.monotonic(),
                            unavailable=tuple((f"management node {n}", w)
                                              for n, w in read.problems))
    if not read.places:
        return SourceStatus(NAME, SourceState.DISABLED,
                            error="no management node in the configuration")
    return SourceStatus(NAME, SourceState.DISABLED, error=why)
