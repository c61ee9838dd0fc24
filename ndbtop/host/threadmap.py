"""Pairing local OS threads with the data node threads ndbinfo reports.

``ndbinfo.threadstat.os_tid`` is the kernel thread id of each block thread (on Linux
``gettid()``, the same number as ``/proc/<pid>/task/<tid>``), so a local thread and an
ndbinfo thread are the same thread when their tids are equal and they belong to the
same data node. Threads of other hosts are in the ndbinfo rows too and their tids can
collide with local ones, which is why the node id must agree when the local side knows
it; when it does not, a tid that more than one node reports is left unmatched.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from ndbtop.compat import SLOTS


class LocalThread(Protocol):
    """What matching needs from a local thread: its tid and, if known, its node id."""

    @property
    def tid(self) -> int: ...

    @property
    def node_id(self) -> int | None: ...


T = TypeVar("T", bound=LocalThread)


@dataclass(frozen=True, **SLOTS)
class NdbinfoThread:
    """One data node thread as ndbinfo names it.

    ``os_tid`` comes from ``threadstat``; ``None`` (or 0) when the version or the
    platform does not give it, and such a row never matches.
    """

    node_id: int
    thr_no: int
    thread_name: str
    os_tid: int | None = None


@dataclass(frozen=True, **SLOTS)
class ThreadMatch(Generic[T]):
    """A local thread and the ndbinfo thread it is."""

    ndbinfo: NdbinfoThread
    local: T


def match_threads(
    ndbinfo_rows: Iterable[NdbinfoThread], local_threads: Iterable[T]
) -> tuple[ThreadMatch[T], ...]:
    """Pairs of (ndbinfo thread, local thread) with the same tid, in local thread order.

    A local thread with a node id only matches a row of that node; one without a node id
    matches only if exactly one row carries its tid. Linear in both, whatever repeats.
    """
    # Per tid and per (tid, node): the one row that has it, or None when several have.
    by_tid: dict[int, NdbinfoThread | None] = {}
    by_node: dict[tuple[int, int], NdbinfoThread | None] = {}
    for row in ndbinfo_rows:
        if row.os_tid:
            by_tid[row.os_tid] = None if row.os_tid in by_tid else row
            key = (row.os_tid, row.node_id)
            by_node[key] = None if key in by_node else row
    matches: list[ThreadMatch[T]] = []
    for local in local_threads:
        if local.node_id is not None:
            found = by_node.get((local.tid, local.node_id))
        else:
            found = by_tid.get(local.tid)
        if found is not None:
            matches.append(ThreadMatch(found, local))
    return tuple(matches)
